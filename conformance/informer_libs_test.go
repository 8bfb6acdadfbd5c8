package conformance

import (
	"context"
	"errors"
	"sort"
	"time"

	kc "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	cg "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// informerLib is one library's informer API as the informer harnesses
// (informerAdapter, informerMisuseOn, informerCrashOn) use it: every entry
// builds or calls something that names the library's own types, and
// answers in neutral ones, so each harness is written once for both
// libraries. Nothing in it records or compares.
type informerLib struct {
	// shared builds a SharedIndexInformer of pods over lw.
	shared func(lw *informerScriptedSource, resync time.Duration, indexers storeIndexFuncs) informerShared
	// plain builds the store and controller of NewInformerWithOptions,
	// delivering to handler.
	plain func(lw *informerScriptedSource, handler any, opts informerPlainOptions) informerPlain
	// processErrorPlay runs a controller whose Process always fails over
	// lw and returns the objects it was given, sorted.
	processErrorPlay func(ctx context.Context, lw *informerScriptedSource) []string
}

// informerRunner is what both libraries' informers and controllers answer
// in neutral types.
type informerRunner interface {
	RunWithContext(ctx context.Context)
	HasSynced() bool
	LastSyncResourceVersion() string
}

// informerHandlerOptions are the HandlerOptions a harness passes.
type informerHandlerOptions struct {
	resync *time.Duration
	logger *klog.Logger
}

// informerShared is a library's SharedIndexInformer in neutral types.
type informerShared struct {
	informerRunner
	isStopped func() bool
	// add registers handler (nil allowed), wrapped in a
	// FilteringResourceEventHandler when filter is set, through
	// AddEventHandler when opts is nil and AddEventHandlerWithOptions
	// otherwise.
	add func(handler any, filter func(any) bool, opts *informerHandlerOptions) (informerRegistration, error)
	// remove calls RemoveEventHandler with reg as the library's
	// registration (nil when reg is nil or another library's).
	remove       func(reg informerRegistration) error
	list         func() []any
	storeRV      func() string
	byIndex      func(index, value string) ([]any, error)
	addIndexers  func(indexers storeIndexFuncs) error
	setTransform func(fn func(any) (any, error)) error
	// checkerNames names the informer's, its GetController()'s and reg's
	// DoneCheckers.
	checkerNames func(reg informerRegistration) []string
	// controllerRV is GetController().LastSyncResourceVersion().
	controllerRV func() string
}

// informerPlainOptions are the InformerOptions a harness sets besides the
// lister-watcher and the object type (pods).
type informerPlainOptions struct {
	// filter, when set, wraps the handler in a FilteringResourceEventHandler.
	filter    func(any) bool
	resync    time.Duration
	indexers  storeIndexFuncs
	transform func(any) (any, error)
}

// informerPlain is NewInformerWithOptions's result in neutral types.
type informerPlain struct {
	// store is the store, which is an Indexer.
	store informerPlainStore
	// ctrl is the controller.
	ctrl informerRunner
	// checkerName names the controller's DoneChecker.
	checkerName func() string
}

// informerClientGo and informerKCache are the two libraries.
var (
	informerClientGo = informerLib{shared: informerSharedClientGo, plain: informerNewPlainClientGo, processErrorPlay: informerProcessErrorClientGo}
	informerKCache   = informerLib{shared: informerSharedKCache, plain: informerNewPlainKCache, processErrorPlay: informerProcessErrorKCache}
)

func init() {
	informerTombstoneDecoders = append(informerTombstoneDecoders,
		informerDecodeTombstone[cg.DeletedFinalStateUnknown], informerDecodeTombstone[kc.DeletedFinalStateUnknown])
}

// informerDecodeTombstone recognises a library's DeletedFinalStateUnknown T.
func informerDecodeTombstone[T ~storeTombstoneFields](obj any) (string, any, bool) {
	d, ok := obj.(T)
	fields := storeTombstoneFields(d)
	return fields.Key, fields.Obj, ok
}

// informerSharedClientGo builds client-go's SharedIndexInformer.
func informerSharedClientGo(lw *informerScriptedSource, resync time.Duration, indexers storeIndexFuncs) informerShared {
	index := storeIndexersOf[cg.Indexers, cg.IndexFunc]{}
	return informerWrapClientGo(cg.NewSharedIndexInformer(lw, &v1.Pod{}, resync, index.indexers(indexers)))
}

// informerWrapClientGo wraps client-go's SharedIndexInformer inf.
func informerWrapClientGo(inf cg.SharedIndexInformer) informerShared {
	index := storeIndexersOf[cg.Indexers, cg.IndexFunc]{}
	return informerShared{
		informerRunner: inf, isStopped: inf.IsStopped,
		add: func(handler any, filter func(any) bool, opts *informerHandlerOptions) (informerRegistration, error) {
			h := informerHandlerAs[cg.ResourceEventHandler](handler)
			if filter != nil {
				h = cg.FilteringResourceEventHandler{FilterFunc: filter, Handler: h}
			}
			if opts == nil {
				return inf.AddEventHandler(h)
			}
			return inf.AddEventHandlerWithOptions(h, cg.HandlerOptions{ResyncPeriod: opts.resync, Logger: opts.logger})
		},
		remove: func(reg informerRegistration) error {
			h, _ := reg.(cg.ResourceEventHandlerRegistration)
			return inf.RemoveEventHandler(h)
		},
		list:         func() []any { return inf.GetStore().List() },
		storeRV:      func() string { return inf.GetStore().LastStoreSyncResourceVersion() },
		byIndex:      func(index, value string) ([]any, error) { return inf.GetIndexer().ByIndex(index, value) },
		addIndexers:  func(indexers storeIndexFuncs) error { return inf.AddIndexers(index.indexers(indexers)) },
		setTransform: func(fn func(any) (any, error)) error { return inf.SetTransform(fn) },
		checkerNames: func(reg informerRegistration) []string {
			return []string{inf.HasSyncedChecker().Name(), inf.GetController().HasSyncedChecker().Name(),
				reg.(cg.ResourceEventHandlerRegistration).HasSyncedChecker().Name()}
		},
		controllerRV: func() string { return inf.GetController().LastSyncResourceVersion() },
	}
}

// informerSharedKCache builds kcache's SharedIndexInformer; each entry is
// informerSharedClientGo's with kcache's types.
func informerSharedKCache(lw *informerScriptedSource, resync time.Duration, indexers storeIndexFuncs) informerShared {
	index := storeIndexersOf[kc.Indexers, kc.IndexFunc]{}
	return informerWrapKCache(kc.NewSharedIndexInformer(lw, &v1.Pod{}, resync, index.indexers(indexers)))
}

// informerWrapKCache wraps kcache's SharedIndexInformer inf.
func informerWrapKCache(inf kc.SharedIndexInformer) informerShared {
	index := storeIndexersOf[kc.Indexers, kc.IndexFunc]{}
	return informerShared{
		informerRunner: inf, isStopped: inf.IsStopped,
		add: func(handler any, filter func(any) bool, opts *informerHandlerOptions) (informerRegistration, error) {
			h := informerHandlerAs[kc.ResourceEventHandler](handler)
			if filter != nil {
				h = kc.FilteringResourceEventHandler{FilterFunc: filter, Handler: h}
			}
			if opts == nil {
				return inf.AddEventHandler(h)
			}
			return inf.AddEventHandlerWithOptions(h, kc.HandlerOptions{ResyncPeriod: opts.resync, Logger: opts.logger})
		},
		remove: func(reg informerRegistration) error {
			h, _ := reg.(kc.ResourceEventHandlerRegistration)
			return inf.RemoveEventHandler(h)
		},
		list:         func() []any { return inf.GetStore().List() },
		storeRV:      func() string { return inf.GetStore().LastStoreSyncResourceVersion() },
		byIndex:      func(index, value string) ([]any, error) { return inf.GetIndexer().ByIndex(index, value) },
		addIndexers:  func(indexers storeIndexFuncs) error { return inf.AddIndexers(index.indexers(indexers)) },
		setTransform: func(fn func(any) (any, error)) error { return inf.SetTransform(fn) },
		checkerNames: func(reg informerRegistration) []string {
			return []string{inf.HasSyncedChecker().Name(), inf.GetController().HasSyncedChecker().Name(),
				reg.(kc.ResourceEventHandlerRegistration).HasSyncedChecker().Name()}
		},
		controllerRV: func() string { return inf.GetController().LastSyncResourceVersion() },
	}
}

// informerNewPlainClientGo builds client-go's NewInformerWithOptions.
func informerNewPlainClientGo(lw *informerScriptedSource, handler any, opts informerPlainOptions) informerPlain {
	h := informerHandlerAs[cg.ResourceEventHandler](handler)
	if opts.filter != nil {
		h = cg.FilteringResourceEventHandler{FilterFunc: opts.filter, Handler: h}
	}
	store, ctrl := cg.NewInformerWithOptions(cg.InformerOptions{ListerWatcher: lw, ObjectType: &v1.Pod{}, Handler: h,
		ResyncPeriod: opts.resync, Indexers: storeIndexersOf[cg.Indexers, cg.IndexFunc]{}.indexers(opts.indexers), Transform: opts.transform})
	return informerPlain{store: store.(cg.Indexer), ctrl: ctrl, checkerName: func() string { return ctrl.HasSyncedChecker().Name() }}
}

// informerNewPlainKCache builds kcache's NewInformerWithOptions.
func informerNewPlainKCache(lw *informerScriptedSource, handler any, opts informerPlainOptions) informerPlain {
	h := informerHandlerAs[kc.ResourceEventHandler](handler)
	if opts.filter != nil {
		h = kc.FilteringResourceEventHandler{FilterFunc: opts.filter, Handler: h}
	}
	store, ctrl := kc.NewInformerWithOptions(kc.InformerOptions{ListerWatcher: lw, ObjectType: &v1.Pod{}, Handler: h,
		ResyncPeriod: opts.resync, Indexers: storeIndexersOf[kc.Indexers, kc.IndexFunc]{}.indexers(opts.indexers), Transform: opts.transform})
	return informerPlain{store: store.(kc.Indexer), ctrl: ctrl, checkerName: func() string { return ctrl.HasSyncedChecker().Name() }}
}

// informerProcessErrorClientGo runs client-go's controller (New) with a
// Process that always fails.
func informerProcessErrorClientGo(ctx context.Context, lw *informerScriptedSource) []string {
	var calls []string
	store := cg.NewStore(cg.MetaNamespaceKeyFunc)
	cg.New(&cg.Config{
		Queue: cg.NewDeltaFIFOWithOptions(cg.DeltaFIFOOptions{KnownObjects: store}), ListerWatcher: lw, ObjectType: &v1.Pod{},
		Process: func(obj any, _ bool) error {
			calls = append(calls, informerDescribe(obj.(cg.Deltas).Newest().Object))
			return errors.New("process fails")
		},
	}).RunWithContext(ctx)
	sort.Strings(calls)
	return calls
}

// informerProcessErrorKCache is informerProcessErrorClientGo on kcache.
func informerProcessErrorKCache(ctx context.Context, lw *informerScriptedSource) []string {
	var calls []string
	store := kc.NewStore(kc.MetaNamespaceKeyFunc)
	kc.New(&kc.Config{
		Queue: kc.NewDeltaFIFOWithOptions(kc.DeltaFIFOOptions{KnownObjects: store}), ListerWatcher: lw, ObjectType: &v1.Pod{},
		Process: func(obj any, _ bool) error {
			calls = append(calls, informerDescribe(obj.(kc.Deltas).Newest().Object))
			return errors.New("process fails")
		},
	}).RunWithContext(ctx)
	sort.Strings(calls)
	return calls
}

// informerHandlerAs is handler as a library's ResourceEventHandler H; nil
// stays nil.
func informerHandlerAs[H any](handler any) H {
	if handler == nil {
		var none H
		return none
	}
	return handler.(H)
}

// informerIndexFuncsOf selects catalog index functions by name.
func informerIndexFuncsOf(names []string) storeIndexFuncs {
	funcs := storeIndexFuncs{}
	for _, n := range names {
		funcs[n] = informerIndexFuncs[n]
	}
	return funcs
}

// informerSorted describes objs, sorted.
func informerSorted(objs []any) []string {
	var out []string
	for _, obj := range objs {
		out = append(out, informerDescribe(obj))
	}
	sort.Strings(out)
	return out
}
