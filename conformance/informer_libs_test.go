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

// informerClientGoAPI and informerKCacheAPI are informerSharedAPI of each
// library's types.
type (
	informerClientGoAPI = informerSharedAPI[cg.ResourceEventHandler, cg.ResourceEventHandlerRegistration,
		cg.HandlerOptions, cg.Indexers, cg.TransformFunc, cg.Store, cg.Indexer, cg.Controller, cg.DoneChecker]
	informerKCacheAPI = informerSharedAPI[kc.ResourceEventHandler, kc.ResourceEventHandlerRegistration,
		kc.HandlerOptions, kc.Indexers, kc.TransformFunc, kc.Store, kc.Indexer, kc.Controller, kc.DoneChecker]
)

// informerSharedClientGo builds client-go's SharedIndexInformer.
func informerSharedClientGo(lw *informerScriptedSource, resync time.Duration, indexers storeIndexFuncs) informerShared {
	return informerWrapClientGo(cg.NewSharedIndexInformer(lw, &v1.Pod{}, resync, storeIndexersOf[cg.Indexers, cg.IndexFunc]{}.indexers(indexers)))
}

// informerWrapClientGo wraps client-go's SharedIndexInformer inf.
func informerWrapClientGo(inf cg.SharedIndexInformer) informerShared {
	return informerWrapOf[cg.FilteringResourceEventHandler, cg.IndexFunc](informerClientGoAPI(inf))
}

// informerSharedKCache builds kcache's SharedIndexInformer.
func informerSharedKCache(lw *informerScriptedSource, resync time.Duration, indexers storeIndexFuncs) informerShared {
	return informerWrapOf[kc.FilteringResourceEventHandler, kc.IndexFunc](informerKCacheAPI(
		kc.NewSharedIndexInformer(lw, &v1.Pod{}, resync, storeIndexersOf[kc.Indexers, kc.IndexFunc]{}.indexers(indexers))))
}

// informerNamed is a library's DoneChecker as the harnesses read it.
type informerNamed interface{ Name() string }

// informerRegistrationOf is a library's ResourceEventHandlerRegistration,
// D its DoneChecker.
type informerRegistrationOf[D informerNamed] interface {
	informerRegistration
	HasSyncedChecker() D
}

// informerStoreReads is what the harnesses read of GetStore.
type informerStoreReads interface {
	List() []any
	LastStoreSyncResourceVersion() string
}

// informerIndexReads is what the harnesses read of GetIndexer.
type informerIndexReads interface {
	ByIndex(index, value string) ([]any, error)
}

// informerControllerOf is what the harnesses read of GetController, D the
// library's DoneChecker.
type informerControllerOf[D informerNamed] interface {
	LastSyncResourceVersion() string
	HasSyncedChecker() D
}

// informerSharedAPI is a library's SharedIndexInformer as informerWrapOf
// drives it: H is its ResourceEventHandler, R its registration, O its
// HandlerOptions, X its Indexers, T its TransformFunc, S, I and C what
// GetStore, GetIndexer and GetController return, D its DoneChecker.
type informerSharedAPI[H any, R informerRegistrationOf[D], O, X, T any, S informerStoreReads, I informerIndexReads,
	C informerControllerOf[D], D informerNamed] interface {
	informerRunner
	IsStopped() bool
	AddEventHandler(handler H) (R, error)
	AddEventHandlerWithOptions(handler H, options O) (R, error)
	RemoveEventHandler(handle R) error
	GetStore() S
	GetIndexer() I
	GetController() C
	AddIndexers(indexers X) error
	SetTransform(handler T) error
	HasSyncedChecker() D
}

// informerWrapOf wraps a library's SharedIndexInformer inf; FR is the
// library's FilteringResourceEventHandler, F its IndexFunc, the rest
// informerSharedAPI's.
func informerWrapOf[FR informerFilteringOf[H], F ~func(any) ([]string, error), H any, R informerRegistrationOf[D], O ~struct {
	Logger       *klog.Logger
	ResyncPeriod *time.Duration
}, X ~map[string]F, T ~func(any) (any, error), S informerStoreReads, I informerIndexReads, C informerControllerOf[D], D informerNamed](
	inf informerSharedAPI[H, R, O, X, T, S, I, C, D]) informerShared {
	index := storeIndexersOf[X, F]{}
	return informerShared{
		informerRunner: inf, isStopped: inf.IsStopped,
		add: func(handler any, filter func(any) bool, opts *informerHandlerOptions) (informerRegistration, error) {
			h := informerHandlerAs[H](handler)
			if filter != nil {
				h = any(FR{FilterFunc: filter, Handler: h}).(H)
			}
			if opts == nil {
				return inf.AddEventHandler(h)
			}
			return inf.AddEventHandlerWithOptions(h, O{ResyncPeriod: opts.resync, Logger: opts.logger})
		},
		remove: func(reg informerRegistration) error {
			h, _ := reg.(R)
			return inf.RemoveEventHandler(h)
		},
		list:         func() []any { return inf.GetStore().List() },
		storeRV:      func() string { return inf.GetStore().LastStoreSyncResourceVersion() },
		byIndex:      func(index, value string) ([]any, error) { return inf.GetIndexer().ByIndex(index, value) },
		addIndexers:  func(indexers storeIndexFuncs) error { return inf.AddIndexers(index.indexers(indexers)) },
		setTransform: func(fn func(any) (any, error)) error { return inf.SetTransform(fn) },
		checkerNames: func(reg informerRegistration) []string {
			return []string{inf.HasSyncedChecker().Name(), inf.GetController().HasSyncedChecker().Name(),
				reg.(R).HasSyncedChecker().Name()}
		},
		controllerRV: func() string { return inf.GetController().LastSyncResourceVersion() },
	}
}

