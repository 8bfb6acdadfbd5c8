package cache

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kcache-go/cache/internal/records"
)

// StoreOption configures a store made by NewStore or NewIndexer.
type StoreOption = func(*cache)

// WithTransformer makes the store pass every object given to Add, Update,
// Replace or an add/update transaction through transformer before storing
// it. Deleted objects are not transformed.
func WithTransformer(transformer TransformFunc) StoreOption {
	return func(c *cache) { c.transformer = transformer }
}

// WithStoreMetrics publishes the store's resource version through metrics
// under identifier. Nothing is published when metrics is nil or the
// identifier is not Reserved.
func WithStoreMetrics(identifier InformerNameAndResource, metrics InformerMetricsProvider) StoreOption {
	return func(c *cache) { c.enableMetrics(identifier, metrics) }
}

// cache is the Store and Indexer of this package: it computes each object's
// key with keyFunc, optionally transforms the object, and keeps it in a
// threadSafeMap. cache itself holds no lock and no mutable state; storage
// does the locking.
//
// When keyFunc is MetaNamespaceKeyFunc or DeletionHandlingMetaNamespaceKeyFunc
// and there is no transformer, Add, Update, Delete, Get and Replace of an
// object with metadata compute its key themselves (the same key), reading
// the metadata once, and never build its string: the record keeps the key
// as two headers into the object's own namespace and name strings (see
// records.Key), so a write allocates no key, new or stored, and ListKeys and
// IndexKeys build the string of each namespaced key they return. Anything
// else (tombstones, ExplicitKey, objects without metadata, other KeyFuncs)
// goes through keyFunc as before, its key kept as the string it returns.
//
// The reads (List, ListKeys, the index reads, LastStoreSyncResourceVersion),
// AddIndexers, Bookmark and Resync are the threadSafeMap's own, promoted.
type cache struct {
	// threadSafeMap holds the objects and indices.
	*threadSafeMap
	// keyFunc makes the storage key of an object.
	keyFunc KeyFunc
	// transformer, if set, is applied to objects before they are stored.
	transformer TransformFunc
	// keyKind recognises keyFunc as one of this package's, whose keys the
	// store computes itself (see namedMeta); set once, at construction.
	keyKind keyFuncKind
}

var _ Indexer = &cache{}
var _ TransactionStore = &cache{}

// NewStore returns an empty, thread-safe Store that keys objects with
// keyFunc.
func NewStore(keyFunc KeyFunc, opts ...StoreOption) Store {
	return newCache(keyFunc, Indexers{}, opts)
}

// NewIndexer returns an empty, thread-safe Indexer that keys objects with
// keyFunc and indexes them with indexers.
func NewIndexer(keyFunc KeyFunc, indexers Indexers, opts ...StoreOption) Indexer {
	return newCache(keyFunc, indexers, opts)
}

func newCache(keyFunc KeyFunc, indexers Indexers, opts []StoreOption) *cache {
	c := &cache{threadSafeMap: newThreadSafeMap(indexers, Indices{}), keyFunc: keyFunc, keyKind: keyFuncKindOf(keyFunc)}
	for _, opt := range opts {
		opt(c)
	}
	return c
}

// Add inserts obj, or replaces the object stored under its key.
func (c *cache) Add(obj interface{}) error {
	return c.Update(obj)
}

// Update replaces the object stored under obj's key, or inserts obj.
func (c *cache) Update(obj interface{}) error {
	if m, ok := c.namedMeta(obj); ok {
		namespace, name, rv := m.GetNamespace(), m.GetName(), m.GetResourceVersion()
		c.threadSafeMap.updateNamed(namespace, name, obj, rv)
		return nil
	}
	key, obj, err := c.keyAndTransform(obj)
	if err != nil {
		return err
	}
	c.threadSafeMap.Update(key, obj)
	return nil
}

// Delete removes the object stored under obj's key and records obj's
// resource version. Deleting an absent key is not an error.
func (c *cache) Delete(obj interface{}) error {
	if m, ok := c.namedMeta(obj); ok {
		namespace, name, rv := m.GetNamespace(), m.GetName(), m.GetResourceVersion()
		c.threadSafeMap.deleteNamed(namespace, name, rv)
		return nil
	}
	key, err := c.keyOf(obj)
	if err != nil {
		return err
	}
	c.threadSafeMap.DeleteWithObject(key, obj)
	return nil
}

// Transaction applies txns under one acquisition of the store's lock. A
// transaction whose key fails is skipped and reported; all others are
// applied, in order, as given: the store's transformer is not applied (as
// in client-go, whose informers hand transactions already-transformed
// objects). Keys are computed as Update computes them (see namedMeta), so a
// named object's key costs no string. It returns nil when every one was
// applied.
func (c *cache) Transaction(txns ...Transaction) *TransactionError {
	if len(txns) == 0 {
		return nil
	}
	keyed := make([]keyedTransaction, 0, len(txns))
	applied := make([]int, 0, len(txns))
	var errs []error
	for i, txn := range txns {
		if m, ok := c.namedMeta(txn.Object); ok {
			keyed = append(keyed, keyedTransaction{Transaction: txn, key: records.Named(m.GetNamespace(), m.GetName())})
			applied = append(applied, i)
			continue
		}
		key, err := c.keyOf(txn.Object)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		keyed = append(keyed, keyedTransaction{Transaction: txn, key: records.Plain(key)})
		applied = append(applied, i)
	}
	c.threadSafeMap.transactKeyed(keyed)
	if len(errs) == 0 {
		return nil
	}
	return &TransactionError{SuccessfulIndices: applied, TotalTransactions: len(txns), Errors: errs}
}

