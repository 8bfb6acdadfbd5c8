package cache

import (
	"context"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/watchlist"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	restclient "k8s.io/client-go/rest"
)

// This file holds the source side of the Reflector: the interfaces a
// Reflector lists and watches through, the ListWatch function bundle, the
// adapters that lift context-free implementations to the context-aware
// interfaces, and the REST-client based constructors.

// The source interfaces. A Reflector reads through ListerWatcherWithContext;
// the context-free forms are lifted to it by ToListerWatcherWithContext.
type (
	// ListerWatcherWithContext is ListerWatcher with contexts.
	ListerWatcherWithContext interface {
		WatcherWithContext
		ListerWithContext
	}

	// ListerWatcher can both list a collection and watch it: the source a
	// Reflector reads. Implementations should also implement
	// ListerWatcherWithContext.
	ListerWatcher interface {
		Watcher
		Lister
	}

	// ListerWithContext is Lister with a context for cancellation and logging.
	ListerWithContext interface {
		// ListWithContext returns a list object; the Reflector takes its
		// items as the snapshot and its resource version as the point to
		// watch from.
		ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error)
	}

	// WatcherWithContext is Watcher with a context for cancellation and logging.
	WatcherWithContext interface {
		// WatchWithContext opens a stream starting at
		// options.ResourceVersion. When it fails it cleans up after itself
		// (stopping any watch it created), so the caller can drop the result.
		WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error)
	}

	// Lister fetches the complete current state of a collection.
	// Implementations should also implement ListerWithContext.
	Lister interface {
		// List returns a list object; the Reflector takes its items as the
		// snapshot and its resource version as the point to watch from.
		//
		// Deprecated: use ListerWithContext.ListWithContext instead.
		List(options metav1.ListOptions) (runtime.Object, error)
	}

	// Watcher opens a stream of changes to a collection.
	// Implementations should also implement WatcherWithContext.
	Watcher interface {
		// Watch opens a stream starting at options.ResourceVersion. When it
		// fails it cleans up after itself (stopping any watch it created),
		// so the caller can drop the result.
		//
		// Deprecated: use WatcherWithContext.WatchWithContext instead.
		Watch(options metav1.ListOptions) (watch.Interface, error)
	}
)

// The four function types a ListWatch is assembled from.
type (
	// ListWithContextFunc lists a collection.
	ListWithContextFunc func(ctx context.Context, options metav1.ListOptions) (runtime.Object, error)
	// WatchFuncWithContext watches a collection.
	WatchFuncWithContext func(ctx context.Context, options metav1.ListOptions) (watch.Interface, error)

	// ListFunc lists a collection without a context.
	//
	// Deprecated: use ListWithContextFunc instead.
	ListFunc func(options metav1.ListOptions) (runtime.Object, error)
	// WatchFunc watches a collection without a context.
	//
	// Deprecated: use WatchFuncWithContext instead.
	WatchFunc func(options metav1.ListOptions) (watch.Interface, error)
)

// ListWatch bundles list and watch functions into a ListerWatcher (and a
// ListerWatcherWithContext), the usual source handed to NewReflector.
//
// Set a list function and a watch function, in either flavour; the context
// flavour is the one to prefer. Each method calls the function of its own
// flavour when set and the other one otherwise; with neither set it panics
// with a nil function call. (The names ListWithContextFunc and
// WatchFuncWithContext are inconsistent for historical reasons.) ListWatch
// holds no state of its own and is as safe for concurrent use as its
// functions.
type ListWatch struct {
	ListFunc             ListFunc             // Deprecated: use ListWithContextFunc.
	WatchFunc            WatchFunc            // Deprecated: use WatchFuncWithContext.
	ListWithContextFunc  ListWithContextFunc  // lists with the caller's context
	WatchFuncWithContext WatchFuncWithContext // watches with the caller's context
	DisableChunking      bool                 // asks for unpaged lists; kept for compatibility, the Reflector ignores it
}

