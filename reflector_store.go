package cache

// ReflectorStore is what a Reflector writes into: the write half of Store.
// Queues and plain stores both implement it.
type ReflectorStore interface {
	// Replace installs the result of a full list taken at the given resource
	// version; the store owns the slice afterwards.
	Replace([]interface{}, string) error
	// Add records a watch ADDED event.
	Add(obj interface{}) error
	// Update records a watch MODIFIED event.
	Update(obj interface{}) error
	// Delete records a watch DELETED event.
	Delete(obj interface{}) error
	// Resync is called every resync period; stores that have nothing to
	// re-deliver do nothing.
	Resync() error
}

// TransformingStore is a ReflectorStore that transforms objects on the way
// in. A Reflector that finds one uses the same transform for the temporary
// stores it builds (for a streamed initial list), so objects are transformed
// as they arrive.
type TransformingStore interface {
	ReflectorStore
	Transformer() TransformFunc
}

// TransformFunc rewrites an object before it is queued or stored, typically
// to drop fields a controller never reads and so save memory.
//
// It is the first to see an object and may change it in place. It should be
// idempotent, and must be when objects already in the cache can be handed to
// Replace again. It runs while objects are being queued, on the hot path:
// keep it cheap.
type TransformFunc func(interface{}) (interface{}, error)
