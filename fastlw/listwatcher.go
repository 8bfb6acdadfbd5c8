package fastlw

import (
	"context"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	cache "github.com/kcache-go/cache"
)

// ListerWatcher lists and watches one resource through a REST client,
// decoding off the critical path (see the package documentation). It is a
// cache.ListerWatcher and a cache.ListerWatcherWithContext, and is safe for
// concurrent use; concurrent paged lists only cost each other the prefetch.
type ListerWatcher struct {
	// cfg is the configuration with its defaults filled in; immutable.
	cfg Config
	// siblings builds the watches' siblings of cfg.Client when it is a
	// *rest.RESTClient, nil otherwise; set by New, never after.
	siblings *siblingSource

	mu sync.Mutex
	// next is the page requested ahead of the consumer's next List call, or
	// nil. Guarded by mu.
	next *prefetch
}

// ListerWatcher satisfies kcache's source interfaces.
var (
	_ cache.ListerWatcher            = (*ListerWatcher)(nil)
	_ cache.ListerWatcherWithContext = (*ListerWatcher)(nil)
)

// List lists with a background context.
//
// Deprecated: use ListWithContext.
func (lw *ListerWatcher) List(options metav1.ListOptions) (runtime.Object, error) {
	return lw.ListWithContext(context.Background(), options)
}

// Watch watches with a background context.
//
// Deprecated: use WatchWithContext.
func (lw *ListerWatcher) Watch(options metav1.ListOptions) (watch.Interface, error) {
	return lw.WatchWithContext(context.Background(), options)
}

// ListWithContext performs one GET of the collection with the (modified)
// options and returns the decoded list, exactly what the plain path
// (Request.Do(ctx).Get(), or Config.PlainList) returns: the same object, or
// the same error. A JSON page's items decode while it arrives (fetch).
// When the page carries a continue token, the page the pager asks for next (the
// same options with that token and no resource version) is requested while
// this page's items decode; the next call with those options takes it.
func (lw *ListerWatcher) ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
	sent := lw.modified(options)
	answer, ok := lw.takePrefetched(ctx, sent)
	if !ok {
		answer = lw.fetch(ctx, sent)
	}
	return lw.decodePage(ctx, options, answer)
}

// WatchWithContext opens a watch with the (modified) options. Its events
// are those of the plain path (Request.Watch), in stream order; the frames
// decode on the workers. A page requested ahead is dropped: a watch ends
// the list.
func (lw *ListerWatcher) WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	lw.dropPrefetched()
	options.Watch = true
	return lw.openWatch(ctx, lw.modified(options))
}

// modified returns options after the configured modifier.
func (lw *ListerWatcher) modified(options metav1.ListOptions) metav1.ListOptions {
	lw.cfg.OptionsModifier(&options)
	return options
}

// request builds, on client (Config.Client, or its siblingClient), the GET
// of the collection with the options sent as query parameters, as
// cache.NewListWatchFromClient builds it, or as a typed client does with
// PreferProtobuf and TimeoutFromOptions, or as the dynamic and metadata
// clients do with AbsPath, the Accept headers and WatchTimeoutFromOptions.
func (lw *ListerWatcher) request(client rest.Interface, sent metav1.ListOptions) *rest.Request {
	req := client.Get().
		UseProtobufAsDefaultIfPreferred(lw.cfg.PreferProtobuf)
	if accept := lw.accept(sent.Watch); accept != "" {
		req = req.SetHeader("Accept", accept)
	}
	if lw.cfg.AbsPath != "" {
		req = req.AbsPath(lw.absPathSegments()...)
	} else {
		req = req.Namespace(lw.cfg.Namespace).Resource(lw.cfg.Resource)
	}
	req = req.VersionedParams(&sent, metav1.ParameterCodec)
	timeoutFromOptions := lw.cfg.TimeoutFromOptions || (sent.Watch && lw.cfg.WatchTimeoutFromOptions)
	if timeoutFromOptions && sent.TimeoutSeconds != nil {
		req = req.Timeout(time.Duration(*sent.TimeoutSeconds) * time.Second)
	}
	return req
}

// absPathSegments returns the path of the collection under AbsPath, as
// the dynamic and metadata clients address it: the namespace's segments
// (none for all namespaces) then the resource. The request then names no
// resource of its own, as theirs do not (an error the server sends without
// a Status reads the same).
func (lw *ListerWatcher) absPathSegments() []string {
	segments := []string{lw.cfg.AbsPath}
	if lw.cfg.Namespace != "" {
		segments = append(segments, "namespaces", lw.cfg.Namespace)
	}
	return append(segments, lw.cfg.Resource)
}

// accept returns the configured Accept header of a watch (watching) or a
// list request; "" leaves Client's.
func (lw *ListerWatcher) accept(watching bool) string {
	if watching {
		return lw.cfg.WatchAccept
	}
	return lw.cfg.ListAccept
}
