package clientgo

import (
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clientgocache "k8s.io/client-go/tools/cache"

	kcache "github.com/kcache-go/cache"
)

// NewSharedIndexInformer builds a kcache SharedIndexInformer and returns its
// client-go view. Its signature is controller-runtime's
// cache.Options.NewInformer, so
//
//	cache.Options{NewInformer: clientgo.NewSharedIndexInformer}
//
// runs a controller-runtime manager's cache on kcache.
//
// lw is used as is: client-go's and kcache's ListerWatcher (and
// ListerWatcherWithContext) have the same method sets, and the WatchList
// capability marker that cache.ToListWatcherWithWatchListSemantics attaches
// (IsWatchListSemanticsUnSupported, from k8s.io/client-go/util/watchlist) is
// an interface method the kcache Reflector asks about exactly as client-go's
// does. So the Reflector streams (WatchList) or lists under the same
// conditions as client-go's would.
func NewSharedIndexInformer(lw clientgocache.ListerWatcher, exampleObject runtime.Object, defaultEventHandlerResyncPeriod time.Duration, indexers clientgocache.Indexers) clientgocache.SharedIndexInformer {
	return InformerView(kcache.NewSharedIndexInformer(lw, exampleObject, defaultEventHandlerResyncPeriod, asKcacheIndexers(indexers)))
}

// NewSharedIndexInformerWithOptions is client-go's
// cache.NewSharedIndexInformerWithOptions on kcache: ResyncPeriod, Indexers
// and ObjectDescription carry over; client-go's metrics Identifier and
// InformerMetricsProvider have no kcache counterpart here and are ignored.
func NewSharedIndexInformerWithOptions(lw clientgocache.ListerWatcher, exampleObject runtime.Object, options clientgocache.SharedIndexInformerOptions) clientgocache.SharedIndexInformer {
	return InformerView(kcache.NewSharedIndexInformerWithOptions(lw, exampleObject, kcache.SharedIndexInformerOptions{
		ResyncPeriod:      options.ResyncPeriod,
		Indexers:          asKcacheIndexers(options.Indexers),
		ObjectDescription: options.ObjectDescription,
	}))
}

// NewSharedInformer is client-go's cache.NewSharedInformer on kcache: a
// SharedIndexInformer with no indexers (GetIndexers is an empty map, as
// client-go's), behind client-go's SharedInformer interface.
func NewSharedInformer(lw clientgocache.ListerWatcher, exampleObject runtime.Object, defaultEventHandlerResyncPeriod time.Duration) clientgocache.SharedInformer {
	return NewSharedIndexInformer(lw, exampleObject, defaultEventHandlerResyncPeriod, clientgocache.Indexers{})
}
