package conformance

import (
	"context"

	"k8s.io/klog/v2"
)

// informerCrashOn builds lib's informer of a crash case over lw: a plain
// informer (NewInformerWithOptions, built when the handler is added) or a
// SharedIndexInformer, with the case's panicking index function and
// transform.
func informerCrashOn(lib informerLib) informerCrashBuilder {
	return func(lw *informerScriptedSource, c informerCrashCase) informerCrashInformer {
		idx := storeIndexFuncs{"by-app": informerCrashIndexFunc(c.indexPanicOn)}
		a := &informerCrashAdapter{}
		if c.plain {
			var plain informerPlain
			a.add = func(h *informerCrashHandler, _ klog.Logger) (informerRegistration, error) {
				plain = lib.plain(lw, h, informerPlainOptions{indexers: idx})
				return informerCrashPlainRegistration{func() bool { return plain.ctrl.HasSynced() }}, nil
			}
			a.runF = func(ctx context.Context) { plain.ctrl.RunWithContext(ctx) }
			a.synced = func() bool { return plain.ctrl.HasSynced() }
			a.list = func() []interface{} { return plain.store.List() }
			a.ctrlRV = func() string { return plain.ctrl.LastSyncResourceVersion() }
			a.removeNilF = informerCrashPlainUnsupported
			a.removeF = func(informerRegistration) error { return nil }
			return a
		}
		inf := lib.shared(lw, 0, idx)
		if c.transformPanicOn != "" {
			_ = inf.setTransform(informerCrashTransform(c.transformPanicOn))
		}
		a.add = func(h *informerCrashHandler, logger klog.Logger) (informerRegistration, error) {
			return inf.add(h, nil, &informerHandlerOptions{logger: &logger})
		}
		a.runF = inf.RunWithContext
		a.synced = inf.HasSynced
		a.list = inf.list
		a.ctrlRV = inf.controllerRV
		a.removeNilF = func() error { return inf.remove(nil) }
		a.removeF = inf.remove
		return a
	}
}
