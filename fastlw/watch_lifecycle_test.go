package fastlw_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	cache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/fastlw"
)

// readThenEnd watches a stream that stays open, reads n events, ends the
// watch with end (Stop, or cancelling the context), and returns the n
// events and whatever came after until the channel closed.
func readThenEnd(t *testing.T, lw cache.ListerWatcherWithContext, n int, byCancel bool) (before, after []watch.Event) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	w, err := lw.WatchWithContext(ctx, metav1.ListOptions{ResourceVersion: "100"})
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		before = append(before, <-w.ResultChan())
	}
	if byCancel {
		cancel()
	} else {
		w.Stop()
	}
	for event := range w.ResultChan() {
		after = append(after, event)
	}
	w.Stop()
	return before, after
}

// TestEndingAWatchClosesItsChannelAndLeavesNoGoroutine reads the whole
// script of a stream the server keeps open, then ends the watch by Stop or
// by cancelling its context: both paths give the same events before (and,
// after a cancel, after), nothing but an Error after, the channel closes,
// and no goroutine is left.
func TestEndingAWatchClosesItsChannelAndLeavesNoGoroutine(t *testing.T) {
	for _, end := range []struct {
		name     string
		byCancel bool
	}{{"Stop", false}, {"context cancelled", true}} {
		for _, format := range []string{"json", "protobuf"} {
			t.Run(end.name+"/"+format, func(t *testing.T) {
				defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
				env := startEnv(scenario{watchSteps: changes(), watchEnd: endHang})
				defer env.close()
				client := env.client(t, format)
				n := len(changes())
				plainBefore, plainAfter := readThenEnd(t, cache.NewListWatchFromClient(client, "pods", "ns", fields.Everything()), n, end.byCancel)
				fastBefore, fastAfter := readThenEnd(t, fastlw.NewFromClient(client, "pods", "ns", fields.Everything(), nil), n, end.byCancel)
				requireSameWatch(t, watchOutcome{events: plainBefore}, watchOutcome{events: fastBefore})
				if end.byCancel {
					requireSameWatch(t, watchOutcome{events: plainAfter}, watchOutcome{events: fastAfter})
				}
				requireOnlyErrors(t, plainAfter, fastAfter)
			})
		}
	}
}

// requireOnlyErrors fails if an event other than an Error came after the
// watch was ended. (After Stop, whether the StreamWatcher still reports the
// read error of the closed body is a race inside it, on both paths.)
func requireOnlyErrors(t *testing.T, paths ...[]watch.Event) {
	t.Helper()
	for _, events := range paths {
		for _, event := range events {
			if event.Type != watch.Error {
				t.Fatalf("an event after the end of the watch: %v", summary(events))
			}
		}
	}
}

// TestAWatchHoldsNoMoreThanMaxInFlightFrames pauses the consumer after its
// first event until the stream has decoded as far ahead as the bound
// allows, and requires that decoding never ran further ahead than
// MaxInFlight frames, plus the one event the StreamWatcher holds and the
// one the consumer is counting.
func TestAWatchHoldsNoMoreThanMaxInFlightFrames(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	const maxInFlight = 3
	env := startEnv(scenario{watchSteps: manyChanges(60)})
	defer env.close()
	var received, decoded, mostAhead atomic.Int64
	filled := make(chan struct{})
	var fill sync.Once
	serializer := newObservedSerializer(func(runtime.Object) {
		ahead := decoded.Add(1) - received.Load()
		for seen := mostAhead.Load(); ahead > seen && !mostAhead.CompareAndSwap(seen, ahead); seen = mostAhead.Load() {
		}
		if ahead >= maxInFlight+1 {
			fill.Do(func() { close(filled) })
		}
	})
	fast := fastlw.New(fastlw.Config{Client: env.client(t, "json"), Resource: "pods", Namespace: "ns",
		Serializer: serializer, Workers: 2, MaxInFlight: maxInFlight})
	w, err := fast.WatchWithContext(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for range w.ResultChan() {
		if received.Add(1) == 1 {
			<-filled
		}
	}
	if received.Load() != 60 || mostAhead.Load() > maxInFlight+2 {
		t.Fatalf("received %d events (want 60), decoding ran %d frames ahead (want at most %d)", received.Load(), mostAhead.Load(), maxInFlight+2)
	}
}
