package cache

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/sets"
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
	// indexedValue in the named index.
	IndexKeys(indexName, indexedValue string) ([]string, error)
	// Index returns the objects that share at least one value of the named
	// index with obj.
	Index(indexName string, obj interface{}) ([]interface{}, error)
	// ListIndexFuncValues returns every value present in the named index.
	ListIndexFuncValues(indexName string) []string

	// GetIndexers returns the index functions by index name.
	GetIndexers() Indexers
	// AddIndexers registers more indices and fills them from the objects
	// already stored. A name already in use is an error.
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

// Indexers holds index functions by index name.
type Indexers map[string]IndexFunc

// Indices is the exchange format of index contents: for each index name, for
// each indexed value, the set of storage keys. NewThreadSafeStore accepts one
// as initial content; kcache keeps its indices in its own form (valueIndex).
type Indices map[string]index

// index is one index in the exchange format: indexed value to key set.
type index map[string]sets.Set[string]

// valueIndex is one named index: its IndexFunc and, for every value that
// function produced for a stored object, the keys of those objects.
//
// Invariant: byValue holds no empty keySet, and key k is in byValue[v] iff
// v is among indexFunc(items[k]).
type valueIndex struct {
	// name is the index name, for error messages.
	name string
	// indexFunc computes an object's indexed values.
	indexFunc IndexFunc
	// byValue maps each indexed value to the keys that have it.
	byValue map[string]*keySet
}

// storeIndices keeps every index of one threadSafeMap exact. It is not safe
// for concurrent use: the threadSafeMap's lock guards it.
type storeIndices struct {
	// indexers is every registered IndexFunc by name.
	indexers Indexers
	// byName maps each index name to its index.
	byName map[string]*valueIndex
	// ordered lists the same indices as byName, for cheap iteration on the
	// write path.
	ordered []*valueIndex
}

// newStoreIndices returns indices for the given indexers, all empty.
func newStoreIndices(indexers Indexers) storeIndices {
	ix := storeIndices{
		indexers: make(Indexers, len(indexers)),
		byName:   make(map[string]*valueIndex, len(indexers)),
	}
	for name, fn := range indexers {
		ix.register(name, fn)
	}
	return ix
}

// register adds an empty index; the caller has checked the name is free.
func (ix *storeIndices) register(name string, fn IndexFunc) *valueIndex {
	vi := &valueIndex{name: name, indexFunc: fn, byValue: map[string]*keySet{}}
	ix.indexers[name] = fn
	ix.byName[name] = vi
	ix.ordered = append(ix.ordered, vi)
	return vi
}

// clear empties every index, keeping the index functions.
func (ix *storeIndices) clear() {
	for _, vi := range ix.ordered {
		vi.byValue = map[string]*keySet{}
	}
}

// update moves key from the values oldObj has to the values newObj has, in
// every index. oldObj is nil for an object being added, newObj nil for one
// being deleted. An IndexFunc error panics, as there is no way to report it
// and the indices must never be silently wrong.
func (ix *storeIndices) update(key string, oldObj, newObj interface{}) {
	for _, vi := range ix.ordered {
		vi.update(key, oldObj, newObj)
	}
}

// get returns the index called name, or an error naming it.
func (ix *storeIndices) get(name string) (*valueIndex, error) {
	vi := ix.byName[name]
	if vi == nil {
		return nil, fmt.Errorf("Index with name %s does not exist", name)
	}
	return vi, nil
}

// addIndexers registers new indices and fills them from items. A name that
// is already registered is an error, and then nothing is added.
func (ix *storeIndices) addIndexers(newIndexers Indexers, items map[string]interface{}) error {
	var conflicts []string
	for name := range newIndexers {
		if _, taken := ix.indexers[name]; taken {
			conflicts = append(conflicts, name)
		}
	}
	if len(conflicts) > 0 {
		return fmt.Errorf("indexer conflict: %v", sets.New(conflicts...))
	}
	for name, fn := range newIndexers {
		vi := ix.register(name, fn)
		for key, obj := range items {
			vi.update(key, nil, obj)
		}
	}
	return nil
}

// valuesOf returns the indexed values of obj; nil obj has none. An error
// from the IndexFunc panics (see storeIndices.update).
func (vi *valueIndex) valuesOf(key string, obj interface{}) []string {
	if obj == nil {
		return nil
	}
	values, err := vi.indexFunc(obj)
	if err != nil {
		panic(fmt.Errorf("unable to calculate an index entry for key %q on index %q: %v", key, vi.name, err))
	}
	return values
}

// update moves key from the values of oldObj to the values of newObj.
func (vi *valueIndex) update(key string, oldObj, newObj interface{}) {
	oldValues := vi.valuesOf(key, oldObj)
	newValues := vi.valuesOf(key, newObj)
	if len(oldValues) == 1 && len(newValues) == 1 && oldValues[0] == newValues[0] {
		return // NB: the common update: the indexed value did not change.
	}
	if len(oldValues)*len(newValues) > scanValuesMax {
		vi.updateMany(key, oldValues, newValues)
		return
	}
	for _, v := range oldValues {
		if !containsString(newValues, v) {
			vi.removeKey(v, key)
		}
	}
	for _, v := range newValues {
		if !containsString(oldValues, v) {
			vi.addKey(v, key)
		}
	}
}

// scanValuesMax bounds the comparisons update makes by scanning; past it the
// old and new values are compared through sets.
const scanValuesMax = 256

// updateMany is update for index functions that return many values.
func (vi *valueIndex) updateMany(key string, oldValues, newValues []string) {
	oldSet, newSet := sets.New(oldValues...), sets.New(newValues...)
	for v := range oldSet {
		if !newSet.Has(v) {
			vi.removeKey(v, key)
		}
	}
	for v := range newSet {
		if !oldSet.Has(v) {
			vi.addKey(v, key)
		}
	}
}

// addKey records that key has value.
func (vi *valueIndex) addKey(value, key string) {
	ks := vi.byValue[value]
	if ks == nil {
		ks = &keySet{}
		vi.byValue[value] = ks
	}
	ks.insert(key)
}

// removeKey records that key no longer has value, dropping the value once no
// key has it.
func (vi *valueIndex) removeKey(value, key string) {
	ks := vi.byValue[value]
	if ks == nil {
		return
	}
	ks.remove(key)
	if ks.len() == 0 {
		delete(vi.byValue, value)
	}
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
// registered indices of the same names.
func (ix *storeIndices) load(indices Indices) {
	for name, byValue := range indices {
		vi := ix.byName[name]
		if vi == nil {
			continue
		}
		for value, keys := range byValue {
			for key := range keys {
				vi.addKey(value, key)
			}
		}
	}
}

// objectsLocked returns the objects whose keys have value in this index,
// never nil. The caller holds the owning map's lock.
func (vi *valueIndex) objectsLocked(value string, items map[string]interface{}) []interface{} {
	ks := vi.byValue[value]
	if ks == nil {
		return []interface{}{}
	}
	return ks.appendObjects(make([]interface{}, 0, ks.len()), items)
}

// objectsOfAnyLocked returns, once each, the objects whose keys have any of
// values in this index, never nil. The caller holds the owning map's lock.
func (vi *valueIndex) objectsOfAnyLocked(values []string, items map[string]interface{}) []interface{} {
	keys := sets.New[string]()
	for _, v := range values {
		if ks := vi.byValue[v]; ks != nil {
			keys.Insert(ks.appendTo(nil)...)
		}
	}
	objects := make([]interface{}, 0, len(keys))
	for key := range keys {
		objects = append(objects, items[key])
	}
	return objects
}
