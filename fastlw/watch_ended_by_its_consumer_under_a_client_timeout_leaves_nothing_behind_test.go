package fastlw_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kcache-go/cache/fastlw"
)

// openBody yields a watch stream and then stays open until it is closed
// (a read then fails as a closed connection's does) or its request's
// context ends (a read then fails with the context's error). It counts
// its closes.
type openBody struct {
	stream io.Reader
	ctx    context.Context
	closed chan struct{}
	once   sync.Once
	closes atomic.Int32
}

// Read reads the stream, then waits for the end.
func (b *openBody) Read(p []byte) (int, error) {
	if n, err := b.stream.Read(p); err != io.EOF {
		return n, err
	}
	select {
	case <-b.closed:
		return 0, io.ErrClosedPipe
	case <-b.ctx.Done():
		return 0, b.ctx.Err()
	}
}

// Close counts and releases the reads.
func (b *openBody) Close() error {
	b.closes.Add(1)
	b.once.Do(func() { close(b.closed) })
	return nil
}

// openTransport answers every request with an openBody over stream.
type openTransport struct {
	stream string
	mu     sync.Mutex
	bodies []*openBody
}

// RoundTrip answers req.
func (o *openTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	body := &openBody{stream: strings.NewReader(o.stream), ctx: req.Context(), closed: make(chan struct{})}
	o.mu.Lock()
	o.bodies = append(o.bodies, body)
	o.mu.Unlock()
	resp := okAnswer(req, "application/json", nil)
	resp.Body = body
	return resp, nil
}

// TestAWatchEndedByItsConsumerUnderAClientTimeoutLeavesNothingBehind ends
// a watch whose server keeps the stream open, through an http.Client with
// or without a Timeout, by Stop (from another goroutine, before the first
// event or after it) or by cancelling its context: fastlw gives the
// events client-go gives before, and after a cancel (after a Stop,
// whether a StreamWatcher reports its closed body's read error is a race
// inside it, on both paths: nothing but an Error), its result channel
// closes, it
// closes the body exactly once, and no goroutine is left in the bubble
// (neither its own, nor Request.Watch's over the stand-in body, nor
// net/http's Timeout timer: synctest.Test fails on any).
func TestAWatchEndedByItsConsumerUnderAClientTimeoutLeavesNothingBehind(t *testing.T) {
	for _, timeout := range []time.Duration{0, 30 * time.Second} {
		for _, end := range []struct {
			name     string
			read     int
			byCancel bool
		}{
			{"Stop before the first event", 0, false}, {"Stop after the first event", 1, false},
			{"cancel before the first event", 0, true}, {"cancel after the first event", 1, true},
		} {
			t.Run(end.name+"/timeout "+timeout.String(), func(t *testing.T) {
				var runs [2]endedRun
				for i, fast := range []bool{false, true} {
					synctest.Test(t, func(t *testing.T) {
						runs[i] = endWatch(t, fast, timeout, end.read, end.byCancel)
					})
				}
				requireSameWatch(t, watchOutcome{events: runs[0].before}, watchOutcome{events: runs[1].before})
				if end.byCancel {
					requireSameWatch(t, watchOutcome{events: runs[0].after}, watchOutcome{events: runs[1].after})
				}
				requireOnlyErrors(t, runs[0].after, runs[1].after)
				if runs[1].closes != 1 {
					t.Fatalf("fastlw closed the body %d times, want once (client-go: %d)", runs[1].closes, runs[0].closes)
				}
			})
		}
	}
}

// endedRun is what one side's watch gave before and after it was ended,
// and how often its body was closed.
type endedRun struct {
	before, after []watch.Event
	closes        int32
}

// endWatch watches on one side (fastlw when fast) over an openTransport
// with timeout as the client's Timeout, whose stream has n events (the
// server sends no more), reads them, ends the watch
// (Stop from another goroutine, or cancel), and reads until the channel
// closes.
func endWatch(t *testing.T, fast bool, timeout time.Duration, n int, byCancel bool) endedRun {
	transport := &openTransport{stream: strings.Repeat(oneEventStream, n)}
	client := scriptClientWith(t, &http.Client{Transport: transport, Timeout: timeout})
	var lw watcher = clientGoPlain(client)
	if fast {
		lw = fastlw.NewFromClient(client, "pods", "ns", fields.Everything(), nil)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	w, err := lw.WatchWithContext(ctx, metav1.ListOptions{ResourceVersion: "100"})
	if err != nil {
		t.Fatal(err)
	}
	var run endedRun
	for range n {
		run.before = append(run.before, <-w.ResultChan())
	}
	synctest.Wait()
	if byCancel {
		cancel()
	} else {
		go w.Stop()
	}
	for event := range w.ResultChan() {
		run.after = append(run.after, event)
	}
	w.Stop()
	synctest.Wait()
	transport.mu.Lock()
	defer transport.mu.Unlock()
	if len(transport.bodies) != 1 {
		t.Fatalf("%d requests, want 1", len(transport.bodies))
	}
	run.closes = transport.bodies[0].closes.Load()
	return run
}