// GetByKey returns the object stored under key; it never fails.
func (c *cache) GetByKey(key string) (item interface{}, exists bool, err error) {
	item, exists = c.threadSafeMap.Get(key)
	return item, exists, nil
}

// Get returns the object stored under obj's key; only computing the key can
// fail.
func (c *cache) Get(obj interface{}) (item interface{}, exists bool, err error) {
	if m, ok := c.namedMeta(obj); ok {
		item, exists = c.threadSafeMap.getNamed(m.GetNamespace(), m.GetName())
		return item, exists, nil
	}
	if key, keyErr := c.keyOf(obj); keyErr == nil {
		item, exists = c.threadSafeMap.Get(key)
	} else {
		err = keyErr
	}
	return item, exists, err
}

// Replace keys and transforms every object of list and then makes them the
// whole content of the store, recording resourceVersion. If any object
// fails, the store is left unchanged and the first error is returned. list
// itself is never modified.
func (c *cache) Replace(list []interface{}, resourceVersion string) error {
	keys := make([]records.Key, len(list))
	objects := list
	if c.transformer != nil {
		objects = make([]interface{}, len(list))
	}
	for i, obj := range list {
		if m, ok := c.namedMeta(obj); ok {
			// NB: no key string: the record keeps obj's own headers.
			keys[i] = records.Named(m.GetNamespace(), m.GetName())
			continue
		}
		key, stored, err := c.keyAndTransform(obj)
		if err != nil {
			return err
		}
		keys[i], objects[i] = records.Plain(key), stored
	}
	c.threadSafeMap.replaceKeyed(keys, objects, resourceVersion)
	return nil
}

// keyAndTransform computes obj's key and then, if the store has a
// transformer, transforms obj. The key is the original object's: a
// transformer cannot move an object to another key.
func (c *cache) keyAndTransform(obj interface{}) (string, interface{}, error) {
	key, err := c.keyOf(obj)
	if err != nil {
		return "", nil, err
	}
	if c.transformer != nil {
		if obj, err = c.transformer(obj); err != nil {
			return "", nil, fmt.Errorf("transforming: %w", err)
		}
	}
	return key, obj, nil
}

// keyOf computes obj's key, wrapping a failure in a KeyError.
func (c *cache) keyOf(obj interface{}) (string, error) {
	key, err := c.keyFunc(obj)
	if err != nil {
		return "", KeyError{Obj: obj, Err: err}
	}
	return key, nil
}

// namedMeta returns obj's metadata when the store may key obj itself: its
// KeyFunc is one of this package's, it has no transformer, and obj is an
// object with metadata (not an ExplicitKey nor a tombstone, which keep the
// KeyFunc's own path, errors included). The key is then exactly what the
// KeyFunc would return, namespacedKey of the metadata's namespace and name,
// and the store keeps it as records.Named of those two strings.
func (c *cache) namedMeta(obj interface{}) (metav1.Object, bool) {
	if c.keyKind == keyFuncOther || c.transformer != nil {
		return nil, false
	}
	switch obj.(type) {
	case ExplicitKey, DeletedFinalStateUnknown:
		return nil, false
	}
	if c.keyKind == keyFuncDeletionHandling {
		if _, _, ok := foreignTombstoneParts(obj); ok {
			return nil, false
		}
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, false
	}
	return m, true
}

// keyFuncKind says whether a store's KeyFunc is one of this package's own,
// whose keys the store can then compute itself: "namespace/name" (or
// "name") of the object's metadata. It is decided once, when the store is
// made, by comparing function pointers.
type keyFuncKind uint8

const (
	// keyFuncOther is any KeyFunc the store only calls.
	keyFuncOther keyFuncKind = iota
	// keyFuncMetaNamespace is MetaNamespaceKeyFunc.
	keyFuncMetaNamespace
	// keyFuncDeletionHandling is DeletionHandlingMetaNamespaceKeyFunc.
	keyFuncDeletionHandling
)

// Code pointers of the recognised functions, computed once.
var (
	metaNamespaceKeyFuncPC    = reflect.ValueOf(MetaNamespaceKeyFunc).Pointer()
	deletionHandlingKeyFuncPC = reflect.ValueOf(DeletionHandlingMetaNamespaceKeyFunc).Pointer()
)

// keyFuncKindOf recognises fn.
func keyFuncKindOf(fn KeyFunc) keyFuncKind {
	if fn == nil {
		return keyFuncOther
	}
	switch reflect.ValueOf(fn).Pointer() {
	case metaNamespaceKeyFuncPC:
		return keyFuncMetaNamespace
	case deletionHandlingKeyFuncPC:
		return keyFuncDeletionHandling
	}
	return keyFuncOther
}
