package fastlw

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
)

// maxFastFrame is the largest frame jsonFrames cuts itself; a larger one
// (streaming.Decoder refuses frames over 16 MiB) goes to the plain framer.
const maxFastFrame = 16<<20 - 1

// jsonFrames cuts a JSON watch stream into frames as apimachinery's JSON
// framer under streaming.Decoder does (one top-level value a frame,
// JSON whitespace between them), but with one pass of fastlw's JSON
// scanner (jsonScan, fed each buffered chunk once) instead of
// encoding/json's two scans. It does not validate: a frame it cuts is
// "unchecked" and must be checked by whoever decodes it
// (checkedFrameError). Anything else hands the rest of the stream, from the
// start of the value being cut, to the plain framer: a value that is not an
// object, brackets the scanner finds invalid (mismatched, too deep), a read
// error or the end of the stream in the middle of a value, a frame of
// maxFastFrame bytes or more. From then on every frame and error is the
// plain framer's.
//
// Only the reader goroutine uses a jsonFrames.
type jsonFrames struct {
	in     *bufio.Reader
	closer io.Closer
	framer runtime.Framer
	// plain is the plain framing of the rest of the stream, once handed over.
	plain streaming.Decoder
	// sizeHint is the capacity to give the next frame (the last one's size).
	sizeHint int
	// free holds the buffers of frames already decoded, for new frames to
	// reuse (see reused_buffers.go); nil means none.
	free chan []byte
}

// newFrame returns an empty buffer for the next frame: a free one, or a new
// one of sizeHint bytes.
func (f *jsonFrames) newFrame() []byte {
	if buf := takeFrame(f.free); buf != nil {
		return buf
	}
	return make([]byte, 0, f.sizeHint)
}

// next returns the next frame and whether it is unchecked (cut by the
// bracket scan, not validated), or the error that ends the stream.
func (f *jsonFrames) next() (frame []byte, unchecked bool, err error) {
	if f.plain != nil {
		obj, _, err := f.plain.Decode(nil, nil)
		if err != nil {
			return nil, false, err
		}
		return obj.(*rawFrame).data, false, nil
	}
	if err := f.skipSpace(); err != nil {
		return f.handOver(nil, errorReader{err})
	}
	frame = f.newFrame()
	var scan jsonScan
	for {
		if f.in.Buffered() == 0 {
			if _, err := f.in.Peek(1); err != nil {
				return f.handOver(frame, errorReader{err})
			}
		}
		chunk, _ := f.in.Peek(f.in.Buffered())
		if len(frame) == 0 && chunk[0] != '{' {
			return f.handOver(frame, f.in)
		}
		n, step := scan.feed(chunk)
		frame = append(frame, chunk[:n]...)
		_, _ = f.in.Discard(n)
		switch {
		case step == scanInvalid || len(frame) >= maxFastFrame:
			return f.handOver(frame, f.in)
		case step == scanDone:
			f.sizeHint = len(frame)
			return frame, true, nil
		}
	}
}

// skipSpace drops the JSON whitespace before the next value (the plain
// framer skips it too); an error is the read error that stopped it.
func (f *jsonFrames) skipSpace() error {
	for {
		chunk, err := f.in.Peek(max(1, f.in.Buffered()))
		if len(chunk) == 0 {
			return err
		}
		n := skipSpace(chunk, 0)
		_, _ = f.in.Discard(n)
		if n < len(chunk) {
			return nil
		}
	}
}

// handOver starts the plain framer on prefix (the bytes of the value
// being cut, none of the whitespace before it) followed by rest, and
// returns its first frame.
func (f *jsonFrames) handOver(prefix []byte, rest io.Reader) ([]byte, bool, error) {
	body := bufferedBody{Reader: bufio.NewReader(io.MultiReader(bytes.NewReader(prefix), rest)), Closer: f.closer}
	f.plain = streaming.NewDecoder(f.framer.NewFrameReader(body), frameCapture{free: f.free})
	return f.next()
}

// errorReader returns err on every read, as a failed body keeps failing.
type errorReader struct{ err error }

// Read returns the error.
func (r errorReader) Read([]byte) (int, error) { return 0, r.err }

// checkedFrameError returns, for a frame jsonFrames cut unchecked whose
// fast decoding did not succeed, the error the plain framer would have
// ended the stream with there (nil when the frame is valid JSON, which the
// plain framer would have cut alike). On invalid JSON the frame holds the
// bytes up to and past the first invalid one, so encoding/json meets the
// same error on it alone.
func checkedFrameError(frame []byte) error {
	if json.Valid(frame) {
		return nil
	}
	var raw json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(frame)).Decode(&raw); err != nil {
		return err
	}
	return io.ErrUnexpectedEOF // not reached: an invalid frame does not decode
}
