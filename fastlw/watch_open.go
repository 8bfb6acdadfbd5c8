package fastlw

import (
	"context"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/watch"
)

// openWatch opens the watch stream through the client and returns a
// StreamWatcher (apimachinery's own) over the ordered parallel decoder. A
// serializer that has no stream serializer for any media type it reads is
// served by the plain path from the start. An error opening the stream is
// returned as the plain path returns it; a connection closed before the
// response (a probable EOF or a timeout), which Request.Watch retries, is
// retried by Request.Watch (reopenWatchOnPlainPath).
func (lw *ListerWatcher) openWatch(ctx context.Context, sent metav1.ListOptions) (watch.Interface, error) {
	if !lw.streamsAny() {
		return lw.request(sent).Watch(ctx)
	}
	body, err := lw.request(sent).Stream(ctx)
	if err != nil {
		if utilnet.IsProbableEOF(err) || utilnet.IsTimeout(err) {
			return lw.reopenWatchOnPlainPath(ctx, sent)
		}
		return nil, err
	}
	// The relayed plain watch opens under a context the stream's Close
	// cancels, so that Stop never waits for a server that does not answer.
	relayCtx, cancelRelay := context.WithCancel(ctx)
	plain := func() (watch.Interface, error) { return lw.request(sent).Watch(relayCtx) }
	stream := newOrderedStream(body, lw.streamFormat, plain, lw.cfg.Workers, lw.cfg.MaxInFlight, lw.cfg.Transform)
	stream.cancelRelay = cancelRelay
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

// streamFormat returns how to read a stream that starts with first, by the
// format of its first byte: '{' or whitespace is JSON, a zero is protobuf
// (a length prefix under 16 MiB), 0xd9 is CBOR (its self-describing tag);
// false when the byte names none, or the serializer has no stream
// serializer for it.
func (lw *ListerWatcher) streamFormat(first byte) (streamDecoding, bool) {
	var mediaType string
	switch first {
	case '{', ' ', '\t', '\r', '\n':
		mediaType = runtime.ContentTypeJSON
	case 0x00:
		mediaType = runtime.ContentTypeProtobuf
	case 0xd9:
		mediaType = runtime.ContentTypeCBOR
	default:
		return streamDecoding{}, false
	}
	info, ok := runtime.SerializerInfoForMediaType(lw.cfg.Serializer.SupportedMediaTypes(), mediaType)
	if !ok || info.StreamSerializer == nil || info.Serializer == nil {
		return streamDecoding{}, false
	}
	decoding := streamDecoding{
		framer:   info.StreamSerializer.Framer,
		events:   info.StreamSerializer.Serializer,
		embedded: lw.cfg.Serializer.DecoderToVersion(info.Serializer, lw.cfg.Client.APIVersion()),
	}
	if fast, ok := fastJSONDecoder(info); ok {
		decoding.fastEmbedded = lw.cfg.Serializer.DecoderToVersion(fast, lw.cfg.Client.APIVersion())
	}
	return decoding, true
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
