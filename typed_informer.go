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

// typedInformerView is what NewTypedSharedIndexInformer returns: a
// SharedIndexInformer (embedded, so every untyped method is the wrapped
// informer's own) with the typed methods of TypedSharedIndexInformer on
// top. It holds no state besides the informer; the typed methods convert
// and call the untyped ones, and nothing reaches the informer before they
// are called.
type typedInformerView[T Object] struct {
	SharedIndexInformer
}

// NewTypedSharedIndexInformer returns informer with the typed methods of
// TypedSharedIndexInformer added (see typedInformerView). It only wraps
// informer: nothing is called on it here.
func NewTypedSharedIndexInformer[T Object](informer SharedIndexInformer) TypedSharedIndexInformer[T] {
	return &typedInformerView[T]{SharedIndexInformer: informer}
}

// AddTypedEventHandler registers handler, converted to a
// ResourceEventHandler, with AddEventHandlerWithOptions and returns its
// result. More than one options value fails before anything is registered.
func (v *typedInformerView[T]) AddTypedEventHandler(handler TypedResourceEventHandler[T], options ...HandlerOptions) (ResourceEventHandlerRegistration, error) {
	if len(options) > 1 {
		return nil, fmt.Errorf("at most one HandlerOptions may be passed, got %d", len(options))
	}
	var opts HandlerOptions
	for _, o := range options {
		opts = o
	}
	return v.AddEventHandlerWithOptions(&typedResourceEventHandler[T]{handler: handler}, opts)
}

// AddTypedIndexers adds indexers with AddIndexers.
func (v *typedInformerView[T]) AddTypedIndexers(indexers TypedIndexers[T]) error {
	return v.AddIndexers(TypedIndexersToIndexers(indexers))
}

// GetTypedIndexer returns GetIndexer's Indexer as a TypedIndexer.
func (v *typedInformerView[T]) GetTypedIndexer() TypedIndexer[T] {
	return typedIndexer[T]{Indexer: v.GetIndexer()}
}
