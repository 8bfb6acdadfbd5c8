package fastlw

import (
	"bufio"
	"errors"
	"io"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/watch"
	restwatch "k8s.io/client-go/rest/watch"
)

// errStreamClosed ends the decoding of a stream closed by its consumer.
var errStreamClosed = errors.New("fastlw: watch stream closed")

// orderedStream is a watch.Decoder that decodes a watch stream's frames on
// worker goroutines and returns them in stream order. One reader goroutine
// splits the body into frames with the serializer's framer; a frame holds
// one of maxInFlight tokens from before it is read until Decode returns it,
// so at most maxInFlight frames (raw or decoded) are held.
//
// The channels are the synchronisation: pending carries the frames in
// stream order (closed by the reader when it ends, after it set endErr),
// work carries them to the workers, each frame's done is closed by the
// worker that decoded it. endErr is written by the reader before it closes
// pending and read by Decode after pending is closed.
type orderedStream struct {
	body     io.ReadCloser
	decoding streamDecoding
	workers  int
	// transform is the early pass the workers apply (Config.Transform).
	transform earlyTransform

	tokens  chan struct{}
	pending chan *frameSlot
	work    chan *frameSlot
	endErr  error

	stop     chan struct{} // closed by Close
	stopOnce sync.Once
	running  sync.WaitGroup // the reader and the workers
}

// frameSlot is one frame: its bytes until a worker decodes it, then the
// event (or error). The worker writes the fields and then closes done.
type frameSlot struct {
	data []byte
	// unchecked marks a frame cut by jsonFrames, not yet known to be JSON.
	unchecked bool
	done      chan struct{}
	eventType watch.EventType
	object    runtime.Object
	err       error
}

// newOrderedStream starts reading body, split and decoded as decoding
// says; the workers apply transform to the objects they decode.
func newOrderedStream(body io.ReadCloser, decoding streamDecoding, workers, maxInFlight int, transform earlyTransform) *orderedStream {
	s := &orderedStream{
		body: body, decoding: decoding, workers: max(1, min(workers, maxInFlight)),
		transform: transform,
		tokens:    make(chan struct{}, maxInFlight),
		pending:   make(chan *frameSlot, maxInFlight),
		work:      make(chan *frameSlot, maxInFlight),
		stop:      make(chan struct{}),
	}
	s.running.Add(1)
	go s.read()
	return s
}

// Decode returns the next event in stream order, or the error that ended
// the stream (io.EOF at its end) once every frame before it was returned.
func (s *orderedStream) Decode() (watch.EventType, runtime.Object, error) {
	slot, ok := <-s.pending
	if !ok {
		return "", nil, s.endErr
	}
	<-slot.done
	<-s.tokens
	return slot.eventType, slot.object, slot.err
}

// Close closes the body, ends the reader and the workers, and waits for
// them; an outstanding Decode returns an error. Safe to call more than once.
func (s *orderedStream) Close() {
	s.stopOnce.Do(func() {
		close(s.stop)
		_ = s.body.Close()
	})
	s.running.Wait()
}

// read splits the stream into frames until it ends or the stream is
// closed; it is the only writer of pending.
func (s *orderedStream) read() {
	defer s.running.Done()
	defer close(s.pending)
	defer close(s.work)
	decoding := s.decoding
	var free chan []byte // decoded frames' buffers, for new frames (reused_buffers.go)
	if decoding.copiesFrames() {
		free = make(chan []byte, cap(s.tokens))
	}
	s.running.Add(s.workers)
	for range s.workers {
		go s.decodeFrames(decoding, free)
	}
	buffered := bufio.NewReaderSize(s.body, 64<<10)
	next := frameSource(decoding.framer, buffered, s.body, free)
	for s.takeToken() {
		data, unchecked, err := next()
		if err != nil {
			<-s.tokens
			s.endErr = err
			return
		}
		slot := &frameSlot{data: data, unchecked: unchecked, done: make(chan struct{})}
		s.pending <- slot
		s.work <- slot
	}
	s.endErr = s.closedError()
}

