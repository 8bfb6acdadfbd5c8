package fastlw

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
)

// framedStream is what a framing makes of a stream: its frames, then the
// error that ended it.
type framedStream struct {
	frames [][]byte
	end    string
}

// plainFraming frames body with apimachinery's JSON framer under
// streaming.Decoder, as the reader did before jsonFrames.
func plainFraming(body io.Reader) framedStream {
	frames := streaming.NewDecoder(json.Framer.NewFrameReader(io.NopCloser(body)), frameCapture{})
	var got framedStream
	for {
		obj, _, err := frames.Decode(nil, nil)
		if err != nil {
			got.end = fmt.Sprintf("%T %v", err, err)
			return got
		}
		got.frames = append(got.frames, obj.(*rawFrame).data)
	}
}

// fastFraming frames body with jsonFrames and checks every unchecked frame
// as the decode workers do (the fast decoding aside): an invalid one ends
// the stream with checkedFrameError's error.
func fastFraming(body io.Reader) framedStream {
	frames := &jsonFrames{in: bufio.NewReaderSize(body, 16), closer: io.NopCloser(nil), framer: json.Framer}
	var got framedStream
	for {
		frame, unchecked, err := frames.next()
		if err == nil && unchecked {
			err = checkedFrameError(frame)
		}
		if err != nil {
			got.end = fmt.Sprintf("%T %v", err, err)
			return got
		}
		got.frames = append(got.frames, frame)
	}
}

// errReset is a read error in the middle of a stream.
var errReset = errors.New("connection reset by peer")

// requireSameFraming fails unless both framings cut stream alike, read
// whole, one byte at a time, and cut in the middle by a read error.
func requireSameFraming(t *testing.T, stream []byte) {
	t.Helper()
	readers := map[string]func() io.Reader{
		"whole":    func() io.Reader { return bytes.NewReader(stream) },
		"one byte": func() io.Reader { return iotest.OneByteReader(bytes.NewReader(stream)) },
		"reset cut": func() io.Reader {
			return io.MultiReader(bytes.NewReader(stream[:len(stream)/2]), errorReader{errReset})
		},
	}
	for name, reader := range readers {
		plain, fast := plainFraming(reader()), fastFraming(reader())
		if !reflect.DeepEqual(plain, fast) {
			t.Fatalf("%s: framings differ on %q:\nplain %q\nfast  %q", name, stream, plain, fast)
		}
	}
}

// framingSeeds are streams of every shape the framer meets.
var framingSeeds = []string{
	"{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\"}}\n{\"type\":\"DELETED\",\"object\":{}}\n",
	"  \r\n\t{\"a\":\"}\\\"{[\"}  {\"b\":[1,{\"c\":\"\\\\\"}]}",
	"{\"a\":1}{\"b\":2}", "{\"a\":1} x", "{\"a\":]}\n{\"b\":1}", "{\"a\":[}\n{\"b\":1}", "{\"a\":1",
	"{\"a\":\"cut", "{\"a\":\"x\\", "[1,2]\n{\"a\":1}", "{\"a\":1}\n5 6 \"s\" null", "{\"a\":1}\n\ufeff{}",
	"", "   ", "{}", "{\"a\":\"\xff\"}", "{\"a\":1,}", "{\"a\" 1}", "{\"a\":01}", "{\"a\":1}}",
}

// FuzzJSONFramesCutAStreamAsTheJSONFramerDoes compares the frames and the
// end of arbitrary streams (seeds: realistic pods' events and edge cases).
func FuzzJSONFramesCutAStreamAsTheJSONFramerDoes(f *testing.F) {
	var stream []byte
	for _, pod := range realisticPods(f, 2) {
		stream = append(append(stream, eventFrame("ADDED", pod)...), '\n')
	}
	f.Add(stream)
	for _, seed := range framingSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, stream []byte) {
		requireSameFraming(t, stream)
	})
}

// TestAFrameOver16MiBEndsTheStreamAsTheJSONFramerEndsIt pins the hand-over
// of a frame too large for streaming.Decoder.
func TestAFrameOver16MiBEndsTheStreamAsTheJSONFramerEndsIt(t *testing.T) {
	big := `{"a":1}` + "\n" + `{"b":"` + strings.Repeat("x", 17<<20) + `"}` + "\n" + `{"c":1}`
	plain, fast := plainFraming(strings.NewReader(big)), fastFraming(strings.NewReader(big))
	if !reflect.DeepEqual(plain, fast) {
		t.Fatalf("framings differ: plain %d frames, end %s; fast %d frames, end %s", len(plain.frames), plain.end, len(fast.frames), fast.end)
	}
	if !strings.Contains(plain.end, "maximum allowed size") {
		t.Fatalf("plain end %s, want the object too large error", plain.end)
	}
}
