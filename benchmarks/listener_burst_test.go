package benchmarks

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// liveHeap returns HeapAlloc after a full collection.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// listenerBurstOnce runs one informer over w with a fast handler and a slow
// one that blocks until the fast one has seen everything, so that the whole
// burst queues for the slow handler. It returns the live heap above the
// baseline (taken before the informer ran) while the burst is queued and
// after the slow handler drained it, with the informer still running.
func listenerBurstOnce(b *testing.B, w *informerWorkload, build func(*informerBenchSource) informerUnderBench) (queued, retained int64) {
	src := &informerBenchSource{w: w, stop: make(chan struct{})}
	inf := build(src)
	fast := newInformerCountingHandler(w.events())
	slow := newInformerCountingHandler(w.events())
	slow.gate = make(chan struct{})
	for _, h := range []*informerCountingHandler{fast, slow} {
		if err := inf.add(h); err != nil {
			b.Fatal(err)
		}
	}
	baseline := liveHeap()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { inf.run(ctx); close(done) }()
	defer func() { close(src.stop); cancel(); <-done }()
	for _, h := range []*informerCountingHandler{fast, slow} {
		if h == slow {
			queued = liveHeap() - baseline
			close(slow.gate)
		}
		select {
		case <-h.done:
		case <-time.After(10 * time.Minute):
			b.Fatalf("handler saw %d of %d notifications", h.seen.Load(), h.target)
		}
	}
	retained = liveHeap() - baseline
	return queued, retained
}

// BenchmarkListenerBurstThenDrain lists 1,000 objects and streams 100,000
// updates to two handlers, one of which blocks until the other has seen
// everything, so that the whole burst queues for it; then it drains.
// queued-B is the live heap above the baseline while the burst is queued,
// retained-B after the slow handler drained it (the informer still
// running, its 1,000 cached objects included in both). ns/op includes the
// forced collections and is not the figure of interest.
func BenchmarkListenerBurstThenDrain(b *testing.B) {
	w := newInformerWorkload(1_000, 100_000)
	for _, impl := range informerBenchImpls {
		b.Run(impl.name, func(b *testing.B) {
			var queued, retained int64
			for i := 0; i < b.N; i++ {
				q, r := listenerBurstOnce(b, w, impl.build)
				queued += q
				retained += r
			}
			b.ReportMetric(float64(queued)/float64(b.N), "queued-B")
			b.ReportMetric(float64(retained)/float64(b.N), "retained-B")
		})
	}
}
