package fastlw

import (
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
)

// Less decode garbage: fastlw reuses the buffers it decodes from, a watch
// stream's frames (JSON or protobuf) and a list page's chunks, once the
// decode that read one has returned, and decodes a typed chunk's items
// straight into the page's Items slice (decodeChunk). That is safe only for a decoder that keeps none of its
// input in what it returns (copiesInput): client-go's scheme codecs and the
// metadata client's, whose typed objects copy strings, raw extensions and
// byte fields out of the input. Any other decoder gets a new buffer for
// every frame and chunk, as before. A stream keeps at most MaxInFlight
// free frame buffers (the bound it already has on frames held), and only
// while it runs: a smaller free list drops most buffers, because the
// workers free them in bursts while the reader waits for the consumer.
// Chunk buffers wait between pages in a sync.Pool, which the garbage
// collector empties. Pinned by
// reused_buffers_decode_alike_test.go (a buffer overwritten after its
// decode leaves the decoded objects as a fresh decode gives them).

// maxReusedBuffer bounds a buffer kept for reuse: a larger one (a frame or
// chunk far beyond the usual) is left to the garbage collector.
const maxReusedBuffer = 4 << 20

// inputCopyingSerializers are the serializers fastlw knows to copy their
// input: those of JSON and protobuf (and their watch streams) of client-go's
// scheme codecs and of the metadata client's, and the scanning JSON decoder
// over client-go's scheme.
var inputCopyingSerializers = func() []runtime.Decoder {
	known := []runtime.Decoder{scanningClientsetJSON}
	for _, codecs := range []runtime.NegotiatedSerializer{ClientsetSerializer(), MetadataSerializer()} {
		for _, info := range codecs.SupportedMediaTypes() {
			if info.MediaType != runtime.ContentTypeJSON && info.MediaType != runtime.ContentTypeProtobuf {
				continue
			}
			known = append(known, info.Serializer)
			if info.StreamSerializer != nil {
				known = append(known, info.StreamSerializer.Serializer)
			}
		}
	}
	return known
}()

// copiesInput reports whether the objects d decodes hold none of the bytes
// they were decoded from, so that the buffer may be reused once Decode
// returned: d is what a codec factory without conversion makes of one of
// inputCopyingSerializers (runtime.WithoutVersionDecoder over it).
func copiesInput(d runtime.Decoder) bool {
	wrapped, ok := d.(runtime.WithoutVersionDecoder)
	return ok && knownToCopyInput(wrapped.Decoder)
}

// knownToCopyInput reports whether d is one of inputCopyingSerializers.
func knownToCopyInput(d runtime.Decoder) bool {
	for _, known := range inputCopyingSerializers {
		if d == known {
			return true
		}
	}
	return false
}

// chunkBuffers holds list chunk buffers between pages (*[]byte); the
// garbage collector empties it, so an idle ListerWatcher keeps none.
var chunkBuffers sync.Pool

// takeChunkBuffer returns an empty buffer for a list chunk.
func takeChunkBuffer() []byte {
	if buf, ok := chunkBuffers.Get().(*[]byte); ok {
		return (*buf)[:0]
	}
	return nil
}

// giveChunkBuffer keeps buf for another chunk, unless it is too large.
func giveChunkBuffer(buf []byte) {
	if cap(buf) > 0 && cap(buf) <= maxReusedBuffer {
		chunkBuffers.Put(&buf)
	}
}

// takeFrame returns an empty buffer from free for a new frame; nil when it
// has none.
func takeFrame(free chan []byte) []byte {
	select {
	case buf := <-free:
		return buf[:0]
	default:
		return nil
	}
}

// recycleFrame gives a decoded frame's buffer back to free (a nil free, or
// a full one, drops it).
func recycleFrame(free chan<- []byte, frame []byte) {
	if cap(frame) == 0 || cap(frame) > maxReusedBuffer {
		return
	}
	select {
	case free <- frame:
	default:
	}
}
