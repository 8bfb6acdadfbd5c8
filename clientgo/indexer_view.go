package clientgo

import (
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
// idx; only the Indexers maps are converted (copied) between the two named
// types. A nil idx gives nil.
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
// already match and converts the two that carry Indexers. Immutable.
type indexerView struct {
	kcache.Indexer
}

// GetIndexers returns a copy of the index functions under client-go's type.
func (v indexerView) GetIndexers() clientgocache.Indexers {
	return toClientGoIndexers(v.Indexer.GetIndexers())
}

// AddIndexers adds the index functions through kcache's AddIndexers.
func (v indexerView) AddIndexers(newIndexers clientgocache.Indexers) error {
	return v.Indexer.AddIndexers(toKcacheIndexers(newIndexers))
}

// toKcacheIndexers converts client-go Indexers (nil stays nil).
func toKcacheIndexers(in clientgocache.Indexers) kcache.Indexers {
	if in == nil {
		return nil
	}
	out := make(kcache.Indexers, len(in))
	for name, fn := range in {
		out[name] = kcache.IndexFunc(fn)
	}
	return out
}

// toClientGoIndexers converts kcache Indexers (nil stays nil).
func toClientGoIndexers(in kcache.Indexers) clientgocache.Indexers {
	if in == nil {
		return nil
	}
	out := make(clientgocache.Indexers, len(in))
	for name, fn := range in {
		out[name] = clientgocache.IndexFunc(fn)
	}
	return out
}
