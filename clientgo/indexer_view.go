package clientgo

import (
	"unsafe"

	clientgocache "k8s.io/client-go/tools/cache"

	kcache "github.com/kcache-go/cache"
)

// StoreView returns s as a client-go cache.Store. kcache's Store has the
// very method set of client-go's, so this is s itself; the function exists
// so the intent reads at the call site.
func StoreView(s kcache.Store) clientgocache.Store { return s }

// IndexerView returns a kcache Indexer as a client-go cache.Indexer, so
// generated listers (corelisters.NewPodLister), cache.NewGenericLister and
// cache.ListAllByNamespace read kcache storage. Every method forwards to
// idx; the Indexers maps are passed as the very same maps under the other
// library's type (see asClientGoIndexers), so GetIndexers is the map the
// store keeps, as in client-go. A nil idx gives nil.
func IndexerView(idx kcache.Indexer) clientgocache.Indexer {
	if idx == nil {
		return nil
	}
	return indexerView{idx}
}

// KcacheIndexer returns the kcache Indexer behind a view made by IndexerView
// (or by a view informer's GetIndexer); ok is false for any other indexer.
func KcacheIndexer(idx clientgocache.Indexer) (kcache.Indexer, bool) {
	v, ok := idx.(indexerView)
	if !ok {
		return nil, false
	}
	return v.Indexer, true
}

// indexerView embeds the kcache Indexer for the methods whose signatures
// already match and passes the Indexers maps of the two that carry them.
// Immutable.
type indexerView struct {
	kcache.Indexer
}

// GetIndexers returns the store's Indexers map itself (read under the
// store's lock by kcache's GetIndexers), typed as client-go's: entries the
// store adds later show in it, and entries written into it reach the store,
// as with client-go's GetIndexers.
func (v indexerView) GetIndexers() clientgocache.Indexers {
	return asClientGoIndexers(v.Indexer.GetIndexers())
}

// AddIndexers hands newIndexers, the same map, to kcache's AddIndexers.
func (v indexerView) AddIndexers(newIndexers clientgocache.Indexers) error {
	return v.Indexer.AddIndexers(asKcacheIndexers(newIndexers))
}

// The two libraries' IndexFunc types have the same underlying type, so
// their Indexers maps (string keys, IndexFunc values) have one layout.
// This conversion compiles only while that holds.
var _ = clientgocache.IndexFunc(kcache.IndexFunc(nil))

// asKcacheIndexers returns in, the same map (nil stays nil), typed as
// kcache's Indexers.
//
// NB: the map is reinterpreted, not copied: client-go's stores keep the
// caller's Indexers map (AddIndexers adds to it, GetIndexers returns it,
// a caller's later writes reach it), and kcache's root store does the
// same, so only the very map keeps that observable through the views. A
// map's representation does not depend on the named type of its values,
// only on their layout, which is one (see the conversion above).
func asKcacheIndexers(in clientgocache.Indexers) kcache.Indexers {
	return *(*kcache.Indexers)(unsafe.Pointer(&in))
}

// asClientGoIndexers is asKcacheIndexers the other way.
func asClientGoIndexers(in kcache.Indexers) clientgocache.Indexers {
	return *(*clientgocache.Indexers)(unsafe.Pointer(&in))
}
