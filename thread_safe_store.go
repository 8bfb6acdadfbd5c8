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
// package: a map from storage key to object, the indices over those objects,
// and the last resource version the store has seen.
//
// Writers hold lock for writing; readers hold it for reading, so any number
// of readers proceed together and every read sees one consistent snapshot.
//
// Invariant: after every write, every index is exact for items (see
// valueIndex).
type threadSafeMap struct {
	// lock guards items, indices and resourceVersion.
	lock sync.RWMutex
	// items maps each storage key to its object.
	items map[string]interface{}
	// indices are the indices over items.
	indices storeIndices
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
		items:   map[string]interface{}{},
		indices: newStoreIndices(indexers),
	}
	m.indices.load(indices)
	return m
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
	m.lock.Lock()
	defer m.lock.Unlock()
	m.putLocked(key, obj)
}

// Delete removes key. It does not change the recorded resource version.
func (m *threadSafeMap) Delete(key string) {
	m.DeleteWithObject(key, nil)
}

// DeleteWithObject removes key and records the resource version of obj, the
// object as it was deleted (nil records nothing).
func (m *threadSafeMap) DeleteWithObject(key string, obj interface{}) {
	m.lock.Lock()
	defer m.lock.Unlock()
	m.deleteLocked(key, obj)
}

// Transaction applies txns in order under one acquisition of the lock. A
// transaction of an unknown type changes no object.
func (m *threadSafeMap) Transaction(txns ...ThreadSafeStoreTransaction) {
	m.lock.Lock()
	defer m.lock.Unlock()
	for _, txn := range txns {
		switch txn.Type {
		case TransactionTypeAdd, TransactionTypeUpdate:
			m.putLocked(txn.Key, txn.Object)
		case TransactionTypeDelete:
			m.deleteLocked(txn.Key, txn.Object)
		default:
			m.observeObjectLocked(txn.Object)
		}
	}
}

// putLocked stores obj under key and keeps the indices exact.
func (m *threadSafeMap) putLocked(key string, obj interface{}) {
	old := m.items[key]
	m.items[key] = obj
	m.indices.update(key, old, obj)
	m.observeObjectLocked(obj)
}

// deleteLocked removes key, if present, and records obj's resource version.
func (m *threadSafeMap) deleteLocked(key string, obj interface{}) {
	if old, exists := m.items[key]; exists {
		m.indices.update(key, old, nil)
		delete(m.items, key)
	}
	m.observeObjectLocked(obj)
}

// Get returns the object stored under key.
func (m *threadSafeMap) Get(key string) (item interface{}, exists bool) {
	m.lock.RLock()
	defer m.lock.RUnlock()
	item, exists = m.items[key]
	return item, exists
}

// List returns every stored object, in no particular order.
func (m *threadSafeMap) List() []interface{} {
	m.lock.RLock()
	defer m.lock.RUnlock()
	return mapValues(m.items)
}

// ListKeys returns every storage key, in no particular order.
func (m *threadSafeMap) ListKeys() []string {
	m.lock.RLock()
	defer m.lock.RUnlock()
	return mapKeys(m.items)
}

// Replace makes items the whole content of the store (the store takes
// ownership of the map), rebuilds every index and records resourceVersion.
func (m *threadSafeMap) Replace(items map[string]interface{}, resourceVersion string) {
	m.lock.Lock()
	defer m.lock.Unlock()
	m.items = items
	m.indices.clear()
	for key, obj := range items {
		m.indices.update(key, nil, obj)
	}
	m.setResourceVersionLocked(resourceVersion)
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
		return vi.objectsLocked(values[0], m.items), nil
	}
	return vi.objectsOfAnyLocked(values, m.items), nil
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
	return ks.appendTo(make([]string, 0, ks.len())), nil
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
	return vi.objectsLocked(indexedValue, m.items), nil
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
	return m.indices.addIndexers(newIndexers, m.items)
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

// observeObjectLocked records the resource version of obj, if it has object
// metadata.
func (m *threadSafeMap) observeObjectLocked(obj interface{}) {
	if obj == nil {
		return
	}
	if accessor, err := meta.Accessor(obj); err == nil {
		m.setResourceVersionLocked(accessor.GetResourceVersion())
	}
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

// mapValues returns the values of m, never nil.
func mapValues[K comparable, V any](m map[K]V) []V {
	values := make([]V, 0, len(m))
	for _, v := range m {
		values = append(values, v)
	}
	return values
}
