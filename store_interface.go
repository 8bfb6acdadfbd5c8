package cache

// This file holds the Store interface and the key lookup interfaces the
// queues take. It refers to no other file: the Indexer (index.go), the
// queues and the key-computing cache (store.go) build on it.

// Store is a keyed collection of objects. Each object's key comes from the
// store's KeyFunc, so writes and Get take the object itself; GetByKey takes
// the key.
//
// The stores of this package keep the latest object per key and forget it on
// Delete. Queues (RealFIFO, DeltaFIFO) implement Store too, with
// accumulators of pending changes instead of plain objects. The Reflector
// keeps a Store in step with the API server.
type Store interface {
	// Get returns what is stored under obj's key.
	Get(obj interface{}) (item interface{}, exists bool, err error)
	// GetByKey returns what is stored under key.
	GetByKey(key string) (item interface{}, exists bool, err error)
	// List returns everything stored, in no particular order.
	List() []interface{}
	// ListKeys returns every key in use, in no particular order.
	ListKeys() []string

	// Add stores obj under its key.
	Add(obj interface{}) error
	// Update stores obj under its key; for plain stores it is the same as Add.
	Update(obj interface{}) error
	// Delete forgets what is stored under obj's key.
	Delete(obj interface{}) error
	// Replace discards the whole content and stores list instead, recording
	// the resource version the list was taken at. The store owns list
	// afterwards; the caller must not use it again.
	Replace([]interface{}, string) error
	// Resync does nothing for plain stores; queues re-deliver their known
	// objects.
	Resync() error

	// LastStoreSyncResourceVersion returns the last resource version the
	// store has seen, from an object written to it, a Replace or a Bookmark.
	LastStoreSyncResourceVersion() string
	// Bookmark records rv as the last resource version seen, without any
	// object changing.
	Bookmark(rv string)
}

// KeyListerGetter can both enumerate its keys and look a key up; queues use
// one to learn which objects their consumer already knows.
type KeyListerGetter interface {
	KeyGetter
	KeyLister
}

// KeyGetter looks up what is stored under a key.
type KeyGetter interface {
	// GetByKey returns the value under key, with exists false when there is none.
	GetByKey(key string) (value interface{}, exists bool, err error)
}

// KeyLister enumerates the keys it holds.
type KeyLister interface {
	ListKeys() []string
}