// List calls ListFunc, or ListWithContextFunc with a background context.
//
// Deprecated: use ListWatchWithContext.ListWithContext instead.
func (lw *ListWatch) List(options metav1.ListOptions) (runtime.Object, error) {
	if lw.ListFunc == nil {
		return lw.ListWithContextFunc(context.Background(), options)
	}
	return lw.ListFunc(options)
}

// ListWatch satisfies both source interfaces.
var _ ListerWatcherWithContext = (*ListWatch)(nil)

// ListWithContext calls ListWithContextFunc, or ListFunc without ctx.
func (lw *ListWatch) ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
	if lw.ListWithContextFunc == nil {
		return lw.ListFunc(options)
	}
	return lw.ListWithContextFunc(ctx, options)
}

// Watch calls WatchFunc, or WatchFuncWithContext with a background context.
//
// Deprecated: use ListWatchWithContext.WatchWithContext instead.
func (lw *ListWatch) Watch(options metav1.ListOptions) (watch.Interface, error) {
	if lw.WatchFunc == nil {
		return lw.WatchFuncWithContext(context.Background(), options)
	}
	return lw.WatchFunc(options)
}

// WatchWithContext calls WatchFuncWithContext, or WatchFunc without ctx.
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
	return listIgnoringContext(l.List)
}

// ToWatcherWithContext returns w itself when it already implements
// WatcherWithContext, otherwise an adapter that drops the context.
func ToWatcherWithContext(w Watcher) WatcherWithContext {
	if withContext, ok := w.(WatcherWithContext); ok {
		return withContext
	}
	return watchIgnoringContext(w.Watch)
}

// ToListerWatcherWithContext returns lw itself when it already implements
// ListerWatcherWithContext, otherwise an adapter whose methods drop the
// context and call the context-free ones.
func ToListerWatcherWithContext(lw ListerWatcher) ListerWatcherWithContext {
	if withContext, ok := lw.(ListerWatcherWithContext); ok {
		return withContext
	}
	return listWatchIgnoringContext{listIgnoringContext(lw.List), watchIgnoringContext(lw.Watch)}
}

// listIgnoringContext is a context-free list method usable as a
// ListerWithContext.
type listIgnoringContext func(options metav1.ListOptions) (runtime.Object, error)

// ListWithContext lists, ignoring the context.
func (list listIgnoringContext) ListWithContext(_ context.Context, options metav1.ListOptions) (runtime.Object, error) {
	return list(options)
}

// watchIgnoringContext is a context-free watch method usable as a
// WatcherWithContext.
type watchIgnoringContext func(options metav1.ListOptions) (watch.Interface, error)

// WatchWithContext watches, ignoring the context.
func (open watchIgnoringContext) WatchWithContext(_ context.Context, options metav1.ListOptions) (watch.Interface, error) {
	return open(options)
}

// listWatchIgnoringContext pairs the two adapters into a
// ListerWatcherWithContext.
type listWatchIgnoringContext struct {
	listIgnoringContext
	watchIgnoringContext
}

// Getter is the part of a REST client that NewListWatchFromClient needs:
// building GET requests.
type Getter interface {
	Get() *restclient.Request
}

// NewListWatchFromClient returns a ListWatch over resource in namespace
// (metav1.NamespaceAll for every namespace) through client c, restricted by
// fieldSelector, which replaces any field selector of the caller's options.
// All four function fields are set, so context-free callers keep working.
// The selector is rendered on every request, so a nil fieldSelector (like a
// nil c) panics on the first List or Watch, not here.
func NewListWatchFromClient(c Getter, resource string, namespace string, fieldSelector fields.Selector) *ListWatch {
	return NewFilteredListWatchFromClient(c, resource, namespace, func(options *metav1.ListOptions) {
		options.FieldSelector = fieldSelector.String()
	})
}

// NewFilteredListWatchFromClient returns a ListWatch over resource in
// namespace through client c. Before every request optionsModifier may
// adjust the options, e.g. to set label or field selectors. All four
// function fields are set, so context-free callers keep working.
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

// ToListWatcherWithWatchListSemantics wraps lw so that it answers, for
// k8s.io/client-go/util/watchlist, whether client refuses WatchList
// semantics (fake clientsets do). A Reflector built on the result then lists
// instead of streaming when the client refuses.
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
