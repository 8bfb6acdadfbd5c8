package cache

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/kcache-go/cache/internal/keyset"
	"github.com/kcache-go/cache/internal/records"
)

// Indexer is a Store that also keeps named indices over its objects, so
// objects can be found by an indexed value (a namespace, a node name, a
// label) without scanning everything. It stores the latest object per key.
//
// Three kinds of string meet here: storage keys (as in Store), index names
// (the keys of Indexers), and indexed values (what an IndexFunc returns for
// an object).
type Indexer interface {
	Store

	// ByIndex returns the objects that have indexedValue in the named index.
	ByIndex(indexName, indexedValue string) ([]interface{}, error)
	// IndexKeys returns the storage keys of the objects that have
	// indexedValue in the named index, sorted.
	IndexKeys(indexName, indexedValue string) ([]string, error)
	// Index returns the objects that share at least one value of the named
	// index with obj.
	Index(indexName string, obj interface{}) ([]interface{}, error)
	// ListIndexFuncValues returns every value present in the named index.
	ListIndexFuncValues(indexName string) []string

	// GetIndexers returns the index functions by index name: the Indexers
	// map the store was given, not a copy (nil when it was given nil).
	GetIndexers() Indexers
	// AddIndexers adds newIndexers to that map, registers their indices
	// and fills them from the objects already stored. A name already in
	// use is an error.
	AddIndexers(newIndexers Indexers) error
}

// IndexFunc computes the indexed values of an object for one index: none,
// one or several strings. It must be fast and deterministic; an error from it
// while the store is being written is a panic.
type IndexFunc func(obj interface{}) ([]string, error)

// IndexFuncToKeyFuncAdapter adapts an indexFunc to a keyFunc. This is only
// useful if your index function returns unique values for every object. The
// adapted function fails when the index function gives no value or more than
// one. You should prefer to make proper key and index functions.
func IndexFuncToKeyFuncAdapter(indexFunc IndexFunc) KeyFunc {
	return func(obj interface{}) (string, error) {
		values, err := indexFunc(obj)
		if err != nil {
			return "", err
		}
		switch len(values) {
		case 0:
			return "", fmt.Errorf("unexpected empty indexKeys")
		case 1:
			return values[0], nil
		default:
			return "", fmt.Errorf("too many keys: %v", values)
		}
	}
}

// NamespaceIndex is the conventional name of the index built by
// MetaNamespaceIndexFunc; ListAllByNamespace uses it when present.
const NamespaceIndex string = "namespace"

// MetaNamespaceIndexFunc indexes an object by its namespace (the empty
// string for cluster-scoped objects).
func MetaNamespaceIndexFunc(obj interface{}) ([]string, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return []string{""}, fmt.Errorf("object has no meta: %v", err)
	}
	return []string{m.GetNamespace()}, nil
}

// metaNamespaceIndexFuncPC is MetaNamespaceIndexFunc's code pointer,
// computed once.
var metaNamespaceIndexFuncPC = reflect.ValueOf(MetaNamespaceIndexFunc).Pointer()

// isMetaNamespaceIndexFunc reports whether fn is MetaNamespaceIndexFunc.
func isMetaNamespaceIndexFunc(fn IndexFunc) bool {
	return fn != nil && reflect.ValueOf(fn).Pointer() == metaNamespaceIndexFuncPC
}

// Indexers holds index functions by index name.
type Indexers map[string]IndexFunc

// Indices is the exchange format of index contents: for each index name, for
// each indexed value, the set of storage keys. NewThreadSafeStore accepts one
// as initial content; kcache keeps its indices in its own form (valueIndex).
type Indices map[string]index

// index is one index in the exchange format: indexed value to key set.
type index map[string]sets.Set[string]

// valueIndex is one named index: its IndexFunc and, for every value that
// function produced for a stored object, the record ids of those objects.
//
// Invariant: byValue holds no empty keyset.Set but those given empty in the
// initial Indices (client-go lists such a value until a record joins and
// leaves it, or a Replace), and record id is in byValue[v]
// iff v is among indexFunc of id's object as it was when last written (for
// records loaded from given Indices: or they were given under v). An object
// changed in place after it was written can thus leave its record under
// values it no longer gives, even after a delete (see threadSafeMap.detached),
// exactly where client-go leaves its key. Every membership is counted in
// the records' refs; every key set of byValue is the one numbered
// keyset.Set.Num in sets, whose value there is its key in byValue; sole[id]
// is the number+1 of the one set holding id, 0 when none does, or soleMany
// (see index_sole.go).
type valueIndex struct {
	// name is the index name, for error messages.
	name string
	// indexFunc computes an object's indexed values.
	indexFunc IndexFunc
	// byNamespace is set when indexFunc is MetaNamespaceIndexFunc: the
	// index then reads an object's namespace itself, without calling it
	// (and allocating its result); see namespaceOf.
	byNamespace bool
	// byValue maps each indexed value to the record ids that have it.
	byValue map[string]*keyset.Set
	// recs are the owning map's records: keys for messages and reads,
	// objects for reads, and the membership counts this index keeps.
	recs *records.Table
	// sole holds, by record id, the number+1 of the one key set holding
	// the record, 0 when none does, soleMany when several do or did (see
	// index_sole.go).
	sole soleColumn
	// sets holds the key sets byValue points at, by number.
	sets keyset.Blocks
}

