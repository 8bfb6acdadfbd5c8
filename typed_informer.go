package cache

import "fmt"

// TypedSharedIndexInformer is a SharedIndexInformer with type-safe
// variants of its handler and index methods, so that no type assertions
// are needed for objects of type T.
type TypedSharedIndexInformer[T Object] interface {
	SharedIndexInformer

	// AddTypedEventHandler registers a typed handler through
	// AddEventHandlerWithOptions: with no options as with empty
	// HandlerOptions, with one as with that one. More than one is an
	// error and registers nothing.
	AddTypedEventHandler(handler TypedResourceEventHandler[T], options ...HandlerOptions) (ResourceEventHandlerRegistration, error)
	// AddTypedIndexers is AddIndexers for TypedIndexFuncs.
	AddTypedIndexers(indexers TypedIndexers[T]) error
	// GetTypedIndexer returns the informer's Indexer as a TypedIndexer.
	GetTypedIndexer() TypedIndexer[T]
}

// NewTypedSharedIndexInformer returns informer with the typed methods of
// TypedSharedIndexInformer added. It only wraps informer: every untyped
// method is informer's own, the typed ones call informer's untyped ones,
// and nothing is called on informer before they are.
func NewTypedSharedIndexInformer[T Object](informer SharedIndexInformer) TypedSharedIndexInformer[T] {
	return &typedSharedIndexInformer[T]{SharedIndexInformer: informer}
}

// typedSharedIndexInformer adds the typed methods to a SharedIndexInformer.
// It holds no state besides the informer.
type typedSharedIndexInformer[T Object] struct {
	SharedIndexInformer
}

// AddTypedEventHandler registers handler, converted to a
// ResourceEventHandler, with AddEventHandlerWithOptions and returns its
// result. More than one options value fails before anything is registered.
func (s *typedSharedIndexInformer[T]) AddTypedEventHandler(handler TypedResourceEventHandler[T], options ...HandlerOptions) (ResourceEventHandlerRegistration, error) {
	var opts HandlerOptions
	switch len(options) {
	case 0:
	case 1:
		opts = options[0]
	default:
		return nil, fmt.Errorf("at most one HandlerOptions may be passed, got %d", len(options))
	}
	return s.AddEventHandlerWithOptions(&typedResourceEventHandler[T]{handler: handler}, opts)
}

// AddTypedIndexers adds indexers with AddIndexers.
func (s *typedSharedIndexInformer[T]) AddTypedIndexers(indexers TypedIndexers[T]) error {
	return s.AddIndexers(TypedIndexersToIndexers(indexers))
}

// GetTypedIndexer returns GetIndexer's Indexer as a TypedIndexer.
func (s *typedSharedIndexInformer[T]) GetTypedIndexer() TypedIndexer[T] {
	return typedIndexer[T]{Indexer: s.GetIndexer()}
}
