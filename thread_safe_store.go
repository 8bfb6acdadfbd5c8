package cache

import (
	"maps"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	clientfeatures "k8s.io/client-go/features"
)

// ThreadSafeStore is an indexed, concurrency-safe map from storage key to
// object. Unlike Indexer it is given keys explicitly and never computes them.
//
// Objects go in and come out as the same pointers: callers must treat what
// Get, List and the index reads return as read-only. Changing a stored
// object in place races with other readers and leaves the indices describing
// the object as it was.
type ThreadSafeStore interface {
	Get(key string) (item interface{}, exists bool)
	List() []interface{}
	ListKeys() []string
	ByIndex(indexName, indexedValue string) ([]interface{}, error)
	IndexKeys(indexName, indexedValue string) ([]string, error)
	Index(indexName string, obj interface{}) ([]interface{}, error)
	ListIndexFuncValues(name string) []string
	GetIndexers() Indexers
	// AddIndexers registers more indices and fills them from the stored
	// objects.
	AddIndexers(newIndexers Indexers) error

	Add(key string, obj interface{})
	Update(key string, obj interface{})
	// DeleteWithObject removes key and records the resource version of obj,
	// the object as it was deleted.
	DeleteWithObject(key string, obj interface{})
	// Delete removes key without recording any resource version; prefer
	// DeleteWithObject, which keeps LastStoreSyncResourceVersion current.
	Delete(key string)
	Replace(map[string]interface{}, string)
	// Resync does nothing; it is kept for compatibility.
	Resync() error

	LastStoreSyncResourceVersion() string
	Bookmark(rv string)
}

// ThreadSafeStoreOption configures a store made by NewThreadSafeStore.
type ThreadSafeStoreOption = func(*threadSafeMap)

// WithThreadSafeStoreMetrics publishes the store's resource version through
// metricsProvider under identifier. Nothing is published when the provider
// is nil or the identifier is not Reserved.
func WithThreadSafeStoreMetrics(identifier InformerNameAndResource, metricsProvider InformerMetricsProvider) ThreadSafeStoreOption {
	return func(m *threadSafeMap) {
		m.enableMetrics(identifier, metricsProvider)
	}
}

// threadSafeMap is the storage behind every Store and Indexer of this
// package: the stored objects in a dense array, a map from storage key to
// entry (key and position in that array), the indices over those entries,
// and the last resource version the store has seen.
//
// Writers hold lock for writing; readers hold it for reading, so any number
// of readers proceed together and every read sees one consistent snapshot.
//
// Indices refer to entries by pointer: an index read picks objects out of
// the array without hashing a key, an update whose indexed values did not
// change only overwrites one array slot, and List is one copy of the array.
// Entries and key sets come from blocks (store_blocks.go), a fraction of
// an allocation per object; keys are allocated one by one, since callers
// may keep them.
//
// Invariant: after every write, every index is exact (see valueIndex);
// entries[k].key == k; owners[i].slot == i and owners[i] holds objects[i];
// len(objects) == len(owners) == len(entries); an entry of detached is in
// no other field but the indices, with slot -1.
type threadSafeMap struct {
	// lock guards every field below but versionGauge.
	lock sync.RWMutex
	// entries maps each storage key to its entry.
	entries map[string]*storeEntry
	// objects holds the stored objects, densely, in no meaningful order.
	objects []interface{}
	// owners[i] is the entry whose object is objects[i].
	owners []*storeEntry
	// detached holds the entries that some index holds but whose keys are
	// not stored: keys named by the Indices given to NewThreadSafeStore and
	// not stored (yet), and deleted keys that an index still holds because
	// their object was changed in place. Their slot is -1, so index reads
	// give nil for them, as client-go does. A later write of such a key
	// adopts its entry, so the key is never indexed twice and the index
	// resolves to its new object, again as client-go does. Usually nil.
	detached map[string]*storeEntry
	// indices are the indices over entries.
	indices storeIndices
	// spare holds entries allocated ahead, in one block, for the next new
	// keys (see newEntryLocked).
	spare []storeEntry
	// resourceVersion is the last resource version the store has seen, from
	// an object written, a Replace or a Bookmark.
	resourceVersion string
	// versionGauge publishes resourceVersion; nil when metrics are off. Set
	// only while the store is being built.
	versionGauge GaugeMetric
}

