package clientgo

import (
	"context"
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/informers/internalinterfaces"
	"k8s.io/client-go/kubernetes"
	clientgocache "k8s.io/client-go/tools/cache"

	kcache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/internal/privatefield"
)

// NewSharedInformerFactory is informers.NewSharedInformerFactory on kcache.
func NewSharedInformerFactory(client kubernetes.Interface, defaultResync time.Duration) informers.SharedInformerFactory {
	return NewSharedInformerFactoryWithOptions(client, defaultResync)
}

// NewFilteredSharedInformerFactory is informers.NewFilteredSharedInformerFactory
// on kcache.
func NewFilteredSharedInformerFactory(client kubernetes.Interface, defaultResync time.Duration, namespace string, tweakListOptions internalinterfaces.TweakListOptionsFunc) informers.SharedInformerFactory {
	return NewSharedInformerFactoryWithOptions(client, defaultResync,
		informers.WithNamespace(namespace), informers.WithTweakListOptions(tweakListOptions))
}

// NewSharedInformerFactoryWithOptions is client-go's
// informers.NewSharedInformerFactoryWithOptions, same arguments and options
// (WithNamespace, WithTweakListOptions, WithCustomResyncConfig,
// WithTransform, WithInformerName), but every informer it hands out —
// factory.Core().V1().Pods().Informer(), ForResource(gvr).Informer(),
// InformerFor(obj, newFunc) — is a kcache informer behind client-go's
// interface (see InformerView), and every Lister reads kcache storage.
//
// Each informer lists and watches as client-go's factory's would: the
// typed constructor (newFunc) still builds its ListerWatcher, with the
// namespace, tweak and WatchList capability client-go gives it, and its
// Indexers (including those a caller's own newFunc sets). For the typed
// accessors' informers on a *kubernetes.Clientset, kcache runs a fastlw
// ListerWatcher (package fastlw: decoding off the critical path) that sends
// the very requests of that ListerWatcher's typed client, through the same
// REST client, with the same namespace and tweak; for anything else (a fake
// clientset or another kubernetes.Interface, a newFunc of the caller's own,
// a client that refuses WatchList semantics) and with the option
// WithPlainListWatch, it runs newFunc's ListerWatcher itself. Resync
// periods and the transform come from the options as in client-go. The informer name is kept for InformerName() but
// kcache informers publish no client-go metrics under it.
//
// API groups added to client-go after this package was written are served
// by client-go's own factory (their informers are client-go's), so a newer
// client-go still compiles and runs.
func NewSharedInformerFactoryWithOptions(client kubernetes.Interface, defaultResync time.Duration, options ...informers.SharedInformerOption) informers.SharedInformerFactory {
	settings := informers.NewSharedInformerFactoryWithOptions(client, defaultResync, options...)
	f := &kcacheTypedFactory{SharedInformerFactory: settings, client: client, plainListWatch: wantsPlainListWatch(settings),
		concurrentTransform: hasOptionMarker(settings, &concurrentTransformMarker{})}
	var namespaceOK, tweakOK bool
	f.scopeNamespace, namespaceOK = privatefield.Read[string](settings, "namespace")
	f.scopeTweak, tweakOK = privatefield.Read[internalinterfaces.TweakListOptionsFunc](settings, "tweakListOptions")
	if !namespaceOK || !tweakOK {
		panic("clientgo: cannot read namespace and tweakListOptions of client-go's informer factory; this client-go version is not supported")
	}
	return f
}

// kcacheTypedFactory serves client-go's SharedInformerFactory interface
// with kcache informers. The embedded client-go factory (settings) holds the
// options' settings: resync and transform per type are read from it through
// InformerFor, and it serves API groups this type does not override. It is
// started and shut down with this factory (it runs only such informers and
// inert settings probes). scopeNamespace, scopeTweak and plainListWatch
// (WithPlainListWatch was given) and concurrentTransform are set at
// construction; set guards the
// rest.
type kcacheTypedFactory struct {
	informers.SharedInformerFactory
	client         kubernetes.Interface
	scopeNamespace string
	scopeTweak     internalinterfaces.TweakListOptionsFunc
	plainListWatch bool
	// concurrentTransform is set when WithConcurrentTransform was given.
	concurrentTransform bool
	set                 informerSet[reflect.Type]
}

