package clientgo

import (
	"fmt"
	"reflect"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgocache "k8s.io/client-go/tools/cache"

	"github.com/kcache-go/cache/internal/privatefield"
)

// OnKcache returns the kcache counterpart of built, an informer fresh from
// one of client-go's single-informer constructors, behind client-go's
// interface (see InformerView). It covers every constructor of the typed
// informer packages (coreinformers.NewPodInformer, NewFilteredPodInformer,
// NewPodInformerWithOptions and the same of every other resource, those
// generated for custom resources by informer-gen included) and
// cache.NewSharedIndexInformer itself, without one function per type:
//
//	inf := clientgo.OnKcache(coreinformers.NewFilteredPodInformer(client, ns, resync, indexers, tweak))
//
// The kcache informer lists and watches with built's own ListerWatcher, so
// with the namespace, tweakListOptions and WatchList capability client-go's
// constructor gave it, and has built's example object, Indexers (those it
// was built with and any AddIndexers added), default resync, object
// description, transform and watch-error handler. built is never run and
// must not be used after. The InformerName of a WithOptions constructor is
// not carried over (kcache informers publish no client-go informer
// metrics).
//
// Under client-go v0.37, whose typed constructors return their informer
// wrapped in cache.NewTypedSharedIndexInformer, the result is the same
// wrapper around the kcache informer, so it is still a
// cache.TypedSharedIndexInformer[T] (see clientGoTypedWrapper).
//
// A nil built gives nil; a view (built by this package) is returned as is,
// and so is an informer of any other type, which has nothing to take over
// (KcacheInformer tells which it is). It panics when built is client-go's
// informer but its settings cannot be read (a client-go version this
// package does not support), and when built cannot be taken over without
// losing something: it has been started (the kcache informer would be a
// second, empty one beside it) or has event handlers (they would never be
// called again; add them to the result instead).
func OnKcache(built clientgocache.SharedIndexInformer) clientgocache.SharedIndexInformer {
	if built == nil {
		return nil
	}
	if _, isView := KcacheInformer(built); isView {
		return built
	}
	if wrapped, rewrap, ok := clientGoTypedWrapper(built); ok {
		inf := OnKcache(wrapped)
		if inf == wrapped {
			return built // nothing was taken over
		}
		return rewrap(inf)
	}
	if reflect.TypeOf(built) != clientGoInformerType() {
		return built
	}
	mustBeFresh(built)
	example, exampleOK := privatefield.Read[runtime.Object](built, "objectType")
	resync, resyncOK := privatefield.Read[time.Duration](built, "defaultEventHandlerResyncPeriod")
	if !exampleOK || !resyncOK {
		panic(fmt.Sprintf("clientgo: cannot read the settings of client-go's informer %T; this client-go version is not supported", built))
	}
	inf, ok := kcacheTakeover(built, example, resync, nil)
	if !ok {
		panic(fmt.Sprintf("clientgo: cannot read the ListerWatcher of client-go's informer %T; this client-go version is not supported", built))
	}
	return inf
}

// mustBeFresh panics unless built, client-go's informer, is as its
// constructor returned it: never started and without event handlers.
// NB: SetTransform with built's own transform changes nothing and is
// client-go's own, lock-guarded, test of "started".
func mustBeFresh(built clientgocache.SharedIndexInformer) {
	transform, _ := privatefield.Read[clientgocache.TransformFunc](built, "transform")
	if err := built.SetTransform(transform); err != nil {
		panic(fmt.Sprintf("clientgo: OnKcache of a client-go informer that has been started (%v): call OnKcache on the constructor's result, before Run", err))
	}
	n, ok := clientGoHandlerCount(built)
	if !ok {
		panic(fmt.Sprintf("clientgo: cannot read the event handlers of client-go's informer %T; this client-go version is not supported", built))
	}
	if n > 0 {
		panic(fmt.Sprintf("clientgo: OnKcache of a client-go informer with %d event handler(s), which the kcache informer would never call: add them to OnKcache's result", n))
	}
}

// clientGoHandlerCount returns how many event handlers client-go's
// informer built has (its processor's listeners, read under their lock).
func clientGoHandlerCount(built clientgocache.SharedIndexInformer) (int, bool) {
	mu, lockOK := privatefield.RWMutex(built, "processor", "listenersLock")
	listeners, ok := privatefield.Value(built, "processor", "listeners")
	if !lockOK || !ok || listeners.Kind() != reflect.Map {
		return 0, false
	}
	mu.RLock()
	defer mu.RUnlock()
	return listeners.Len(), true
}

// clientGoInformerType is the dynamic type of the informers client-go's
// constructors return, learnt once from an informer built (never run) for
// that purpose.
var clientGoInformerType = sync.OnceValue(func() reflect.Type {
	return reflect.TypeOf(clientgocache.NewSharedIndexInformer(&clientgocache.ListWatch{}, &metav1.PartialObjectMetadata{}, 0, nil))
})