// NewThreadSafeStore creates a new instance of ThreadSafeStore with the given
// indexers. indices, when not empty, is taken as the initial content of those
// indices.
func NewThreadSafeStore(indexers Indexers, indices Indices, opts ...ThreadSafeStoreOption) ThreadSafeStore {
	m := newThreadSafeMap(indexers, indices)
	for _, opt := range opts {
		opt(m)
	}
	return m
}

// newThreadSafeMap returns an empty map with the given indices.
func newThreadSafeMap(indexers Indexers, indices Indices) *threadSafeMap {
	m := &threadSafeMap{
		entries: map[string]*storeEntry{},
		indices: newStoreIndices(indexers),
	}
	m.indices.load(indices, m.preloadedEntry)
	return m
}

// preloadedEntry returns the entry of key for given index content, creating
// an object-less one the first time.
func (m *threadSafeMap) preloadedEntry(key string) *storeEntry {
	e := m.detached[key]
	if e == nil {
		e = &storeEntry{key: key, slot: -1}
		m.detachLocked(e)
	}
	return e
}

// detachLocked records e, whose key is not stored, as detached.
func (m *threadSafeMap) detachLocked(e *storeEntry) {
	if m.detached == nil {
		m.detached = map[string]*storeEntry{}
	}
	m.detached[e.key] = e
}

// enableMetrics makes the store publish its resource version. It may only be
// called while the store is being built.
func (m *threadSafeMap) enableMetrics(identifier InformerNameAndResource, provider InformerMetricsProvider) {
	if provider == nil || !identifier.Reserved() {
		return
	}
	m.versionGauge = provider.NewStoreResourceVersionMetric(identifier)
}

// Add stores obj under key, replacing what was there, and records obj's
// resource version.
func (m *threadSafeMap) Add(key string, obj interface{}) {
	m.Update(key, obj)
}

// Update stores obj under key, replacing what was there, and records obj's
// resource version.
func (m *threadSafeMap) Update(key string, obj interface{}) {
	rv, hasRV := resourceVersionOf(obj)
	m.lock.Lock()
	defer m.lock.Unlock()
	m.putLocked(key, obj)
	if hasRV {
		m.setResourceVersionLocked(rv)
	}
}

// Delete removes key. It does not change the recorded resource version.
func (m *threadSafeMap) Delete(key string) {
	m.DeleteWithObject(key, nil)
}

// DeleteWithObject removes key and records the resource version of obj, the
// object as it was deleted (nil records nothing).
func (m *threadSafeMap) DeleteWithObject(key string, obj interface{}) {
	rv, hasRV := resourceVersionOf(obj)
	m.lock.Lock()
	defer m.lock.Unlock()
	m.deleteLocked(key)
	if hasRV {
		m.setResourceVersionLocked(rv)
	}
}

// Transaction applies txns in order under one acquisition of the lock. A
// transaction of an unknown type changes no object. The recorded resource
// version is that of the last transaction's object, if it has metadata; the
// intermediate ones are never recorded nor published.
func (m *threadSafeMap) Transaction(txns ...ThreadSafeStoreTransaction) {
	if len(txns) == 0 {
		return
	}
	rv, hasRV := resourceVersionOf(txns[len(txns)-1].Object)
	m.lock.Lock()
	defer m.lock.Unlock()
	for _, txn := range txns {
		switch txn.Type {
		case TransactionTypeAdd, TransactionTypeUpdate:
			m.putLocked(txn.Key, txn.Object)
		case TransactionTypeDelete:
			m.deleteLocked(txn.Key)
		}
	}
	if hasRV {
		m.setResourceVersionLocked(rv)
	}
}

// putLocked stores obj under key and keeps the indices exact. The object is
// stored before the indices are updated, so an IndexFunc that panics leaves
// it stored (and the indices partly updated), as in client-go.
func (m *threadSafeMap) putLocked(key string, obj interface{}) {
	if e := m.entries[key]; e != nil {
		m.replaceObjectLocked(e, obj)
		return
	}
	e := m.adoptDetachedLocked(key)
	if e == nil {
		e = m.newEntryLocked(key)
	}
	e.slot = int32(len(m.objects))
	m.objects = append(m.objects, obj)
	m.owners = append(m.owners, e)
	m.entries[key] = e
	m.indices.add(e, obj)
}