// storeIndices keeps every index of one threadSafeMap exact. It is not safe
// for concurrent use: the threadSafeMap's lock guards it.
type storeIndices struct {
	// indexers is the Indexers map the store was given, kept as given, as
	// client-go keeps it: GetIndexers returns it and AddIndexers adds to
	// it (making one when the store was given nil). The caller may write
	// to it too; see index_registry.go for when such entries take effect.
	indexers Indexers
	// byName maps each registered index name to its index: the entries of
	// indexers as of construction, AddIndexers and the last Replace, and
	// those built since on a read (see index_registry.go). An entry with a
	// nil IndexFunc is registered (a write that indexes panics, as in
	// client-go) but reads as no index.
	byName map[string]*valueIndex
	// ordered lists the same indices as byName, for cheap iteration on the
	// write path.
	ordered []*valueIndex
	// recs are the owning map's records, shared with every index.
	recs *records.Table
	// trusted is set when every stored object has been through every
	// IndexFunc without a panic since the indices were (re)built empty,
	// and no key set is empty (only the initial Indices can give one).
	// change may then skip the IndexFuncs on the old object (see
	// index_update.go).
	trusted bool
	// writing is set while a write that calls IndexFuncs runs; found set
	// when the next one begins, it tells that an IndexFunc panicked out
	// of the last (see beginWrite).
	writing bool
	// warmth is the sum warm computes, kept only so its reads stay.
	warmth int
	// pending holds the content given in the initial Indices for names
	// no IndexFunc is registered under (yet): listed by
	// ListIndexFuncValues, never read nor written otherwise, taken over by
	// an AddIndexers of that name, and dropped by a Replace, as in
	// client-go. Their memberships count in the records' refs. Usually nil.
	pending map[string]*valueIndex
}

// newStoreIndices returns indices for the given indexers, all empty, over
// the records recs. It keeps indexers itself, not a copy.
func newStoreIndices(indexers Indexers, recs *records.Table) storeIndices {
	ix := storeIndices{
		indexers: indexers,
		byName:   make(map[string]*valueIndex, len(indexers)),
		recs:     recs,
		trusted:  true,
	}
	for name, fn := range indexers {
		ix.register(name, fn)
	}
	return ix
}

// register adds an empty index of fn under name, a name no index is
// registered under; it does not write to indexers.
func (ix *storeIndices) register(name string, fn IndexFunc) *valueIndex {
	vi := &valueIndex{name: name, indexFunc: fn, byValue: map[string]*keyset.Set{}, byNamespace: isMetaNamespaceIndexFunc(fn), recs: ix.recs}
	ix.byName[name] = vi
	ix.ordered = append(ix.ordered, vi)
	return vi
}

// clear empties every index, keeping the index functions, and drops the
// pending content; the emptied indices are trusted again.
func (ix *storeIndices) clear() {
	for _, vi := range ix.ordered {
		vi.byValue, vi.sole, vi.sets = map[string]*keyset.Set{}, soleColumn{}, keyset.Blocks{}
	}
	ix.pending = nil
	ix.trusted, ix.writing = true, false
}

// fresh resets id's sole entries in every index, pending content included,
// for a new record given the id of a freed one.
func (ix *storeIndices) fresh(id int32) {
	for _, vi := range ix.ordered {
		if p := vi.sole.at(id); p != nil {
			*p = 0
		}
	}
	for _, vi := range ix.pending {
		if p := vi.sole.at(id); p != nil {
			*p = 0
		}
	}
}

// beginWrite marks the start of a write that may call IndexFuncs. Finding
// the last write unfinished (an IndexFunc panicked out of it) withdraws the
// trust (see storeIndices.trusted).
func (ix *storeIndices) beginWrite() {
	if ix.writing {
		ix.trusted = false
	}
	ix.writing = true
}

