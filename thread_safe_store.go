package cache

import (
	"fmt"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	clientfeatures "k8s.io/client-go/features"

	"github.com/kcache-go/cache/internal/keytable"
	"github.com/kcache-go/cache/internal/records"
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
	// GetIndexers returns the Indexers map the store was given, not a
	// copy (nil when it was given nil).
	GetIndexers() Indexers
	// AddIndexers adds newIndexers to that map, registers their indices and
	// fills them from the stored objects.
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

// ThreadSafeStoreWithTransaction is a ThreadSafeStore that also applies
// batches of keyed writes under one lock acquisition.
type ThreadSafeStoreWithTransaction interface {
	ThreadSafeStore
	// Transaction applies fns in order.
	Transaction(fns ...ThreadSafeStoreTransaction)
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
// package: records (records.Table: key, object and index membership count
// per stable int32 id), a hash table from storage key to id
// (keytable.Table), the indices over those ids, and the last resource
// version the store has seen.
//
// Writers hold lock for writing; readers hold it for reading, so any number
// of readers proceed together and every read sees one consistent snapshot.
//
// Indices refer to records by id: an index read picks objects out of the
// records without hashing a key, an update whose indexed values did not
// change only overwrites one object slot, and neither the table nor the key
// sets hold pointers for the garbage collector to scan. A key the store
// computed from an object's metadata is kept as two headers into the
// object's own namespace and name strings (see records.Key), so it costs no
// allocation; a key given as a string is kept as given. A key handed out
// (ListKeys, IndexKeys) is rendered: a new string for a namespaced
// object's key, so that a caller keeping it pins only its own bytes.
//
// Invariant: after every write, every index is exact (see valueIndex); the
// table holds exactly the stored records, each under its key; detached
// holds exactly the detached records, each under its rendered key, which
// the record holds as a plain key (so a deleted object's metadata strings
// are not kept alive by it); refs[id] of a
// stored or detached record is the number of key sets (over all indices)
// holding id; a record no key set holds is stored or free, never detached.
type threadSafeMap struct {
	// lock guards every field below but versionGauge.
	lock sync.RWMutex
	// recs holds the records: keys, objects and membership counts by id.
	recs records.Table
	// table maps each stored key to its record id.
	table keytable.Table
	// detached maps the keys of the records that some index holds but
	// that are not stored: keys named by the Indices given to
	// NewThreadSafeStore and not stored (yet), and deleted keys that an
	// index still holds because their object was changed in place. Index
	// reads give nil for them, as client-go does. A later write of such a
	// key adopts its record, so the key is never indexed twice and the index
	// resolves to its new object, again as client-go does. A delete
	// detaches a record only while a key set still holds it, and frees
	// it otherwise. Usually nil.
	detached map[string]int32
	// indices are the indices over record ids.
	indices storeIndices
	// resourceVersion is the last resource version the store has seen, from
	// an object written, a Replace or a Bookmark.
	resourceVersion string
	// versionGauge publishes resourceVersion; nil when metrics are off. Set
	// only while the store is being built.
	versionGauge GaugeMetric
}

// NewThreadSafeStore creates a new instance of ThreadSafeStore with the given
// indexers, keeping that map itself (see GetIndexers). indices, when not
// empty, is taken as the initial content of those indices: it is read here
// and never again (client-go keeps it as its storage; see README,
// Deliberate differences).
func NewThreadSafeStore(indexers Indexers, indices Indices, opts ...ThreadSafeStoreOption) ThreadSafeStore {
	m := newThreadSafeMap(indexers, indices)
	for _, opt := range opts {
		opt(m)
	}
	return m
}

// newThreadSafeMap returns an empty map with the given indices.
func newThreadSafeMap(indexers Indexers, indices Indices) *threadSafeMap {
	m := &threadSafeMap{table: keytable.New(0)}
	m.indices = newStoreIndices(indexers, &m.recs)
	m.indices.load(indices, m.preloadedRecord)
	return m
}

// preloadedRecord returns the record of key for given index content,
// creating a detached one the first time.
func (m *threadSafeMap) preloadedRecord(key string) int32 {
	if id, ok := m.detached[key]; ok {
		return id
	}
	id := m.recs.Add(records.Plain(key), records.Detached)
	m.detachLocked(key, id)
	return id
}

// detachLocked records id, a detached record of key, in detached.
func (m *threadSafeMap) detachLocked(key string, id int32) {
	if m.detached == nil {
		m.detached = map[string]int32{}
	}
	m.detached[key] = id
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
	transact(m, txns, func(t ThreadSafeStoreTransaction) (TransactionType, records.Key, interface{}) {
		return t.Type, records.Plain(t.Key), t.Object
	})
}

// keyedTransaction is a Transaction with its key in either form (see
// records.Key), as the Store's Transaction computes it.
type keyedTransaction struct {
	Transaction
	key records.Key
}

// transactKeyed is Transaction of txns, whose keys are records.Keys: a key
// the Store computed from an object's metadata costs no key string.
func (m *threadSafeMap) transactKeyed(txns []keyedTransaction) {
	transact(m, txns, func(t keyedTransaction) (TransactionType, records.Key, interface{}) {
		return t.Type, t.key, t.Object
	})
}

// transact applies txns to m in order under one acquisition of its lock,
// each taken apart by parts, and records the resource version of the last
// transaction's object (see Transaction).
func transact[T any](m *threadSafeMap, txns []T, parts func(T) (TransactionType, records.Key, interface{})) {
	if len(txns) == 0 {
		return
	}
	_, _, last := parts(txns[len(txns)-1])
	rv, hasRV := resourceVersionOf(last)
	m.lock.Lock()
	defer m.lock.Unlock()
	for _, txn := range txns {
		m.applyLocked(parts(txn))
	}
	if hasRV {
		m.setResourceVersionLocked(rv)
	}
}

// applyLocked applies one transaction of type typ to obj under key; an
// unknown type changes nothing.
func (m *threadSafeMap) applyLocked(typ TransactionType, key records.Key, obj interface{}) {
	switch typ {
	case TransactionTypeAdd, TransactionTypeUpdate:
		m.putKeyLocked(key, obj)
	case TransactionTypeDelete:
		m.deleteKeyLocked(key)
	}
}

// putLocked stores obj under key and keeps the indices exact. The object is
// stored before the indices are updated, so an IndexFunc that panics leaves
// it stored (and the indices partly updated), as in client-go.
func (m *threadSafeMap) putLocked(key string, obj interface{}) {
	m.putKeyLocked(records.Plain(key), obj)
}

// putKeyLocked is putLocked of key in either form. A stored record takes
// key's headers (same key, see records.Table.SetKey), so that a key that
// pointed into the previous object's metadata no longer keeps it alive.
func (m *threadSafeMap) putKeyLocked(key records.Key, obj interface{}) {
	tag := m.table.HashOf(key)
	if _, id, old := m.table.Lookup(key, tag, &m.recs); id >= 0 {
		m.recs.SetKey(id, key)
		m.replaceObjectLocked(id, old, obj)
		return
	}
	m.putNewLocked(key, tag, obj)
}

// putNewLocked is putKeyLocked of a key that is not stored, whose table tag
// is tag: it adopts the key's detached record, if any, or makes a new one.
func (m *threadSafeMap) putNewLocked(key records.Key, tag uint32, obj interface{}) {
	// NB: the detached record of key, if any; nothing is rendered on
	// the heap, nor at all while no record is detached.
	id, adopted := key.In(m.detached)
	if adopted {
		delete(m.detached, key.String())
		m.recs.SetKey(id, key)
		m.recs.Attach(id, obj)
	} else {
		id = m.recs.Add(key, obj)
		m.indices.fresh(id)
	}
	m.table.Insert(id, tag)
	m.indices.add(id, obj)
}

// replaceObjectLocked makes obj the object of id, a stored record whose
// object is old, and moves id in the indices from the values of old to
// those of obj.
func (m *threadSafeMap) replaceObjectLocked(id int32, old, obj interface{}) {
	m.recs.SetObject(id, obj)
	m.indices.change(id, old, obj)
}

// deleteLocked removes key, if present, from the table and the indices.
func (m *threadSafeMap) deleteLocked(key string) {
	m.deleteKeyLocked(records.Plain(key))
}

// deleteKeyLocked is deleteLocked of key in either form.
func (m *threadSafeMap) deleteKeyLocked(key records.Key) {
	if slot, id, obj := m.table.Lookup(key, m.table.HashOf(key), &m.recs); id >= 0 {
		m.deleteRecordLocked(slot, id, obj)
	}
}

// deleteRecordLocked removes id, a stored record in table slot slot whose
// object is obj, from the indices and the table. A record that an index
// still holds (its object was changed in place, so it no longer gives the
// values it was indexed under) is kept as detached, under its key rendered
// as a plain one; any other is freed, its id to be reused.
func (m *threadSafeMap) deleteRecordLocked(slot int, id int32, obj interface{}) {
	m.indices.remove(id, obj)
	// NB: the indices never change the table, so slot is still id's.
	m.table.RemoveAt(slot)
	if *m.recs.Refs(id) > 0 {
		key := m.recs.Key(id)
		plain := key.String()
		m.recs.SetKey(id, records.Plain(plain))
		m.recs.Detach(id)
		m.detachLocked(plain, id)
		return
	}
	m.recs.Free(id)
	// NB: the arrays and the table keep their size, as a Go map keeps its
	// buckets: a cache that shrank usually grows back, and the next
	// Replace allocates them afresh at the listed size.
}

// storedLocked returns the object stored under id, a record id from the
// table.
func (m *threadSafeMap) storedLocked(id int32) (interface{}, bool) {
	if id < 0 {
		return nil, false
	}
	return m.recs.Object(id), true
}

// Get returns the object stored under key.
func (m *threadSafeMap) Get(key string) (item interface{}, exists bool) {
	m.lock.RLock()
	defer m.lock.RUnlock()
	return m.storedLocked(m.table.Find(records.Plain(key), &m.recs))
}

// List returns every stored object, in no particular order.
func (m *threadSafeMap) List() []interface{} {
	m.lock.RLock()
	defer m.lock.RUnlock()
	return m.recs.AppendObjects(make([]interface{}, 0, m.recs.Live()))
}

// ListKeys returns every storage key, in no particular order. Each key of
// a namespaced object the store keyed itself is built here, one
// allocation per key (see records.Key.String).
func (m *threadSafeMap) ListKeys() []string {
	m.lock.RLock()
	defer m.lock.RUnlock()
	return m.recs.AppendKeys(make([]string, 0, m.recs.Live()))
}

// Replace makes items the whole content of the store, rebuilds the index of
// every entry of the Indexers map as it is now, and records
// resourceVersion. items is read, never kept nor written (client-go keeps
// it as its storage; see README, Deliberate differences).
func (m *threadSafeMap) Replace(items map[string]interface{}, resourceVersion string) {
	recs, table := records.NewTable(len(items)), keytable.New(len(items))
	for key, obj := range items {
		table.Insert(recs.Add(records.Plain(key), obj), table.HashOf(records.Plain(key)))
	}
	m.replaceRecords(recs, table, resourceVersion)
}

// replaceKeyed is Replace for objects[i] stored under keys[i]; a repeated
// key keeps its last object. The records and the table are built, sized
// for the list, before the lock is taken.
func (m *threadSafeMap) replaceKeyed(keys []records.Key, objects []interface{}, resourceVersion string) {
	recs, table := records.NewTable(len(keys)), keytable.New(len(keys))
	for i, key := range keys {
		tag := table.HashOf(key)
		if _, id, _ := table.Lookup(key, tag, &recs); id >= 0 {
			recs.SetKey(id, key)
			recs.SetObject(id, objects[i])
			continue
		}
		table.Insert(recs.Add(key, objects[i]), tag)
	}
	m.replaceRecords(recs, table, resourceVersion)
}

// replaceRecords makes recs and table, fresh records with no index
// membership, the store's content, records resourceVersion and rebuilds
// every index.
func (m *threadSafeMap) replaceRecords(recs records.Table, table keytable.Table, resourceVersion string) {
	m.lock.Lock()
	defer m.lock.Unlock()
	m.recs, m.table, m.detached = recs, table, nil
	// NB: recorded before the indices are rebuilt, as in client-go: an
	// IndexFunc that panics leaves the new content and version.
	m.setResourceVersionLocked(resourceVersion)
	// NB: as client-go's Replace, rebuild the indices of the Indexers
	// map's entries as they are now (see index_registry.go).
	m.indices.adoptIndexers()
	m.indices.clear()
	m.recs.ForEachStored(m.indices.add)
}

// rlockIndex takes m's lock for reading and returns the index called name
// for a read (see storeIndices.get), first building it when the caller
// added its function to the Indexers map directly. It returns with the read
// lock held, whatever the outcome; the caller releases it.
func (m *threadSafeMap) rlockIndex(name string) (*valueIndex, error) {
	m.lock.RLock()
	vi, err := m.indices.get(name)
	if err != errIndexNotBuilt {
		return vi, err
	}
	m.lock.RUnlock()
	m.buildAddedIndex(name)
	m.lock.RLock()
	if vi, err = m.indices.get(name); err == errIndexNotBuilt {
		// NB: only a caller writing the map meanwhile gets here.
		err = fmt.Errorf("Index with name %s does not exist", name)
	}
	return vi, err
}

// buildAddedIndex is storeIndices.buildAdded under m's lock.
func (m *threadSafeMap) buildAddedIndex(name string) {
	m.lock.Lock()
	defer m.lock.Unlock()
	m.indices.buildAdded(name)
}

// Index returns the stored objects that share at least one value of the
// named index with obj.
func (m *threadSafeMap) Index(indexName string, obj interface{}) ([]interface{}, error) {
	vi, err := m.rlockIndex(indexName)
	defer m.lock.RUnlock()
	if err != nil {
		return nil, err
	}
	values, err := vi.indexFunc(obj)
	if err != nil {
		return nil, err
	}
	if len(values) == 1 {
		return vi.objectsLocked(values[0]), nil
	}
	return vi.objectsOfAnyLocked(values), nil
}

// IndexKeys returns the keys of the stored objects that have indexedValue in
// the named index, sorted, as client-go returns them; as ListKeys, it
// builds each namespaced key it returns. The keys are sorted after the lock
// is released.
func (m *threadSafeMap) IndexKeys(indexName, indexedValue string) ([]string, error) {
	keys, err := m.indexKeysUnsorted(indexName, indexedValue)
	slices.Sort(keys)
	return keys, err
}

// indexKeysUnsorted is IndexKeys in the key sets' order.
func (m *threadSafeMap) indexKeysUnsorted(indexName, indexedValue string) ([]string, error) {
	vi, err := m.rlockIndex(indexName)
	defer m.lock.RUnlock()
	if err != nil {
		return nil, err
	}
	ks := vi.byValue[indexedValue]
	if ks == nil {
		return []string{}, nil
	}
	return ks.AppendKeys(make([]string, 0, ks.Len()), &m.recs), nil
}

// ByIndex returns the stored objects that have indexedValue in the named
// index.
func (m *threadSafeMap) ByIndex(indexName, indexedValue string) ([]interface{}, error) {
	vi, err := m.rlockIndex(indexName)
	defer m.lock.RUnlock()
	if err != nil {
		return nil, err
	}
	return vi.objectsLocked(indexedValue), nil
}

// ListIndexFuncValues returns every value the named index holds keys for; an
// unknown index has none. Like the other index reads, it first builds an
// index whose function the caller added to the Indexers map directly (see
// index_registry.go).
func (m *threadSafeMap) ListIndexFuncValues(indexName string) []string {
	m.lock.RLock()
	if m.indices.unbuilt(indexName) {
		m.lock.RUnlock()
		m.buildAddedIndex(indexName)
		m.lock.RLock()
	}
	defer m.lock.RUnlock()
	vi := m.indices.listed(indexName)
	if vi == nil {
		return []string{}
	}
	return mapKeys(vi.byValue)
}

// GetIndexers returns the Indexers map the store was given (nil when it was
// given nil and AddIndexers has added nothing), not a copy, as client-go does:
// AddIndexers adds to it, so it shows every index added later. Reading it
// while AddIndexers runs is a data race, as in client-go. What writing to
// it directly does is described in index_registry.go.
func (m *threadSafeMap) GetIndexers() Indexers {
	m.lock.RLock()
	defer m.lock.RUnlock()
	return m.indices.indexers
}

// indexFuncNamed returns the function the Indexers map has under name
// (nil when none), under m's read lock.
func (m *threadSafeMap) indexFuncNamed(name string) IndexFunc {
	m.lock.RLock()
	defer m.lock.RUnlock()
	return m.indices.indexers[name]
}

// AddIndexers adds newIndexers to the store's Indexers map and indexes
// every stored object with them. A name the map already has is an error and
// then nothing is added.
func (m *threadSafeMap) AddIndexers(newIndexers Indexers) error {
	m.lock.Lock()
	defer m.lock.Unlock()
	return m.indices.addIndexers(newIndexers)
}

// Resync does nothing and returns nil (it is deprecated in client-go's
// ThreadSafeStore).
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
	return t.recs.Live()
}