// replaceObjectLocked makes obj the object of e, a stored entry, and moves
// e in the indices from the values of its old object to those of obj.
func (m *threadSafeMap) replaceObjectLocked(e *storeEntry, obj interface{}) {
	old := m.objects[e.slot]
	m.objects[e.slot] = obj
	m.indices.change(e, old, obj)
}

// adoptDetachedLocked takes key's detached entry, if any, out of detached.
func (m *threadSafeMap) adoptDetachedLocked(key string) *storeEntry {
	e := m.detached[key]
	if e != nil {
		delete(m.detached, key)
	}
	return e
}

// deleteLocked removes key, if present, from the entries and the indices.
// The last object of the array moves into the freed slot, and the deleted
// entry's slot becomes -1. An entry that an index still holds (its object
// was changed in place, so it no longer gives the values it was indexed
// under) is kept as detached.
func (m *threadSafeMap) deleteLocked(key string) {
	if e := m.entries[key]; e != nil {
		m.deleteEntryLocked(e)
	}
}

// deleteEntryLocked is deleteLocked of e, a stored entry.
func (m *threadSafeMap) deleteEntryLocked(e *storeEntry) {
	m.indices.remove(e, m.objects[e.slot])
	delete(m.entries, e.key)
	last := int32(len(m.objects) - 1)
	if e.slot != last {
		m.objects[e.slot], m.owners[e.slot] = m.objects[last], m.owners[last]
		m.owners[e.slot].slot = e.slot
	}
	m.objects[last], m.owners[last] = nil, nil
	m.objects, m.owners = m.objects[:last], m.owners[:last]
	e.slot = -1
	if e.refs > 0 {
		m.detachLocked(e)
	} else {
		// NB: e stays in its block (store_blocks.go) as long as any
		// other entry of the block is in use; dropping its key lets the
		// key's memory go now, as it would with e on its own.
		e.key = ""
	}
	// NB: the arrays keep their capacity, as a Go map keeps its buckets:
	// a cache that shrank usually grows back, and the next Replace
	// allocates them afresh at the listed size.
}

// Get returns the object stored under key.
func (m *threadSafeMap) Get(key string) (item interface{}, exists bool) {
	m.lock.RLock()
	defer m.lock.RUnlock()
	if e := m.entries[key]; e != nil {
		return m.objects[e.slot], true
	}
	return nil, false
}

// List returns every stored object, in no particular order.
func (m *threadSafeMap) List() []interface{} {
	m.lock.RLock()
	defer m.lock.RUnlock()
	return append(make([]interface{}, 0, len(m.objects)), m.objects...)
}

// ListKeys returns every storage key, in no particular order.
func (m *threadSafeMap) ListKeys() []string {
	m.lock.RLock()
	defer m.lock.RUnlock()
	return mapKeys(m.entries)
}

// Replace makes items the whole content of the store, rebuilds every index
// and records resourceVersion.
func (m *threadSafeMap) Replace(items map[string]interface{}, resourceVersion string) {
	keys := make([]string, 0, len(items))
	objects := make([]interface{}, 0, len(items))
	for key, obj := range items {
		keys = append(keys, key)
		objects = append(objects, obj)
	}
	m.replaceKeyed(keys, objects, resourceVersion)
}

// replaceKeyed is Replace for objects[i] stored under keys[i]; a repeated
// key keeps its last object. The entries are allocated in one block, so a
// relist costs one allocation for them rather than one per object.
func (m *threadSafeMap) replaceKeyed(keys []string, objects []interface{}, resourceVersion string) {
	block := make([]storeEntry, len(keys))
	entries := make(map[string]*storeEntry, len(keys))
	stored := make([]interface{}, 0, len(keys))
	owners := make([]*storeEntry, 0, len(keys))
	for i, key := range keys {
		if e := entries[key]; e != nil {
			stored[e.slot] = objects[i]
			continue
		}
		e := &block[i]
		e.key, e.slot = key, int32(len(stored))
		entries[key] = e
		stored = append(stored, objects[i])
		owners = append(owners, e)
	}
	m.lock.Lock()
	defer m.lock.Unlock()
	m.entries, m.objects, m.owners, m.detached = entries, stored, owners, nil
	m.spare = nil
	// NB: recorded before the indices are rebuilt, as in client-go: an
	// IndexFunc that panics leaves the new content and version.
	m.setResourceVersionLocked(resourceVersion)
	m.indices.clear()
	for i, e := range owners {
		m.indices.add(e, stored[i])
	}
}