// endWrite marks the end of the write beginWrite started.
func (ix *storeIndices) endWrite() { ix.writing = false }

// addIndexers adds newIndexers to indexers (the caller's map; a new one
// when the store was given nil) and registers and fills their indices from
// the stored records. A name indexers already has is an error, and then
// nothing is added.
func (ix *storeIndices) addIndexers(newIndexers Indexers) error {
	var conflicts []string
	for name := range newIndexers {
		if _, taken := ix.indexers[name]; taken {
			conflicts = append(conflicts, name)
		}
	}
	if len(conflicts) > 0 {
		return fmt.Errorf("indexer conflict: %v", sets.New(conflicts...))
	}
	if ix.indexers == nil && len(newIndexers) > 0 {
		// NB: client-go panics here (assignment to entry in nil map); with
		// nothing to add it keeps the map nil, and so does this.
		ix.indexers = make(Indexers, len(newIndexers))
	}
	ix.beginWrite()
	// NB: every name is registered before any is filled, so an IndexFunc
	// that panics while filling leaves them all registered, as in
	// client-go.
	added := make([]*valueIndex, 0, len(newIndexers))
	for name, fn := range newIndexers {
		ix.indexers[name] = fn
		added = append(added, ix.registerFilling(name, fn))
	}
	for _, vi := range added {
		ix.recs.ForEachStored(vi.add)
	}
	// NB: not deferred: a panic must leave the write unfinished.
	ix.endWrite()
	return nil
}

// registerFilling returns the index to fill with fn under name, a name
// indexers lacks: the one still registered under it (the caller deleted
// it from indexers since), which client-go fills on top of what it holds,
// or a new one.
func (ix *storeIndices) registerFilling(name string, fn IndexFunc) *valueIndex {
	if vi := ix.byName[name]; vi != nil {
		vi.indexFunc, vi.byNamespace = fn, isMetaNamespaceIndexFunc(fn)
		return vi
	}
	return ix.registerPending(name, fn)
}

// registerPending registers an index of name, a free name, taking over the
// pending content given for it, if any: client-go fills the index on top of
// what it was given for that name (the memberships keep their refs).
func (ix *storeIndices) registerPending(name string, fn IndexFunc) *valueIndex {
	vi := ix.register(name, fn)
	if p := ix.pending[name]; p != nil {
		vi.byValue, vi.sole, vi.sets = p.byValue, p.sole, p.sets
		delete(ix.pending, name)
	}
	return vi
}

// valuesOf returns the indexed values of obj, the object of record id. A
// nil object has none (the IndexFunc is not called). An error from the
// IndexFunc panics (see storeIndices.add).
func (vi *valueIndex) valuesOf(id int32, obj interface{}) []string {
	if obj == nil {
		return nil
	}
	values, err := vi.indexFunc(obj)
	if err != nil {
		panic(fmt.Errorf("unable to calculate an index entry for key %q on index %q: %v", vi.recs.Key(id).String(), vi.name, err))
	}
	return values
}

// namespaceOf returns obj's namespace, the one value MetaNamespaceIndexFunc
// gives it, when vi is that function's index and obj has metadata; ok is
// false otherwise, and the caller then calls indexFunc (which reports what
// went wrong).
func (vi *valueIndex) namespaceOf(obj interface{}) (namespace string, ok bool) {
	if !vi.byNamespace || obj == nil {
		return "", false
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return "", false
	}
	return m.GetNamespace(), true
}

// add records id under every value of obj.
func (vi *valueIndex) add(id int32, obj interface{}) {
	if namespace, ok := vi.namespaceOf(obj); ok {
		vi.addEntry(namespace, id)
		return
	}
	for _, v := range vi.valuesOf(id, obj) {
		vi.addEntry(v, id)
	}
}

// remove drops id from every value of obj.
func (vi *valueIndex) remove(id int32, obj interface{}) {
	if namespace, ok := vi.namespaceOf(obj); ok {
		vi.removeEntry(namespace, id)
		return
	}
	for _, v := range vi.valuesOf(id, obj) {
		vi.removeEntry(v, id)
	}
}

// scanValuesMax bounds the comparisons change makes by scanning; past it the
// old and new values are compared through sets.
const scanValuesMax = 256

// changeMany is change for index functions that return many values.
func (vi *valueIndex) changeMany(id int32, oldValues, newValues []string) {
	oldSet, newSet := sets.New(oldValues...), sets.New(newValues...)
	for v := range oldSet {
		if !newSet.Has(v) {
			vi.removeEntry(v, id)
		}
	}
	for v := range newSet {
		vi.addEntry(v, id) // NB: even a value oldSet has; see change.
	}
}