// informerFilteringOf is a library's FilteringResourceEventHandler, H its
// ResourceEventHandler.
type informerFilteringOf[H any] interface {
	~struct {
		FilterFunc func(obj any) bool
		Handler    H
	}
}

// informerNewPlainClientGo builds client-go's NewInformerWithOptions.
func informerNewPlainClientGo(lw *informerScriptedSource, handler any, opts informerPlainOptions) informerPlain {
	return informerPlainOf[cg.FilteringResourceEventHandler, cg.Indexer](handler, opts, func(h cg.ResourceEventHandler) (cg.Store, cg.Controller) {
		return cg.NewInformerWithOptions(cg.InformerOptions{ListerWatcher: lw, ObjectType: &v1.Pod{}, Handler: h, ResyncPeriod: opts.resync,
			Indexers: storeIndexersOf[cg.Indexers, cg.IndexFunc]{}.indexers(opts.indexers), Transform: opts.transform})
	})
}

// informerNewPlainKCache builds kcache's NewInformerWithOptions.
func informerNewPlainKCache(lw *informerScriptedSource, handler any, opts informerPlainOptions) informerPlain {
	return informerPlainOf[kc.FilteringResourceEventHandler, kc.Indexer](handler, opts, func(h kc.ResourceEventHandler) (kc.Store, kc.Controller) {
		return kc.NewInformerWithOptions(kc.InformerOptions{ListerWatcher: lw, ObjectType: &v1.Pod{}, Handler: h, ResyncPeriod: opts.resync,
			Indexers: storeIndexersOf[kc.Indexers, kc.IndexFunc]{}.indexers(opts.indexers), Transform: opts.transform})
	})
}

// informerPlainOf builds a library's NewInformerWithOptions through build,
// handing it the handler: FR is the library's
// FilteringResourceEventHandler, IX its Indexer (which the store must be),
// H its ResourceEventHandler, S and C build's store and controller.
func informerPlainOf[FR informerFilteringOf[H], IX informerPlainStore, H, S any, C interface {
	informerRunner
	HasSyncedChecker() D
}, D informerNamed](handler any, opts informerPlainOptions, build func(H) (S, C)) informerPlain {
	h := informerHandlerAs[H](handler)
	if opts.filter != nil {
		h = any(FR{FilterFunc: opts.filter, Handler: h}).(H)
	}
	store, ctrl := build(h)
	return informerPlain{store: any(store).(IX), ctrl: ctrl, checkerName: func() string { return ctrl.HasSyncedChecker().Name() }}
}

// informerProcessErrorClientGo runs client-go's controller (New) with a
// Process that always fails.
func informerProcessErrorClientGo(ctx context.Context, lw *informerScriptedSource) []string {
	return informerProcessErrorOf(ctx, func(obj any) any { return obj.(cg.Deltas).Newest().Object }, func(process cg.ProcessFunc) informerRunner {
		queue := cg.NewDeltaFIFOWithOptions(cg.DeltaFIFOOptions{KnownObjects: cg.NewStore(cg.MetaNamespaceKeyFunc)})
		return cg.New(&cg.Config{Queue: queue, ListerWatcher: lw, ObjectType: &v1.Pod{}, Process: process})
	})
}

// informerProcessErrorKCache is informerProcessErrorClientGo on kcache.
func informerProcessErrorKCache(ctx context.Context, lw *informerScriptedSource) []string {
	return informerProcessErrorOf(ctx, func(obj any) any { return obj.(kc.Deltas).Newest().Object }, func(process kc.ProcessFunc) informerRunner {
		queue := kc.NewDeltaFIFOWithOptions(kc.DeltaFIFOOptions{KnownObjects: kc.NewStore(kc.MetaNamespaceKeyFunc)})
		return kc.New(&kc.Config{Queue: queue, ListerWatcher: lw, ObjectType: &v1.Pod{}, Process: process})
	})
}

// informerProcessErrorOf runs the controller newController builds with a
// Process (of the library's ProcessFunc type P) that always fails, and
// returns the objects it was given (newest reads the Deltas'), sorted.
func informerProcessErrorOf[P ~func(obj any, isInInitialList bool) error](ctx context.Context, newest func(any) any, newController func(P) informerRunner) []string {
	var calls []string
	newController(func(obj any, _ bool) error {
		calls = append(calls, informerDescribe(newest(obj)))
		return errors.New("process fails")
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
