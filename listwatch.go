package cache

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/util/watchlist"
)

// This file holds the source side of the Reflector: the interfaces a
// Reflector lists and watches through, the ListWatch function bundle, the
// adapters that lift context-free implementations to the context-aware
// interfaces, and the REST-client based constructors.

// Lister is any object that knows how to perform an initial list.
//
// Ideally, all implementations of Lister should also implement
// ListerWithContext.
type Lister interface {
	// List should return a list type object; the Items field will be extracted, and the
	// ResourceVersion field will be used to start the watch in the right place.
	//
	// Deprecated: use ListerWithContext.ListWithContext instead.
	List(options metav1.ListOptions) (runtime.Object, error)
}

// ListerWithContext is any object that knows how to perform an initial list.
type ListerWithContext interface {
	// ListWithContext should return a list type object; the Items field will be extracted, and the
	// ResourceVersion field will be used to start the watch in the right place.
	ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error)
}

// Watcher is any object that knows how to start a watch on a resource.
//
// Ideally, all implementations of Watcher should also implement
// WatcherWithContext.
type Watcher interface {
	// Watch should begin a watch at the specified version.
	//
	// If Watch returns an error, it should handle its own cleanup, including
	// but not limited to calling Stop() on the watch, if one was constructed.
	// This allows the caller to ignore the watch, if the error is non-nil.
	//
	// Deprecated: use WatcherWithContext.WatchWithContext instead.
	Watch(options metav1.ListOptions) (watch.Interface, error)
}

// WatcherWithContext is any object that knows how to start a watch on a
// resource.
type WatcherWithContext interface {
	// WatchWithContext should begin a watch at the specified version.
	//
	// If Watch returns an error, it should handle its own cleanup, including
	// but not limited to calling Stop() on the watch, if one was constructed.
	// This allows the caller to ignore the watch, if the error is non-nil.
	WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error)
}

// ListerWatcher is any object that knows how to perform an initial list and
// start a watch on a resource.
//
// Ideally, all implementations of ListerWatcher should also implement
// ListerWatcherWithContext.
type ListerWatcher interface {
	Lister
	Watcher
}

// ListerWatcherWithContext is any object that knows how to perform an initial
// list and start a watch on a resource.
type ListerWatcherWithContext interface {
	ListerWithContext
	WatcherWithContext
}

// ListFunc knows how to list resources
//
// Deprecated: use ListWithContextFunc instead.
type ListFunc func(options metav1.ListOptions) (runtime.Object, error)

// ListWithContextFunc knows how to list resources
type ListWithContextFunc func(ctx context.Context, options metav1.ListOptions) (runtime.Object, error)

// WatchFunc knows how to watch resources
//
// Deprecated: use WatchFuncWithContext instead.
type WatchFunc func(options metav1.ListOptions) (watch.Interface, error)

// WatchFuncWithContext knows how to watch resources
type WatchFuncWithContext func(ctx context.Context, options metav1.ListOptions) (watch.Interface, error)

// ListWatch knows how to list and watch a set of apiserver resources.
// It satisfies the ListerWatcher and ListerWatcherWithContext interfaces.
// It is a convenience function for users of NewReflector, etc.
// ListFunc or ListWithContextFunc must be set. Same for WatchFunc and
// WatchFuncWithContext. ListWithContextFunc and WatchFuncWithContext are
// preferred if a context is available, otherwise ListFunc and WatchFunc.
//
// Each method prefers the function of its own flavour and falls back to the
// other one; with neither set it panics with a nil function call. ListWatch
// holds no state of its own and is safe for concurrent use when its
// functions are.
type ListWatch struct {
	// ListFunc lists without a context. Deprecated: use ListWithContext instead.
	ListFunc ListFunc
	// WatchFunc watches without a context. Deprecated: use WatchWithContext instead.
	WatchFunc WatchFunc

	// ListWithContextFunc lists with the caller's context.
	ListWithContextFunc ListWithContextFunc
	// WatchFuncWithContext watches with the caller's context.
	WatchFuncWithContext WatchFuncWithContext

	// DisableChunking requests no chunking for this list watcher.
	DisableChunking bool
}

var (
	_ ListerWatcher            = &ListWatch{}
	_ ListerWatcherWithContext = &ListWatch{}
)

// Getter interface knows how to access Get method from RESTClient.
type Getter interface {
	Get() *restclient.Request
}

// NewListWatchFromClient creates a new ListWatch from the specified client, resource, namespace and field selector.
// For backward compatibility, all function fields are populated.
func NewListWatchFromClient(c Getter, resource string, namespace string, fieldSelector fields.Selector) *ListWatch {
	selector := fieldSelector.String()
	return NewFilteredListWatchFromClient(c, resource, namespace, func(options *metav1.ListOptions) {
		options.FieldSelector = selector
	})
}

// NewFilteredListWatchFromClient creates a new ListWatch from the specified client, resource, namespace, and option modifier.
// Option modifier is a function takes a ListOptions and modifies the consumed ListOptions. Provide customized modifier function
// to apply modification to ListOptions with a field selector, a label selector, or any other desired options.
// For backward compatibility, all function fields are populated.
func NewFilteredListWatchFromClient(c Getter, resource string, namespace string, optionsModifier func(options *metav1.ListOptions)) *ListWatch {
	source := restResource{getter: c, resource: resource, namespace: namespace, modify: optionsModifier}
	return &ListWatch{
		ListFunc: func(options metav1.ListOptions) (runtime.Object, error) {
			return source.list(context.Background(), options)
		},
		WatchFunc: func(options metav1.ListOptions) (watch.Interface, error) {
			return source.watch(context.Background(), options)
		},
		ListWithContextFunc:  source.list,
		WatchFuncWithContext: source.watch,
	}
}

