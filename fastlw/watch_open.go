package fastlw

import (
	"context"
	"io"
	"mime"
	"net/http"
	"sync"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
)

// openWatch opens the watch stream and returns a StreamWatcher
// (apimachinery's own) over the ordered parallel decoder when the answer is
// one fastlw reads: 200 OK, in a media type (its Content-Type, parameters
// ignored, as client-go's negotiation ignores them) the serializer has a
// stream serializer for. Any other 2xx answer is handed, as received, to
// Request.Watch, which makes of it what the plain path makes (an error, or
// its own watch over the answer), without a second request. An error
// opening the stream is returned as the plain path returns it; a
// connection closed before the response (a probable EOF or a timeout),
// which Request.Watch retries, is retried by Request.Watch
// (reopenWatchOnPlainPath).
//
// The plain path serves the whole watch when the serializer has no stream
// serializer at all, or when the response cannot be seen: the client is
// not a *rest.RESTClient, or no siblingClient can be built for it.
func (lw *ListerWatcher) openWatch(ctx context.Context, sent metav1.ListOptions) (watch.Interface, error) {
	rc, ok := lw.cfg.Client.(*rest.RESTClient)
	if !ok || !lw.streamsAny() {
		return lw.request(lw.cfg.Client, sent).Watch(ctx)
	}
	sibling, ok := newSiblingClient(rc, func(resp *http.Response) bool {
		_, ok := lw.streamInfoFor(resp)
		return ok
	})
	if !ok {
		return lw.request(lw.cfg.Client, sent).Watch(ctx)
	}
	req := sibling.prepare(lw.request(sibling.client, sent))
	body, err := req.Throttle(retriesOnly(rc.GetRateLimiter())).Stream(ctx)
	if err != nil {
		if utilnet.IsProbableEOF(err) || utilnet.IsTimeout(err) {
			return lw.reopenWatchOnPlainPath(ctx, sent, sibling.recorder.attempts())
		}
		return nil, err
	}
	resp := sibling.recorder.lastResponse()
	info, ok := lw.streamInfoFor(resp)
	if !ok {
		if resp == nil {
			_ = body.Close()
			return lw.request(lw.cfg.Client, sent).Watch(ctx)
		}
		return lw.replayToPlainWatch(ctx, sibling, sent, resp, body)
	}
	stream := newOrderedStream(body, lw.streamDecoding(info), lw.cfg.Workers, lw.cfg.MaxInFlight, lw.cfg.Transform)
	reporter := apierrors.NewClientErrorReporter(http.StatusInternalServerError, http.MethodGet, "ClientWatchDecoding")
	return watch.NewStreamWatcher(stream, reporter), nil
}

// replayToPlainWatch hands resp, an answer to the watch request sent
// through sibling whose body is body, to Request.Watch as if it had just
// arrived, and returns what Request.Watch makes of it. When that is an
// error, body is closed, exactly once (Request.Watch closes the body of
// some answers it refuses, and leaves that of an answer it cannot decode
// open).
//
// Request.Watch is given ctx without its cancellation or deadline: the
// answer arrived under ctx, so it is client-go's answer even when ctx ended
// since (Request.Watch would otherwise refuse to send the replayed request
// and answer with ctx's error); the body stays the one of the request sent
// under ctx, so a watch over it still ends when ctx does.
func (lw *ListerWatcher) replayToPlainWatch(ctx context.Context, sibling *siblingClient, sent metav1.ListOptions, resp *http.Response, body io.ReadCloser) (watch.Interface, error) {
	body = &closeOnce{ReadCloser: body}
	sibling.recorder.replayNext(resp, body)
	w, err := sibling.prepare(lw.request(sibling.client, sent)).Watch(context.WithoutCancel(ctx))
	if err != nil {
		_ = body.Close()
	}
	return w, err
}

// closeOnce is a body whose first Close closes it; later ones do nothing
// and return nil.
type closeOnce struct {
	io.ReadCloser
	once sync.Once
	err  error
}

// Close closes the body the first time.
func (c *closeOnce) Close() error {
	c.once.Do(func() { c.err = c.ReadCloser.Close() })
	return c.err
}

// streamsAny reports whether the serializer has a stream serializer for any
// media type.
func (lw *ListerWatcher) streamsAny() bool {
	for _, info := range lw.cfg.Serializer.SupportedMediaTypes() {
		if info.StreamSerializer != nil {
			return true
		}
	}
	return false
}

// streamInfoFor returns the serializer that reads the watch answer resp:
// false unless it is a 200 OK whose Content-Type parses to a media type
// the serializer has a stream serializer for (its parameters are ignored,
// as client-go's negotiation of a watch decoder ignores them).
func (lw *ListerWatcher) streamInfoFor(resp *http.Response) (runtime.SerializerInfo, bool) {
	if resp == nil || resp.StatusCode != http.StatusOK {
		return runtime.SerializerInfo{}, false
	}
	mediaType, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil {
		return runtime.SerializerInfo{}, false
	}
	info, ok := runtime.SerializerInfoForMediaType(lw.cfg.Serializer.SupportedMediaTypes(), mediaType)
	if !ok || info.StreamSerializer == nil || info.Serializer == nil {
		return runtime.SerializerInfo{}, false
	}
	return info, true
}

// streamDecoding returns how to read a stream that info serializes.
func (lw *ListerWatcher) streamDecoding(info runtime.SerializerInfo) streamDecoding {
	decoding := streamDecoding{
		framer:   info.StreamSerializer.Framer,
		events:   info.StreamSerializer.Serializer,
		embedded: lw.cfg.Serializer.DecoderToVersion(info.Serializer, lw.cfg.Client.APIVersion()),
	}
	if fast, ok := fastJSONDecoder(info); ok {
		decoding.fastEmbedded = lw.cfg.Serializer.DecoderToVersion(fast, lw.cfg.Client.APIVersion())
	}
	return decoding
}

// streamDecoding is how one watch stream's frames are split and decoded.
type streamDecoding struct {
	framer   runtime.Framer  // splits the stream into frames
	events   runtime.Decoder // decodes a frame into a metav1.WatchEvent
	embedded runtime.Decoder // decodes the event's object
	// fastEmbedded, when set, is embedded finding the kind by a scan
	// (fastJSONDecoder); the frames are JSON and decodeEventFast is tried
	// first.
	fastEmbedded runtime.Decoder
}

// retriesOnly returns limiter for a request whose first attempt is not
// rate limited, as Request.Watch does not limit a watch's first attempt
// but does limit its retries; nil when limiter is nil.
func retriesOnly(limiter flowcontrol.RateLimiter) flowcontrol.RateLimiter {
	if limiter == nil {
		return nil
	}
	return &firstWaitFree{RateLimiter: limiter}
}

// firstWaitFree is a rate limiter whose first Wait returns at once; every
// other call is the wrapped limiter's.
type firstWaitFree struct {
	flowcontrol.RateLimiter
	waited atomic.Bool
}

// Wait returns nil the first time, and waits on the wrapped limiter after.
func (l *firstWaitFree) Wait(ctx context.Context) error {
	if !l.waited.Swap(true) {
		return nil
	}
	return l.RateLimiter.Wait(ctx)
}
