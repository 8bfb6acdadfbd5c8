package cache

import "fmt"

// Store is a generic object storage and processing interface. A Store holds
// a map from string keys to accumulators, and has operations to add, update,
// and delete a given object to/from the accumulator currently associated
// with a given key. A Store also knows how to extract the key from a given
// object, so many operations are given only the object.
//
// In the simplest Store implementations each accumulator is simply the last
// given object, or empty after Delete, and thus the Store's behavior is
// simple storage.
//
// Reflector knows how to watch a server and update a Store. This package
// provides a variety of implementations of Store.
type Store interface {

	// Add adds the given object to the accumulator associated with the given object's key
	Add(obj interface{}) error

	// Update updates the given object in the accumulator associated with the given object's key
	Update(obj interface{}) error

	// Delete deletes the given object from the accumulator associated with the given object's key
	Delete(obj interface{}) error

	// List returns a list of all the currently non-empty accumulators
	List() []interface{}

	// ListKeys returns a list of all the keys currently associated with non-empty accumulators
	ListKeys() []string

	// LastStoreSyncResourceVersion returns the latest resource version that the store has seen.
	// This is used to determine the latest resource version the store has seen from objects
	// observed being written to the store.
	LastStoreSyncResourceVersion() string

	// Bookmark observes a new resource version passed into it and
	// will be used to get the latest resource version of the store.
	Bookmark(rv string)

	// Get returns the accumulator associated with the given object's key
	Get(obj interface{}) (item interface{}, exists bool, err error)

	// GetByKey returns the accumulator associated with the given key
	GetByKey(key string) (item interface{}, exists bool, err error)

	// Replace will delete the contents of the store, using instead the
	// given list. Store takes ownership of the list, you should not reference
	// it after calling this function.
	Replace([]interface{}, string) error

	// Resync is meaningless in the terms appearing here but has
	// meaning in some implementations that have non-trivial
	// additional behavior (e.g., DeltaFIFO).
	Resync() error
}

// A KeyLister is anything that knows how to list its keys.
type KeyLister interface {
	ListKeys() []string
}

// A KeyGetter is anything that knows how to get the value stored under a given key.
type KeyGetter interface {
	// GetByKey returns the value associated with the key, or sets exists=false.
	GetByKey(key string) (value interface{}, exists bool, err error)
}

// A KeyListerGetter is anything that knows how to list its keys and look up by key.
type KeyListerGetter interface {
	KeyLister
	KeyGetter
}

// StoreOption configures a store made by NewStore or NewIndexer.
type StoreOption = func(*cache)

// WithTransformer makes the store pass every object given to Add, Update,
// Replace or an add/update transaction through transformer before storing
// it. Deleted objects are not transformed.
func WithTransformer(transformer TransformFunc) StoreOption {
	return func(c *cache) {
		c.transformer = transformer
	}
}

// WithStoreMetrics publishes the store's resource version through metrics
// under identifier. Nothing is published when metrics is nil or the
// identifier is not Reserved.
func WithStoreMetrics(identifier InformerNameAndResource, metrics InformerMetricsProvider) StoreOption {
	return func(c *cache) {
		c.storage.enableMetrics(identifier, metrics)
	}
}

// cache is the Store and Indexer of this package: it computes each object's
// key with keyFunc, optionally transforms the object, and keeps it in a
// threadSafeMap. cache itself holds no lock and no mutable state; storage
// does the locking.
type cache struct {
	// storage holds the objects and indices.
	storage *threadSafeMap
	// keyFunc makes the storage key of an object.
	keyFunc KeyFunc
	// transformer, if set, is applied to objects before they are stored.
	transformer TransformFunc
}

var _ Indexer = &cache{}
var _ TransactionStore = &cache{}

// NewStore returns a Store implemented simply with a map and a lock.
func NewStore(keyFunc KeyFunc, opts ...StoreOption) Store {
	return newCache(keyFunc, Indexers{}, opts)
}

// NewIndexer returns an Indexer implemented simply with a map and a lock.
func NewIndexer(keyFunc KeyFunc, indexers Indexers, opts ...StoreOption) Indexer {
	return newCache(keyFunc, indexers, opts)
}

func newCache(keyFunc KeyFunc, indexers Indexers, opts []StoreOption) *cache {
	c := &cache{storage: newThreadSafeMap(indexers, Indices{}), keyFunc: keyFunc}
	for _, opt := range opts {
		opt(c)
	}
	return c
}

// Add inserts obj, or replaces the object stored under its key.
func (c *cache) Add(obj interface{}) error {
	obj, key, err := c.prepare(obj)
	if err != nil {
		return err
	}
	c.storage.Add(key, obj)
	return nil
}

// Update replaces the object stored under obj's key, or inserts obj.
func (c *cache) Update(obj interface{}) error {
	obj, key, err := c.prepare(obj)
	if err != nil {
		return err
	}
	c.storage.Update(key, obj)
	return nil
}

