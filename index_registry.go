package cache

import (
	"errors"
	"fmt"
)

// The registry of indices and the caller's Indexers map.
//
// A store keeps the Indexers map it was given, as client-go does:
// GetIndexers returns that map and AddIndexers adds to it, so both show
// through the caller's map and through any GetIndexers result. The indices
// the store maintains (storeIndices.byName) are registered from that map at
// construction, by AddIndexers, and again at every Replace, which rebuilds
// every index from the map's entries as client-go's Replace does. An entry
// the caller writes into the map directly is not read on every write (that
// would cost a map walk per write): an entry added under a new name is
// built, from every stored object, by the first read of that index
// (ByIndex, IndexKeys, Index, ListIndexFuncValues) or at the next Replace,
// whichever comes first (an IndexFunc error panics out of that read and
// leaves the entry unbuilt, so no read answers from part of the objects); an entry deleted or replaced directly keeps its
// index, as registered, until the next Replace. client-go instead reads the
// map on every write, so its index of a name added directly holds only the
// objects written since; see README, Deliberate differences.

// errIndexNotBuilt is get's answer for a name the caller added to the
// Indexers map directly and no index is registered under yet; the read
// builds it (see threadSafeMap.rlockIndex) and never returns this error.
var errIndexNotBuilt = errors.New("index not built yet")

// get returns the registered index called name for a read. A name that is
// not registered, or registered with a nil IndexFunc, does not exist, as in
// client-go; errIndexNotBuilt says that the caller's map has a function
// under name that is not registered yet.
func (ix *storeIndices) get(name string) (*valueIndex, error) {
	vi := ix.byName[name]
	if vi != nil && vi.indexFunc != nil {
		return vi, nil
	}
	if vi == nil && ix.indexers[name] != nil {
		return nil, errIndexNotBuilt
	}
	return nil, fmt.Errorf("Index with name %s does not exist", name)
}

// listed returns the index whose values ListIndexFuncValues lists under
// name: a registered one (even with a nil IndexFunc), or pending content;
// nil when there is neither.
func (ix *storeIndices) listed(name string) *valueIndex {
	if vi := ix.byName[name]; vi != nil {
		return vi
	}
	return ix.pending[name]
}

// unbuilt reports whether the caller's map has a function under name that
// no index is registered under.
func (ix *storeIndices) unbuilt(name string) bool {
	return ix.byName[name] == nil && ix.indexers[name] != nil
}

// buildAdded registers, and fills from the stored records, the index of
// the function the caller's map has under name, when it is still unbuilt.
// An IndexFunc error panics, as in AddIndexers, but leaves name unbuilt:
// the next read builds it again.
func (ix *storeIndices) buildAdded(name string) {
	if !ix.unbuilt(name) {
		return
	}
	fn := ix.indexers[name]
	// NB: every stored object goes through fn before the index is
	// registered, so that a failure leaves no index built from only the
	// objects met before the failing one, which later reads would answer
	// from.
	check := &valueIndex{name: name, indexFunc: fn, byNamespace: isMetaNamespaceIndexFunc(fn), recs: ix.recs}
	ix.recs.ForEachStored(check.checkValues)
	ix.beginWrite()
	vi := ix.registerPending(name, fn)
	ix.recs.ForEachStored(vi.add)
	// NB: not deferred: a panic must leave the write unfinished.
	ix.endWrite()
}

// checkValues computes the values vi.add would record for obj, the object
// of record id, and drops them: it panics where add would, and writes
// nothing.
func (vi *valueIndex) checkValues(id int32, obj interface{}) {
	if _, ok := vi.namespaceOf(obj); !ok {
		vi.valuesOf(id, obj)
	}
}

// adoptIndexers makes the registered indices exactly the entries of the
// caller's map, for a Replace that then rebuilds them all: an index whose
// name the map no longer has is dropped, one whose function the caller
// replaced takes the new function, and one of a name the map gained is
// registered. Registered indices keep their order.
func (ix *storeIndices) adoptIndexers() {
	kept := ix.ordered[:0]
	for _, vi := range ix.ordered {
		fn, ok := ix.indexers[vi.name]
		if !ok {
			delete(ix.byName, vi.name)
			continue
		}
		vi.indexFunc, vi.byNamespace = fn, isMetaNamespaceIndexFunc(fn)
		kept = append(kept, vi)
	}
	clear(ix.ordered[len(kept):])
	ix.ordered = kept
	for name, fn := range ix.indexers {
		if ix.byName[name] == nil {
			ix.register(name, fn)
		}
	}
}