// InformerFor returns the factory's informer of obj's type, building it the
// first time: newFunc makes client-go's informer (never run), which a
// kcache informer takes over (see takeOverNewFuncsInformer). An informer
// newFunc builds that is already a view is used as is; one that is neither
// a view nor client-go's own type is used as is too (it is then not a
// kcache informer).
func (f *kcacheTypedFactory) InformerFor(obj runtime.Object, newFunc internalinterfaces.NewInformerFunc) clientgocache.SharedIndexInformer {
	return f.set.getOrAdd(reflect.TypeOf(obj), func() clientgocache.SharedIndexInformer {
		resync, transform := f.settingsFor(obj)
		var early *earlyFactoryTransform
		if f.concurrentTransform && transform != nil {
			early = &earlyFactoryTransform{transform: transform}
		}
		lwFor := func(built clientgocache.SharedIndexInformer, plain clientgocache.ListerWatcher) clientgocache.ListerWatcher {
			if fast, ok := f.fastListerWatcher(newFunc, built, plain, early.pass()); ok {
				if early != nil {
					early.handedOut = true
				}
				return fast
			}
			return plain
		}
		inf := takeOverNewFuncsInformer(newFunc(f.client, resync), obj, resync, lwFor)
		if transform != nil && inf != nil {
			// NB: as client-go's factory, on whatever informer newFunc built.
			_ = inf.SetTransform(transform)
		}
		early.watch(inf)
		return inf
	})
}

// takeOverNewFuncsInformer returns the kcache informer that takes over
// built, the informer a newFunc returned: its ListerWatcher, example
// object, Indexers, description, resync and transform (kcacheTakeover), and
// the event handlers and watch-error handler newFunc installed on it
// (carryHandlers), as client-go's factory would have run built with them.
// built itself is returned when there is nothing to take over, or when its
// handlers cannot be read (a client-go version this package does not
// support): client-go's informer then runs as client-go's factory would.
// Under client-go v0.37, whose typed constructors (the generated accessors'
// newFuncs) return their informer in a typed wrapper, the kcache informer
// comes back in a wrapper of the same type (see clientGoTypedWrapper).
// lwFor, when not nil, picks the ListerWatcher the kcache informer runs
// (see kcacheTakeover).
func takeOverNewFuncsInformer(built clientgocache.SharedIndexInformer, obj runtime.Object, resync time.Duration, lwFor listerWatcherChoice) clientgocache.SharedIndexInformer {
	if wrapped, rewrap, isWrapper := clientGoTypedWrapper(built); isWrapper {
		inf := takeOverNewFuncsInformer(wrapped, obj, resync, lwFor)
		if inf == wrapped {
			return built // nothing was taken over
		}
		return rewrap(inf)
	}
	inf, ok := kcacheTakeover(built, obj, resync, lwFor)
	if !ok {
		return built
	}
	view, isFresh := inf.(*informerView)
	if !isFresh || inf == built {
		return inf
	}
	if !carryHandlers(built, view) {
		return built
	}
	return inf
}

// listerWatcherChoice is given client-go's informer being taken over and
// its ListerWatcher (plain) and returns the ListerWatcher the kcache
// informer runs instead: plain, or one that sends the same requests.
type listerWatcherChoice func(built clientgocache.SharedIndexInformer, plain clientgocache.ListerWatcher) clientgocache.ListerWatcher

// settingsFor asks the client-go settings factory which resync period and
// transform it would give an informer of obj's type.
func (f *kcacheTypedFactory) settingsFor(obj runtime.Object) (time.Duration, clientgocache.TransformFunc) {
	p := &settingsProbe{}
	f.SharedInformerFactory.InformerFor(obj, func(_ kubernetes.Interface, resync time.Duration) clientgocache.SharedIndexInformer {
		p.resync = resync
		return p
	})
	return p.resync, p.transform
}