// addEntry records that record id has value.
func (vi *valueIndex) addEntry(value string, id int32) {
	ks := vi.byValue[value]
	if ks == nil {
		ks = vi.newSetOf(value)
	}
	if ks.Insert(id) {
		*vi.recs.Refs(id)++
		vi.joined(id, ks)
	}
}

// newSetOf makes an empty, numbered key set the set of value.
func (vi *valueIndex) newSetOf(value string) *keyset.Set {
	ks := vi.sets.Take(value)
	vi.byValue[value] = ks
	return ks
}

// removeEntry records that record id no longer has value, dropping the value once
// no record has it.
func (vi *valueIndex) removeEntry(value string, id int32) {
	ks := vi.setOf(id, value)
	if ks == nil {
		return
	}
	if ks.Remove(id) {
		*vi.recs.Refs(id)--
		vi.left(id, ks)
	}
	if ks.Len() == 0 {
		delete(vi.byValue, value)
		vi.sets.Release(ks)
	}
}

// joined records that ks, a key set of vi, now holds id.
func (vi *valueIndex) joined(id int32, ks *keyset.Set) {
	if p := vi.sole.cell(id); *p == 0 {
		*p = ks.Num() + 1
	} else {
		*p = soleMany
	}
}

// left records that ks, a key set of vi, no longer holds id.
func (vi *valueIndex) left(id int32, ks *keyset.Set) {
	if p := vi.sole.at(id); p != nil && *p == ks.Num()+1 {
		*p = 0
	}
}

// setOf returns value's key set, nil when there is none. When the one set
// holding id is value's, it is found by its number, without a lookup in
// byValue (the common delete, and an update that moves a record).
func (vi *valueIndex) setOf(id int32, value string) *keyset.Set {
	if num := vi.soleSetOf(id, value); num >= 0 {
		return vi.sets.At(num)
	}
	return vi.byValue[value]
}

// soleSetOf returns the number of the one key set of vi that holds id when
// that set is value's, else -1. It reads id's sole entry and that set's
// value, never a key set.
func (vi *valueIndex) soleSetOf(id int32, value string) int32 {
	if s := vi.sole.get(id); s > 0 && *vi.sets.ValueAt(s - 1) == value {
		return s - 1
	}
	return -1
}

// containsString reports whether list contains s. Index functions return a
// handful of values, so a scan beats building a set.
func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// load adds the content of indices, as given to NewThreadSafeStore, to the
// registered indices of the same names, and keeps the content of other
// names as pending. A value given with no keys is kept, empty. Keys are
// resolved through recordFor, which creates records for keys not stored
// yet.
func (ix *storeIndices) load(indices Indices, recordFor func(key string) int32) {
	for name, byValue := range indices {
		vi := ix.byName[name]
		if vi == nil {
			vi = ix.pendingIndex(name)
		}
		for value, keys := range byValue {
			if len(keys) == 0 && vi.byValue[value] == nil {
				vi.newSetOf(value)
				ix.trusted = false
			}
			for key := range keys {
				vi.addEntry(value, recordFor(key))
			}
		}
	}
}

// pendingIndex returns the pending content of name, creating it empty.
func (ix *storeIndices) pendingIndex(name string) *valueIndex {
	if ix.pending == nil {
		ix.pending = map[string]*valueIndex{}
	}
	vi := ix.pending[name]
	if vi == nil {
		vi = &valueIndex{name: name, byValue: map[string]*keyset.Set{}, recs: ix.recs}
		ix.pending[name] = vi
	}
	return vi
}

// objectsLocked returns the objects of the records that have value in this
// index, never nil. The caller holds the owning map's lock.
func (vi *valueIndex) objectsLocked(value string) []interface{} {
	ks := vi.byValue[value]
	if ks == nil {
		return []interface{}{}
	}
	return ks.AppendObjects(make([]interface{}, 0, ks.Len()), vi.recs)
}

// objectsOfAnyLocked returns, once each, the objects of the records that
// have any of values in this index, never nil. The caller holds the owning
// map's lock.
func (vi *valueIndex) objectsOfAnyLocked(values []string) []interface{} {
	seen := map[int32]struct{}{}
	objects := []interface{}{}
	for _, v := range values {
		ks := vi.byValue[v]
		if ks == nil {
			continue
		}
		ks.ForEach(func(id int32) {
			if _, dup := seen[id]; !dup {
				seen[id] = struct{}{}
				objects = append(objects, vi.recs.ObjectOf(id))
			}
		})
	}
	return objects
}