// restResource issues list and watch requests for one resource in one
// namespace (all namespaces when empty) through a REST client. It is
// immutable after construction.
type restResource struct {
	// getter builds the GET requests.
	getter Getter
	// resource is the plural resource name, e.g. "pods".
	resource string
	// namespace scopes the requests; metav1.NamespaceAll means cluster-wide.
	namespace string
	// modify adjusts the caller's options before every request.
	modify func(options *metav1.ListOptions)
}

// list performs one GET of the collection with the (modified) options as
// query parameters and decodes the response.
func (s restResource) list(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
	s.modify(&options)
	return s.request(options).Do(ctx).Get()
}

// watch opens a watch on the collection with the (modified) options.
func (s restResource) watch(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	options.Watch = true
	s.modify(&options)
	return s.request(options).Watch(ctx)
}

// request builds the GET request shared by list and watch.
func (s restResource) request(options metav1.ListOptions) *restclient.Request {
	return s.getter.Get().
		Namespace(s.namespace).
		Resource(s.resource).
		VersionedParams(&options, metav1.ParameterCodec)
}

// List a set of apiserver resources
//
// Deprecated: use ListWatchWithContext.ListWithContext instead.
func (lw *ListWatch) List(options metav1.ListOptions) (runtime.Object, error) {
	if lw.ListFunc == nil {
		return lw.ListWithContextFunc(context.Background(), options)
	}
	return lw.ListFunc(options)
}

// List a set of apiserver resources
func (lw *ListWatch) ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
	if lw.ListWithContextFunc == nil {
		return lw.ListFunc(options)
	}
	return lw.ListWithContextFunc(ctx, options)
}

// Watch a set of apiserver resources
//
// Deprecated: use ListWatchWithContext.WatchWithContext instead.
func (lw *ListWatch) Watch(options metav1.ListOptions) (watch.Interface, error) {
	if lw.WatchFunc == nil {
		return lw.WatchFuncWithContext(context.Background(), options)
	}
	return lw.WatchFunc(options)
}

// Watch a set of apiserver resources
func (lw *ListWatch) WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	if lw.WatchFuncWithContext == nil {
		return lw.WatchFunc(options)
	}
	return lw.WatchFuncWithContext(ctx, options)
}

// ToListerWithContext returns l itself when it already implements
// ListerWithContext, otherwise an adapter that drops the context.
func ToListerWithContext(l Lister) ListerWithContext {
	if withContext, ok := l.(ListerWithContext); ok {
		return withContext
	}
	return contextFreeLister{lister: l}
}

// ToWatcherWithContext returns w itself when it already implements
// WatcherWithContext, otherwise an adapter that drops the context.
func ToWatcherWithContext(w Watcher) WatcherWithContext {
	if withContext, ok := w.(WatcherWithContext); ok {
		return withContext
	}
	return contextFreeWatcher{watcher: w}
}

// ToListerWatcherWithContext returns lw itself when it already implements
// ListerWatcherWithContext, otherwise an adapter whose methods drop the
// context and call the context-free ones.
func ToListerWatcherWithContext(lw ListerWatcher) ListerWatcherWithContext {
	if withContext, ok := lw.(ListerWatcherWithContext); ok {
		return withContext
	}
	return contextFreeListerWatcher{
		contextFreeLister:  contextFreeLister{lister: lw},
		contextFreeWatcher: contextFreeWatcher{watcher: lw},
	}
}

// contextFreeLister adapts a Lister to ListerWithContext by ignoring the context.
type contextFreeLister struct {
	// lister receives every call.
	lister Lister
}

// ListWithContext calls List, dropping ctx.
func (a contextFreeLister) ListWithContext(_ context.Context, options metav1.ListOptions) (runtime.Object, error) {
	return a.lister.List(options)
}

// contextFreeWatcher adapts a Watcher to WatcherWithContext by ignoring the context.
type contextFreeWatcher struct {
	// watcher receives every call.
	watcher Watcher
}

// WatchWithContext calls Watch, dropping ctx.
func (a contextFreeWatcher) WatchWithContext(_ context.Context, options metav1.ListOptions) (watch.Interface, error) {
	return a.watcher.Watch(options)
}

// contextFreeListerWatcher adapts a ListerWatcher to ListerWatcherWithContext.
type contextFreeListerWatcher struct {
	contextFreeLister
	contextFreeWatcher
}

// ToListWatcherWithWatchListSemantics returns a ListerWatcher that knows whether the provided client explicitly
// does NOT support the WatchList semantics. This allows Reflectors to adapt their behavior based on client capabilities.
func ToListWatcherWithWatchListSemantics(lw *ListWatch, client any) ListerWatcher {
	return &watchListAwareListWatch{
		ListWatch:       lw,
		clientRefusesIt: watchlist.DoesClientNotSupportWatchListSemantics(client),
	}
}

// watchListAwareListWatch is a ListWatch that also answers the
// util/watchlist capability question for the client it was built from. It is
// immutable after construction.
type watchListAwareListWatch struct {
	*ListWatch
	// clientRefusesIt is true when the client explicitly does not support
	// WatchList semantics.
	clientRefusesIt bool
}

// IsWatchListSemanticsUnSupported reports whether the underlying client
// explicitly does not support WatchList semantics (see util/watchlist).
func (w *watchListAwareListWatch) IsWatchListSemanticsUnSupported() bool {
	return w.clientRefusesIt
}