// kcacheTakeover builds the kcache counterpart of built, a client-go informer
// fresh from its constructor, with built's ListerWatcher, example object
// (obj, the type asked for, is the fallback: newFunc may build an informer
// of another type, whose objects client-go's reflector then expects),
// Indexers, object description, default resync (newFunc may have chosen
// another than the factory's resync, which is the fallback) and transform.
// ok is false when built is not client-go's informer type (nothing to take
// over). lwFor, when not nil, is given built and its ListerWatcher and
// returns the one the kcache informer runs.
func kcacheTakeover(built clientgocache.SharedIndexInformer, obj runtime.Object, resync time.Duration, lwFor listerWatcherChoice) (clientgocache.SharedIndexInformer, bool) {
	if _, isView := KcacheInformer(built); isView {
		return built, true
	}
	lw, ok := privatefield.Read[clientgocache.ListerWatcher](built, "listerWatcher")
	if !ok || lw == nil {
		return nil, false
	}
	if example, ok := privatefield.Read[runtime.Object](built, "objectType"); ok && example != nil {
		obj = example
	}
	description, _ := privatefield.Read[string](built, "objectDescription")
	if d, ok := privatefield.Read[time.Duration](built, "defaultEventHandlerResyncPeriod"); ok {
		resync = d
	}
	if lwFor != nil {
		lw = lwFor(built, lw)
	}
	inf := InformerView(kcache.NewSharedIndexInformerWithOptions(lw, obj, kcache.SharedIndexInformerOptions{
		ResyncPeriod:      resync,
		Indexers:          asKcacheIndexers(built.GetIndexer().GetIndexers()),
		ObjectDescription: description,
	}))
	// NB: a transform newFunc set stays unless the factory has its own
	// (InformerFor replaces it then), as on client-go's informer.
	if transform, _ := privatefield.Read[clientgocache.TransformFunc](built, "transform"); transform != nil {
		_ = inf.SetTransform(transform)
	}
	if onWatchError, _ := privatefield.Read[clientgocache.WatchErrorHandlerWithContext](built, "watchErrorHandler"); onWatchError != nil {
		_ = inf.SetWatchErrorHandlerWithContext(onWatchError)
	}
	return inf, true
}

// Start starts every informer requested so far (and the settings factory's
// own); informers requested later start with the next Start.
func (f *kcacheTypedFactory) Start(stopCh <-chan struct{}) {
	f.SharedInformerFactory.Start(stopCh)
	f.set.start(func(inf clientgocache.SharedIndexInformer) { inf.Run(stopCh) })
}

// StartWithContext is Start with a context.
func (f *kcacheTypedFactory) StartWithContext(ctx context.Context) {
	f.SharedInformerFactory.StartWithContext(ctx)
	f.set.start(func(inf clientgocache.SharedIndexInformer) { inf.RunWithContext(ctx) })
}

// Shutdown marks the factory as shutting down and waits until every started
// informer returned; stop them first (close stopCh, cancel ctx).
func (f *kcacheTypedFactory) Shutdown() {
	f.SharedInformerFactory.Shutdown()
	f.set.shutdown()
}

// WaitForCacheSync waits for every started informer to sync or stopCh to
// close, and tells per object type which synced.
func (f *kcacheTypedFactory) WaitForCacheSync(stopCh <-chan struct{}) map[reflect.Type]bool {
	out := f.SharedInformerFactory.WaitForCacheSync(stopCh)
	for typ, synced := range f.set.waitForCacheSync(stopCh) {
		out[typ] = synced
	}
	return out
}

// WaitForCacheSyncWithContext waits without polling for every started
// informer to sync or ctx to be done.
func (f *kcacheTypedFactory) WaitForCacheSyncWithContext(ctx context.Context) clientgocache.SyncResult {
	res := f.SharedInformerFactory.WaitForCacheSyncWithContext(ctx)
	synced, err := f.set.waitForCacheSyncWithContext(ctx)
	if res.Synced == nil {
		res.Synced = map[reflect.Type]bool{}
	}
	for typ, ok := range synced {
		res.Synced[typ] = ok
	}
	if res.Err == nil {
		res.Err = err
	}
	return res
}

// settingsProbe is what the settings factory stores for a type whose
// settings were asked: it records the transform the factory installs and is
// otherwise inert (its Run returns at once; it reports synced).
type settingsProbe struct {
	clientgocache.SharedIndexInformer
	resync    time.Duration
	transform clientgocache.TransformFunc
}

func (p *settingsProbe) SetTransform(t clientgocache.TransformFunc) error {
	p.transform = t
	return nil
}
func (p *settingsProbe) Run(<-chan struct{})                         {}
func (p *settingsProbe) RunWithContext(context.Context)              {}
func (p *settingsProbe) HasSynced() bool                             { return true }
func (p *settingsProbe) HasSyncedChecker() clientgocache.DoneChecker { return syncedChecker{} }

// syncedChecker is a DoneChecker that is done from the start.
type syncedChecker struct{}

// closedChannel is closed at init and never reopened.
var closedChannel = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (syncedChecker) Name() string          { return "settings probe" }
func (syncedChecker) Done() <-chan struct{} { return closedChannel }
