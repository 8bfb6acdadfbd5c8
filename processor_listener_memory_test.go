package cache

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// gatedCountingHandler blocks every call until gate is closed, counts the
// calls without allocating, and closes done at the want-th call.
type gatedCountingHandler struct {
	gate  chan struct{}
	done  chan struct{}
	want  int64
	calls atomic.Int64
}

func (h *gatedCountingHandler) count() {
	<-h.gate
	if h.calls.Add(1) == h.want {
		close(h.done)
	}
}
func (h *gatedCountingHandler) OnAdd(interface{}, bool)           { h.count() }
func (h *gatedCountingHandler) OnUpdate(interface{}, interface{}) { h.count() }
func (h *gatedCountingHandler) OnDelete(interface{})              { h.count() }

// heapAlloc returns the live heap after a full collection.
func heapAlloc() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

func TestListenerGivesBackTheMemoryOfABurstOnceItsHandlerDrainedIt(t *testing.T) {
	defer goleak.VerifyNone(t)
	cases := []struct {
		name  string
		burst int
		// maxRetained bounds the heap growth left after the drain; a ring
		// that kept its high-water buffer would hold about 40 B per
		// notification of the burst.
		maxRetained int64
	}{
		{name: "20k updates", burst: 20_000, maxRetained: 512 << 10},
		{name: "100k updates", burst: 100_000, maxRetained: 1 << 20},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			upstream := newManualChecker()
			upstream.finish()
			h := &gatedCountingHandler{gate: make(chan struct{}), done: make(chan struct{}), want: int64(tc.burst)}
			l := newTestListener(h, upstream, nil)
			ran := make(chan struct{})
			go func() { l.run(); close(ran) }()
			obj := &struct{ name string }{"pod"}
			baseline := heapAlloc()

			for i := 0; i < tc.burst; i++ {
				l.add(notification{kind: notifyUpdate, oldObj: obj, newObj: obj})
			}
			peak := heapAlloc() - baseline
			// The buffer of the burst must show, or the test measures nothing.
			if minPeak := int64(tc.burst) * 16; peak < minPeak {
				t.Fatalf("heap grew only %d B during the burst, want at least %d B", peak, minPeak)
			}
			close(h.gate)
			select {
			case <-h.done:
			case <-time.After(wait30s):
				t.Fatalf("handler saw only %d of %d notifications", h.calls.Load(), tc.burst)
			}
			retained := heapAlloc() - baseline
			t.Logf("burst of %d: heap +%d B while queued, +%d B after the drain", tc.burst, peak, retained)
			if retained > tc.maxRetained {
				t.Fatalf("heap still %d B above the baseline after the drain (%d B during the burst), want at most %d B", retained, peak, tc.maxRetained)
			}
			l.stop()
			<-ran
			runtime.KeepAlive(l)
		})
	}
}
