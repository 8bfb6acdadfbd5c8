package cache

// TypedIndexer is an Indexer of objects of type T with typed variants of
// its object-taking and object-returning index methods.
type TypedIndexer[T any] interface {
	Indexer

	// TypedIndex is Index with a T in and Ts out.
	TypedIndex(indexName string, obj T) ([]T, error)
	// ByTypedIndex is ByIndex with Ts out.
	ByTypedIndex(indexName, indexedValue string) ([]T, error)
	// AddTypedIndexers is AddIndexers for TypedIndexFuncs.
	AddTypedIndexers(newIndexers TypedIndexers[T]) error
}

// typedIndexer is the TypedIndexer view of an Indexer. It holds no state
// of its own; every call goes to the Indexer.
type typedIndexer[T any] struct {
	Indexer
}

var _ TypedIndexer[any] = typedIndexer[any]{}

// TypedIndex returns the objects that share an indexed value with obj in
// index indexName, as Ts (an empty, non-nil slice when there are none; nil
// and the error when Index fails). A cached object that is not a T panics.
func (ix typedIndexer[T]) TypedIndex(indexName string, obj T) ([]T, error) {
	items, err := ix.Index(indexName, obj)
	if err != nil {
		return nil, err
	}
	return asTyped[T](items), nil
}

// ByTypedIndex returns the objects whose indexName values include
// indexedValue, as Ts (see TypedIndex for empty results, errors and
// panics).
func (ix typedIndexer[T]) ByTypedIndex(indexName, indexedValue string) ([]T, error) {
	items, err := ix.ByIndex(indexName, indexedValue)
	if err != nil {
		return nil, err
	}
	return asTyped[T](items), nil
}

// AddTypedIndexers adds newIndexers with AddIndexers.
func (ix typedIndexer[T]) AddTypedIndexers(newIndexers TypedIndexers[T]) error {
	return ix.AddIndexers(TypedIndexersToIndexers(newIndexers))
}

// asTyped converts items element by element into a new slice of the same
// length (never nil). An element that is not a T panics.
func asTyped[T any](items []interface{}) []T {
	typed := make([]T, len(items))
	for i, item := range items {
		typed[i] = item.(T)
	}
	return typed
}

// TypedIndexFunc is IndexFunc for objects of type T.
type TypedIndexFunc[T any] func(obj T) ([]string, error)

// TypedIndexers maps index names to TypedIndexFuncs.
type TypedIndexers[T any] map[string]TypedIndexFunc[T]

// TypedIndexerFuncToIndexerFunc returns the IndexFunc that calls indexer
// with its argument as a T. An argument that is not a T panics with the
// runtime's type assertion error, as in client-go.
func TypedIndexerFuncToIndexerFunc[T any](indexer TypedIndexFunc[T]) IndexFunc {
	return func(obj interface{}) ([]string, error) {
		return indexer(obj.(T))
	}
}

// TypedIndexersToIndexers returns indexers with each TypedIndexFunc wrapped
// by TypedIndexerFuncToIndexerFunc under the same name, e.g. for
// SharedIndexInformerOptions.Indexers. The result is a new map, never nil,
// even for nil indexers.
func TypedIndexersToIndexers[T any](indexers TypedIndexers[T]) Indexers {
	out := Indexers{}
	for indexName := range indexers {
		out[indexName] = TypedIndexerFuncToIndexerFunc(indexers[indexName])
	}
	return out
}
