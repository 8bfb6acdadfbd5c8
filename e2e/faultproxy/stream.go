package faultproxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// framer reads one watch event at a time, in its wire form, so that faults
// can strike between events or in the middle of one.
type framer interface {
	// next returns the next event's bytes as they were on the wire.
	next() ([]byte, error)
	// gone returns a 410 ERROR event in the stream's encoding.
	gone(rv string) []byte
}

// newFramer picks the framing of a watch response from its Content-Type:
// length-prefixed protobuf, JSON objects, or (anything else) raw chunks.
func newFramer(contentType string, body io.Reader) framer {
	switch {
	case strings.HasPrefix(contentType, "application/vnd.kubernetes.protobuf"):
		return &protoFramer{r: bufio.NewReader(body)}
	case strings.HasPrefix(contentType, "application/json"):
		return &jsonFramer{d: json.NewDecoder(body)}
	}
	return &rawFramer{r: body}
}

// protoFramer reads the API server's protobuf watch framing: a 4-byte
// big-endian length, then a metav1.WatchEvent.
type protoFramer struct{ r *bufio.Reader }

func (f *protoFramer) next() ([]byte, error) {
	var prefix [4]byte
	if _, err := io.ReadFull(f.r, prefix[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(prefix[:])
	frame := make([]byte, 4+int(n))
	copy(frame, prefix[:])
	if _, err := io.ReadFull(f.r, frame[4:]); err != nil {
		return nil, err
	}
	return frame, nil
}

// protoMagic starts every protobuf-encoded object (runtime.Unknown envelope).
var protoMagic = []byte{0x6b, 0x38, 0x73, 0x00}

func (f *protoFramer) gone(rv string) []byte {
	s := goneStatus(rv)
	status := &metav1.Status{
		Status: metav1.StatusFailure, Reason: metav1.StatusReasonExpired,
		Code: 410, Message: s["message"].(string),
	}
	raw, err := status.Marshal()
	if err != nil {
		panic(err)
	}
	env := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: "v1", Kind: "Status"}, Raw: raw}
	envBytes, err := env.Marshal()
	if err != nil {
		panic(err)
	}
	ev := metav1.WatchEvent{Type: "ERROR", Object: runtime.RawExtension{Raw: append(append([]byte(nil), protoMagic...), envBytes...)}}
	evBytes, err := ev.Marshal()
	if err != nil {
		panic(err)
	}
	out := make([]byte, 4, 4+len(evBytes))
	binary.BigEndian.PutUint32(out, uint32(len(evBytes)))
	return append(out, evBytes...)
}

// jsonFramer reads a stream of JSON watch events.
type jsonFramer struct{ d *json.Decoder }

func (f *jsonFramer) next() ([]byte, error) {
	var raw json.RawMessage
	if err := f.d.Decode(&raw); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, err
	}
	return append(raw, '\n'), nil
}

func (f *jsonFramer) gone(rv string) []byte {
	b, _ := json.Marshal(map[string]any{"type": "ERROR", "object": goneStatus(rv)})
	return append(b, '\n')
}

// rawFramer passes an unknown encoding through in read-sized chunks.
type rawFramer struct{ r io.Reader }

func (f *rawFramer) next() ([]byte, error) {
	buf := make([]byte, 32<<10)
	n, err := f.r.Read(buf)
	if n > 0 {
		return buf[:n], nil
	}
	return nil, err
}

func (f *rawFramer) gone(string) []byte { return nil }

// isInitialEventsEnd reports whether an event is the bookmark that ends a
// WatchList stream's initial events: a BOOKMARK annotated
// k8s.io/initial-events-end. Both strings appear verbatim in the JSON and
// in the protobuf encoding (protobuf strings are raw bytes).
func isInitialEventsEnd(frame []byte) bool {
	return bytes.Contains(frame, []byte("BOOKMARK")) && bytes.Contains(frame, []byte(metav1.InitialEventsAnnotationKey))
}

// streamState follows one stream: how many events went through and whether
// the initial-events-end bookmark was among them.
type streamState struct {
	// sent counts events forwarded.
	sent int
	// afterBookmark counts events forwarded after the bookmark; -1 before.
	afterBookmark int
}

// strikes reports whether pl's fault strikes before the event frame.
func (s *streamState) strikes(pl plan, frame []byte) bool {
	switch pl.fault {
	case ResetWatchListBeforeBookmark:
		return s.afterBookmark < 0 && (s.sent == pl.at || isInitialEventsEnd(frame))
	case ResetWatchListAfterBookmark:
		return s.afterBookmark == pl.at
	case ResetWatch, TruncateStream, GoneWatch, StallStream:
		return s.sent == pl.at
	}
	return false
}

// serveStream copies a watch response event by event, injecting pl's fault
// at its position. It reports whether the stream ended in a failure.
func (p *Proxy) serveStream(ctx context.Context, w http.ResponseWriter, resp *http.Response, pl plan) bool {
	copyHeader(w.Header(), resp.Header)
	w.Header().Del("Content-Length")
	w.WriteHeader(resp.StatusCode)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	fr := newFramer(resp.Header.Get("Content-Type"), resp.Body)
	st := &streamState{afterBookmark: -1}
	stalled := false
	for {
		frame, err := fr.next()
		if err != nil {
			// A client that hangs up (its timeout, or it is done) did not
			// fail, unless it gave up on a stall.
			return !errors.Is(err, io.EOF) && (ctx.Err() == nil || stalled)
		}
		if st.strikes(pl, frame) {
			fault, next := p.strike(ctx, w, pl, frame, fr)
			if fault != StallStream && fault != None {
				return true
			}
			stalled = fault == StallStream
			pl.fault = None
			if next != nil {
				frame = next
			}
		}
		if _, err := w.Write(frame); err != nil {
			return true
		}
		_ = rc.Flush()
		st.sent++
		if st.afterBookmark >= 0 {
			st.afterBookmark++
		} else if isInitialEventsEnd(frame) {
			st.afterBookmark = 0
		}
	}
}

// strike injects pl's mid-stream fault before frame. For StallStream it
// returns the frame to forward next; for the others the stream is over.
func (p *Proxy) strike(ctx context.Context, w http.ResponseWriter, pl plan, frame []byte, fr framer) (Fault, []byte) {
	rc := http.NewResponseController(w)
	switch pl.fault {
	case StallStream:
		p.inject(pl)
		t := time.NewTimer(p.cfg.StallFor)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		}
		return StallStream, frame
	case TruncateStream:
		p.inject(pl)
		_, _ = w.Write(frame[:len(frame)/2])
		_ = rc.Flush()
	case GoneWatch:
		ev := fr.gone(fmt.Sprint(pl.index))
		if ev == nil {
			return None, nil // unknown encoding: cannot forge an event
		}
		p.inject(pl)
		_, _ = w.Write(ev)
		_ = rc.Flush()
	default: // the resets
		p.inject(pl)
		resetConn(w)
	}
	return pl.fault, nil
}