// frameSource returns the function that cuts the next frame of the stream
// read through buffered: jsonFrames for apimachinery's JSON framer (its
// frames unchecked), the framer itself under streaming.Decoder otherwise;
// either takes the frames' buffers from free when it has one.
func frameSource(framer runtime.Framer, buffered *bufio.Reader, body io.Closer, free chan []byte) func() ([]byte, bool, error) {
	if sameJSONFramer(framer) {
		return (&jsonFrames{in: buffered, closer: body, framer: framer, sizeHint: 4096, free: free}).next
	}
	frames := streaming.NewDecoder(framer.NewFrameReader(bufferedBody{buffered, body}), frameCapture{free: free})
	return func() ([]byte, bool, error) {
		obj, _, err := frames.Decode(nil, nil)
		if err != nil {
			return nil, false, err
		}
		return obj.(*rawFrame).data, false, nil
	}
}

// closedError returns the error a read of the closed body gives (what the
// plain path's decoder would meet), errStreamClosed if it gives none.
func (s *orderedStream) closedError() error {
	if _, err := s.body.Read(make([]byte, 1)); err != nil {
		return err
	}
	return errStreamClosed
}

// takeToken waits for room for one more frame; false once the stream is
// closed.
func (s *orderedStream) takeToken() bool {
	select {
	case s.tokens <- struct{}{}:
		return true
	case <-s.stop:
		return false
	}
}

// decodeFrames decodes frames until work is closed, giving each frame's
// buffer to free once decoded; after Close it only marks them closed.
func (s *orderedStream) decodeFrames(decoding streamDecoding, free chan<- []byte) {
	defer s.running.Done()
	for slot := range s.work {
		select {
		case <-s.stop:
			slot.err = errStreamClosed
		default:
			slot.eventType, slot.object, slot.err = decoding.decode(slot.data, slot.unchecked)
			if slot.err == nil {
				slot.object = s.transform.event(slot.eventType, slot.object)
			}
		}
		recycleFrame(free, slot.data)
		slot.data = nil
		close(slot.done)
	}
}

// decode decodes one frame as the plain path decodes it: client-go's watch
// event decoder over this one frame, or, for a JSON frame of the scheme
// codecs that decodeEventFast serves, the same answer without decoding
// the envelope or interpreting the object with encoding/json.
//
// An unchecked frame (cut by jsonFrames) that the fast decoding does not
// serve is first checked: invalid JSON gives the error the plain framer
// would have ended the stream with at this frame. (A fast decoding that
// succeeds proves the frame valid: its envelope was scanned strictly and
// its object checked whole by the serializer's unmarshal.)
func (d streamDecoding) decode(frame []byte, unchecked bool) (watch.EventType, runtime.Object, error) {
	if d.fastEmbedded != nil {
		if eventType, obj, ok := decodeEventFast(frame, d.fastEmbedded); ok {
			return eventType, obj, nil
		}
	}
	if unchecked {
		if err := checkedFrameError(frame); err != nil {
			return "", nil, err
		}
	}
	return restwatch.NewDecoder(singleFrame{frame: frame, decoder: d.events}, d.embedded).Decode()
}

// copiesFrames reports whether a frame's buffer may be reused once decoded:
// the events decoder and the object decoders all copy their input
// (client-go's scheme codecs, the metadata client's; see copiesInput).
func (d streamDecoding) copiesFrames() bool {
	return knownToCopyInput(d.events) && copiesInput(d.embedded) && (d.fastEmbedded == nil || copiesInput(d.fastEmbedded))
}

// singleFrame is a streaming.Decoder over one frame that was already read.
type singleFrame struct {
	frame   []byte
	decoder runtime.Decoder
}

// Decode decodes the frame.
func (f singleFrame) Decode(defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	return f.decoder.Decode(f.frame, defaults, into)
}

// Close has nothing to close.
func (singleFrame) Close() error { return nil }

// bufferedBody reads through the framing buffer and closes the body.
type bufferedBody struct {
	*bufio.Reader
	io.Closer
}

// frameCapture is a runtime.Decoder that "decodes" a frame into a copy of
// its bytes, so that streaming.Decoder does the framing alone. The copy
// goes into a buffer from free when it has one (nil: none).
type frameCapture struct{ free chan []byte }

// Decode copies data (the streaming decoder reuses its buffer).
func (c frameCapture) Decode(data []byte, _ *schema.GroupVersionKind, _ runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	return &rawFrame{data: append(takeFrame(c.free), data...)}, nil, nil
}

// rawFrame carries one frame's bytes out of the streaming decoder.
type rawFrame struct{ data []byte }

func (f *rawFrame) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }
func (f *rawFrame) DeepCopyObject() runtime.Object {
	return &rawFrame{data: append([]byte(nil), f.data...)}
}
