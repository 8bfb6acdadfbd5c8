package fastlw

import (
	"context"
	"mime"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// openWatch opens the watch with Request.Watch, so that every attempt,
// retry, pause, rate-limiter wait, warning and error, and the answer once
// the retries run out, are client-go's own; and returns, when the answer
// Request.Watch accepted is one fastlw reads (200 OK, in a media type, its
// Content-Type's parameters ignored as client-go's negotiation ignores
// them, the serializer has a stream serializer for), a StreamWatcher
// (apimachinery's own) over the ordered parallel decoder instead of
// Request.Watch's. The request goes through a siblingClient of the
// caller's client, whose recorder keeps that answer's body for fastlw and
// hands Request.Watch a stand-in (see responseRecorder); whatever
// Request.Watch makes of any other answer is returned as it is, and a body
// it leaves unread and open (an answer it refuses) is closed.
//
// The plain path serves the whole watch when the serializer has no stream
// serializer at all, or when the response cannot be seen: the client is
// not a *rest.RESTClient, or no siblingClient can be built for it (see
// siblingSource).
func (lw *ListerWatcher) openWatch(ctx context.Context, sent metav1.ListOptions) (watch.Interface, error) {
	if lw.siblings == nil || !lw.streamsAny() {
		return lw.request(lw.cfg.Client, sent).Watch(ctx)
	}
	callerDeadline, _ := ctx.Deadline()
	sibling, ok := lw.siblings.sibling(func(resp *http.Response) bool {
		_, ok := lw.streamInfoFor(resp)
		return ok
	}, callerDeadline)
	if !ok {
		return lw.request(lw.cfg.Client, sent).Watch(ctx)
	}
	w, err := sibling.prepare(lw.request(sibling.client, sent)).Watch(ctx)
	served := sibling.recorder.takeServed()
	sibling.recorder.closeUnread(served == nil && err == nil)
	if served == nil {
		return w, err
	}
	if err != nil {
		// Request.Watch refused the answer (the client cannot decode its
		// media type): the plain path's error.
		_ = served.Body.Close()
		return nil, err
	}
	// Request.Watch's watch over the stand-in body ends when the real
	// body is closed (see keptBody).
	served.Body.(*keptBody).onClose = w.Stop
	info, _ := lw.streamInfoFor(served)
	stream := newOrderedStream(served.Body, lw.streamDecoding(info), lw.cfg.Workers, lw.cfg.MaxInFlight, lw.cfg.Transform)
	reporter := apierrors.NewClientErrorReporter(http.StatusInternalServerError, http.MethodGet, "ClientWatchDecoding")
	return watch.NewStreamWatcher(stream, reporter), nil
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