// Index returns the stored objects that share at least one value of the
// named index with obj.
func (m *threadSafeMap) Index(indexName string, obj interface{}) ([]interface{}, error) {
	m.lock.RLock()
	defer m.lock.RUnlock()
	vi, err := m.indices.get(indexName)
	if err != nil {
		return nil, err
	}
	values, err := vi.indexFunc(obj)
	if err != nil {
		return nil, err
	}
	if len(values) == 1 {
		return vi.objectsLocked(values[0], m.objects), nil
	}
	return vi.objectsOfAnyLocked(values, m.objects), nil
}

// IndexKeys returns the keys of the stored objects that have indexedValue in
// the named index.
func (m *threadSafeMap) IndexKeys(indexName, indexedValue string) ([]string, error) {
	m.lock.RLock()
	defer m.lock.RUnlock()
	vi, err := m.indices.get(indexName)
	if err != nil {
		return nil, err
	}
	ks := vi.byValue[indexedValue]
	if ks == nil {
		return []string{}, nil
	}
	return ks.appendKeys(make([]string, 0, ks.len())), nil
}

// ByIndex returns the stored objects that have indexedValue in the named
// index.
func (m *threadSafeMap) ByIndex(indexName, indexedValue string) ([]interface{}, error) {
	m.lock.RLock()
	defer m.lock.RUnlock()
	vi, err := m.indices.get(indexName)
	if err != nil {
		return nil, err
	}
	return vi.objectsLocked(indexedValue, m.objects), nil
}

// ListIndexFuncValues returns every value the named index holds keys for; an
// unknown index has none.
func (m *threadSafeMap) ListIndexFuncValues(indexName string) []string {
	m.lock.RLock()
	defer m.lock.RUnlock()
	vi := m.indices.byName[indexName]
	if vi == nil {
		return []string{}
	}
	return mapKeys(vi.byValue)
}

// GetIndexers returns a copy of the registered index functions by name, so
// that a caller changing it cannot corrupt the indices.
func (m *threadSafeMap) GetIndexers() Indexers {
	m.lock.RLock()
	defer m.lock.RUnlock()
	return maps.Clone(m.indices.indexers)
}

// AddIndexers registers newIndexers and indexes every stored object with
// them. A name already registered is an error and then nothing is added.
func (m *threadSafeMap) AddIndexers(newIndexers Indexers) error {
	m.lock.Lock()
	defer m.lock.Unlock()
	return m.indices.addIndexers(newIndexers, m.owners, m.objects)
}

// Resync is a no-op and is deprecated
func (m *threadSafeMap) Resync() error {
	return nil
}

// Bookmark records rv as the last resource version seen.
func (m *threadSafeMap) Bookmark(rv string) {
	m.lock.Lock()
	defer m.lock.Unlock()
	m.setResourceVersionLocked(rv)
}

// LastStoreSyncResourceVersion returns the last resource version recorded by
// a write, a Replace or a Bookmark. While the AtomicFIFO feature gate is off
// it returns "" (the version is still recorded, and shows again once the
// gate is on), as client-go does: only the atomic queue keeps it meaningful.
func (m *threadSafeMap) LastStoreSyncResourceVersion() string {
	if !clientfeatures.FeatureGates().Enabled(clientfeatures.AtomicFIFO) {
		return ""
	}
	m.lock.RLock()
	defer m.lock.RUnlock()
	return m.resourceVersion
}

// resourceVersionOf returns the resource version of obj, if it has object
// metadata (nil has none). Writers read it before changing anything, as
// client-go does, so an object whose metadata cannot be read (a nil
// pointer: the accessor panics) panics before the store changes.
func resourceVersionOf(obj interface{}) (string, bool) {
	if obj == nil {
		return "", false
	}
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return "", false
	}
	return accessor.GetResourceVersion(), true
}

// setResourceVersionLocked records rv and publishes it.
func (m *threadSafeMap) setResourceVersionLocked(rv string) {
	m.resourceVersion = rv
	if m.versionGauge == nil {
		return
	}
	if v, ok := resourceVersionGaugeValue(rv); ok {
		m.versionGauge.Set(v)
	}
}

// mapKeys returns the keys of m, never nil.
func mapKeys[K comparable, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// count returns how many objects are stored, without listing their keys
// (the debug page asks for it on every refresh). It takes the read lock.
func (t *threadSafeMap) count() int {
	t.lock.RLock()
	defer t.lock.RUnlock()
	return len(t.entries)
}