// Delete removes the object stored under obj's key and records obj's
// resource version. Deleting an absent key is not an error.
func (c *cache) Delete(obj interface{}) error {
	key, err := c.keyOf(obj)
	if err != nil {
		return err
	}
	c.storage.DeleteWithObject(key, obj)
	return nil
}

// Transaction applies txns under one acquisition of the store's lock. A
// transaction whose transform or key fails is skipped and reported; all
// others are applied, in order. It returns nil when every one was applied.
func (c *cache) Transaction(txns ...Transaction) *TransactionError {
	if len(txns) == 0 {
		return nil
	}
	prepared := make([]ThreadSafeStoreTransaction, 0, len(txns))
	applied := make([]int, 0, len(txns))
	var errs []error
	for i, txn := range txns {
		obj, key, err := c.prepareTransaction(txn)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		prepared = append(prepared, ThreadSafeStoreTransaction{
			Transaction: Transaction{Object: obj, Type: txn.Type},
			Key:         key,
		})
		applied = append(applied, i)
	}
	c.storage.Transaction(prepared...)
	if len(errs) == 0 {
		return nil
	}
	return &TransactionError{SuccessfulIndices: applied, TotalTransactions: len(txns), Errors: errs}
}

// prepareTransaction is prepare for adds and updates and keyOf for the rest.
func (c *cache) prepareTransaction(txn Transaction) (interface{}, string, error) {
	if txn.Type == TransactionTypeAdd || txn.Type == TransactionTypeUpdate {
		return c.prepare(txn.Object)
	}
	key, err := c.keyOf(txn.Object)
	return txn.Object, key, err
}

// List returns every stored object, in no particular order.
func (c *cache) List() []interface{} {
	return c.storage.List()
}

// ListKeys returns every storage key, in no particular order.
func (c *cache) ListKeys() []string {
	return c.storage.ListKeys()
}

// GetIndexers returns the index functions by name.
func (c *cache) GetIndexers() Indexers {
	return c.storage.GetIndexers()
}

// Index returns the stored objects that share a value of the named index
// with obj.
func (c *cache) Index(indexName string, obj interface{}) ([]interface{}, error) {
	return c.storage.Index(indexName, obj)
}

// IndexKeys returns the keys of the stored objects that have indexedValue in
// the named index.
func (c *cache) IndexKeys(indexName, indexedValue string) ([]string, error) {
	return c.storage.IndexKeys(indexName, indexedValue)
}

// ListIndexFuncValues returns every value the named index holds.
func (c *cache) ListIndexFuncValues(indexName string) []string {
	return c.storage.ListIndexFuncValues(indexName)
}

// ByIndex returns the stored objects that have indexedValue in the named
// index.
func (c *cache) ByIndex(indexName, indexedValue string) ([]interface{}, error) {
	return c.storage.ByIndex(indexName, indexedValue)
}

// AddIndexers adds indices and fills them from the stored objects.
func (c *cache) AddIndexers(newIndexers Indexers) error {
	return c.storage.AddIndexers(newIndexers)
}

// Get returns the object stored under obj's key.
func (c *cache) Get(obj interface{}) (item interface{}, exists bool, err error) {
	key, err := c.keyOf(obj)
	if err != nil {
		return nil, false, err
	}
	return c.GetByKey(key)
}

// GetByKey returns the object stored under key.
func (c *cache) GetByKey(key string) (item interface{}, exists bool, err error) {
	item, exists = c.storage.Get(key)
	return item, exists, nil
}

// Replace transforms and keys every object of list and then makes them the
// whole content of the store, recording resourceVersion. If any object
// fails, the store is left unchanged and the first error is returned.
func (c *cache) Replace(list []interface{}, resourceVersion string) error {
	items := make(map[string]interface{}, len(list))
	for _, obj := range list {
		obj, key, err := c.prepare(obj)
		if err != nil {
			return err
		}
		items[key] = obj
	}
	c.storage.Replace(items, resourceVersion)
	return nil
}

// Resync is meaningless for one of these
func (c *cache) Resync() error {
	return nil
}

// Bookmark records rv as the last resource version seen.
func (c *cache) Bookmark(rv string) {
	c.storage.Bookmark(rv)
}

// LastStoreSyncResourceVersion returns the last resource version seen.
func (c *cache) LastStoreSyncResourceVersion() string {
	return c.storage.LastStoreSyncResourceVersion()
}

// prepare transforms obj, if the store has a transformer, and computes the
// key of the result.
func (c *cache) prepare(obj interface{}) (interface{}, string, error) {
	if c.transformer != nil {
		transformed, err := c.transformer(obj)
		if err != nil {
			return nil, "", fmt.Errorf("transforming: %w", err)
		}
		obj = transformed
	}
	key, err := c.keyOf(obj)
	return obj, key, err
}

// keyOf computes obj's key, wrapping a failure in a KeyError.
func (c *cache) keyOf(obj interface{}) (string, error) {
	key, err := c.keyFunc(obj)
	if err != nil {
		return "", KeyError{Obj: obj, Err: err}
	}
	return key, nil
}
