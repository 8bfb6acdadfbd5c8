package conformance

import (
	"context"

	kcache "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

func informerCrashClientGo(lw *informerScriptedSource, c informerCrashCase) informerCrashInformer {
	idx := cache.Indexers{"by-app": informerCrashIndexFunc(c.indexPanicOn)}
	a := &informerCrashAdapter{}
	if c.plain {
		var store cache.Store
		var ctrl cache.Controller
		a.add = func(h *informerCrashHandler, _ klog.Logger) (informerRegistration, error) {
			store, ctrl = cache.NewInformerWithOptions(cache.InformerOptions{ListerWatcher: lw, ObjectType: &v1.Pod{}, Handler: h, Indexers: idx})
			return informerCrashPlainRegistration{func() bool { return ctrl.HasSynced() }}, nil
		}
		a.runF = func(ctx context.Context) { ctrl.RunWithContext(ctx) }
		a.synced = func() bool { return ctrl.HasSynced() }
		a.list = func() []interface{} { return store.List() }
		a.ctrlRV = func() string { return ctrl.LastSyncResourceVersion() }
		a.removeNilF = informerCrashPlainUnsupported
		a.removeF = func(informerRegistration) error { return nil }
		return a
	}
	inf := cache.NewSharedIndexInformer(lw, &v1.Pod{}, 0, idx)
	if c.transformPanicOn != "" {
		_ = inf.SetTransform(informerCrashTransform(c.transformPanicOn))
	}
	a.add = func(h *informerCrashHandler, logger klog.Logger) (informerRegistration, error) {
		return inf.AddEventHandlerWithOptions(h, cache.HandlerOptions{Logger: &logger})
	}
	a.runF = inf.RunWithContext
	a.synced = inf.HasSynced
	a.list = inf.GetStore().List
	a.ctrlRV = func() string { return inf.GetController().LastSyncResourceVersion() }
	a.removeNilF = func() error { return inf.RemoveEventHandler(nil) }
	a.removeF = func(reg informerRegistration) error {
		h, _ := reg.(cache.ResourceEventHandlerRegistration)
		return inf.RemoveEventHandler(h)
	}
	return a
}

func informerCrashKcache(lw *informerScriptedSource, c informerCrashCase) informerCrashInformer {
	idx := kcache.Indexers{"by-app": informerCrashIndexFunc(c.indexPanicOn)}
	a := &informerCrashAdapter{}
	if c.plain {
		var store kcache.Store
		var ctrl kcache.Controller
		a.add = func(h *informerCrashHandler, _ klog.Logger) (informerRegistration, error) {
			store, ctrl = kcache.NewInformerWithOptions(kcache.InformerOptions{ListerWatcher: lw, ObjectType: &v1.Pod{}, Handler: h, Indexers: idx})
			return informerCrashPlainRegistration{func() bool { return ctrl.HasSynced() }}, nil
		}
		a.runF = func(ctx context.Context) { ctrl.RunWithContext(ctx) }
		a.synced = func() bool { return ctrl.HasSynced() }
		a.list = func() []interface{} { return store.List() }
		a.ctrlRV = func() string { return ctrl.LastSyncResourceVersion() }
		a.removeNilF = informerCrashPlainUnsupported
		a.removeF = func(informerRegistration) error { return nil }
		return a
	}
	inf := kcache.NewSharedIndexInformer(lw, &v1.Pod{}, 0, idx)
	if c.transformPanicOn != "" {
		_ = inf.SetTransform(informerCrashTransform(c.transformPanicOn))
	}
	a.add = func(h *informerCrashHandler, logger klog.Logger) (informerRegistration, error) {
		return inf.AddEventHandlerWithOptions(h, kcache.HandlerOptions{Logger: &logger})
	}
	a.runF = inf.RunWithContext
	a.synced = inf.HasSynced
	a.list = inf.GetStore().List
	a.ctrlRV = func() string { return inf.GetController().LastSyncResourceVersion() }
	a.removeNilF = func() error { return inf.RemoveEventHandler(nil) }
	a.removeF = func(reg informerRegistration) error {
		h, _ := reg.(kcache.ResourceEventHandlerRegistration)
		return inf.RemoveEventHandler(h)
	}
	return a
}
