package benchmarks

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	kcache "github.com/kcache-go/cache"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// informerWorkload is a pre-built list and stream of updates. Objects are
// metav1.PartialObjectMetadata, so that building them stays outside the
// measurement and memory stays modest.
type informerWorkload struct {
	// list is the initial list, at resource version "1".
	list []metav1.PartialObjectMetadata
	// updates are the watch events that follow, each with a new version.
	updates []watch.Event
}

// newInformerWorkload builds objects listed objects and updates Modified
// events spread round-robin over them.
func newInformerWorkload(objects, updates int) *informerWorkload {
	w := &informerWorkload{list: make([]metav1.PartialObjectMetadata, objects), updates: make([]watch.Event, updates)}
	for i := range w.list {
		w.list[i] = metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
			Namespace: "ns-" + strconv.Itoa(i%50), Name: "obj-" + strconv.Itoa(i), ResourceVersion: "1",
		}}
	}
	for i := range w.updates {
		base := &w.list[i%objects]
		obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
			Namespace: base.Namespace, Name: base.Name, ResourceVersion: strconv.Itoa(2 + i),
		}}
		w.updates[i] = watch.Event{Type: watch.Modified, Object: obj}
	}
	return w
}

// events is the number of notifications every handler must see.
func (w *informerWorkload) events() int64 { return int64(len(w.list) + len(w.updates)) }

// informerBenchSource lists the workload and streams its updates on the
// first watch; later watches stay silent.
type informerBenchSource struct {
	// w is the workload served.
	w *informerWorkload
	// watched is set by the first Watch, the one that streams.
	watched atomic.Bool
	// stop ends the streaming goroutine.
	stop chan struct{}
}

func (s *informerBenchSource) List(metav1.ListOptions) (apiruntime.Object, error) {
	list := &metav1.PartialObjectMetadataList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}
	list.Items = append([]metav1.PartialObjectMetadata(nil), s.w.list...)
	return list, nil
}

func (s *informerBenchSource) Watch(metav1.ListOptions) (watch.Interface, error) {
	bw := &informerBenchWatch{ch: make(chan watch.Event, 1024), stopped: make(chan struct{})}
	if s.watched.Swap(true) {
		return bw, nil
	}
	go func() {
		for _, ev := range s.w.updates {
			select {
			case bw.ch <- ev:
			case <-s.stop:
				return
			case <-bw.stopped:
				return
			}
		}
	}()
	return bw, nil
}

// informerBenchWatch is a watch whose events a producer goroutine sends;
// its channel is never closed, so the watch only ends by Stop.
type informerBenchWatch struct {
	// ch carries the events.
	ch chan watch.Event
	// stopped is closed by Stop.
	stopped chan struct{}
	// once guards closing stopped.
	once sync.Once
}

func (w *informerBenchWatch) Stop()                          { w.once.Do(func() { close(w.stopped) }) }
func (w *informerBenchWatch) ResultChan() <-chan watch.Event { return w.ch }

func (s *informerBenchSource) IsWatchListSemanticsUnSupported() bool { return true }

// informerCountingHandler counts notifications and closes done when it has
// seen target of them. When gate is set, every call first waits on it.
type informerCountingHandler struct {
	// seen counts notifications.
	seen atomic.Int64
	// target is the count that closes done.
	target int64
	// done is closed when seen reaches target.
	done chan struct{}
	// once guards closing done.
	once sync.Once
	// gate, when set, blocks every call until closed.
	gate chan struct{}
}

func newInformerCountingHandler(target int64) *informerCountingHandler {
	return &informerCountingHandler{target: target, done: make(chan struct{})}
}

func (h *informerCountingHandler) count() {
	if h.gate != nil {
		<-h.gate
	}
	if h.seen.Add(1) == h.target {
		h.once.Do(func() { close(h.done) })
	}
}
func (h *informerCountingHandler) OnAdd(interface{}, bool)           { h.count() }
func (h *informerCountingHandler) OnUpdate(interface{}, interface{}) { h.count() }
func (h *informerCountingHandler) OnDelete(interface{})              { h.count() }

// informerUnderBench is the part of a SharedIndexInformer both libraries
// share, with handlers of the neutral type.
type informerUnderBench struct {
	add func(h *informerCountingHandler) error
	run func(ctx context.Context)
}

// informerUnderBenchOf adapts a SharedIndexInformer of either library; H is
// its ResourceEventHandler and R its ResourceEventHandlerRegistration.
func informerUnderBenchOf[H, R any](inf interface {
	AddEventHandler(handler H) (R, error)
	RunWithContext(ctx context.Context)
}) informerUnderBench {
	return informerUnderBench{
		add: func(h *informerCountingHandler) error { _, err := inf.AddEventHandler(any(h).(H)); return err },
		run: inf.RunWithContext,
	}
}

// informerRunCost is what informer runs took: their wall time, and the
// heap allocations and bytes allocated meanwhile.
type informerRunCost struct {
	elapsed        time.Duration
	mallocs, bytes uint64
}

// add sums run's cost into c.
func (c *informerRunCost) add(run informerRunCost) {
	c.elapsed += run.elapsed
	c.mallocs += run.mallocs
	c.bytes += run.bytes
}

// report reports ns/event and allocs/event (and B/event when withBytes)
// over the events the runs delivered in all.
func (c informerRunCost) report(b *testing.B, events float64, withBytes bool) {
	b.ReportMetric(float64(c.elapsed.Nanoseconds())/events, "ns/event")
	b.ReportMetric(float64(c.mallocs)/events, "allocs/event")
	if withBytes {
		b.ReportMetric(float64(c.bytes)/events, "B/event")
	}
}

func informerBenchClientGo(lw *informerBenchSource) informerUnderBench {
	inf := cache.NewSharedIndexInformer(lw, &metav1.PartialObjectMetadata{}, 0, cache.Indexers{})
	return informerUnderBenchOf[cache.ResourceEventHandler, cache.ResourceEventHandlerRegistration](inf)
}

func informerBenchKcache(lw *informerBenchSource) informerUnderBench {
	inf := kcache.NewSharedIndexInformer(lw, &metav1.PartialObjectMetadata{}, 0, kcache.Indexers{})
	return informerUnderBenchOf[kcache.ResourceEventHandler, kcache.ResourceEventHandlerRegistration](inf)
}

var informerBenchImpls = []struct {
	name  string
	build func(*informerBenchSource) informerUnderBench
}{
	{"impl=client-go", informerBenchClientGo},
	{"impl=kcache", informerBenchKcache},
}

// informerRunOnce runs one informer over w with the handlers, waits until
// every handler in waitFor is done and returns the elapsed time and the
// allocations made meanwhile. Handlers not waited for are released (their
// gate closed) before the informer stops.
func informerRunOnce(b *testing.B, w *informerWorkload, build func(*informerBenchSource) informerUnderBench, handlers, waitFor []*informerCountingHandler) informerRunCost {
	src := &informerBenchSource{w: w, stop: make(chan struct{})}
	inf := build(src)
	for _, h := range handlers {
		if err := inf.add(h); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	start := time.Now()
	b.StartTimer()
	go func() { inf.run(ctx); close(done) }()
	for _, h := range waitFor {
		select {
		case <-h.done:
		case <-time.After(10 * time.Minute):
			b.Fatalf("handler saw %d of %d notifications", h.seen.Load(), h.target)
		}
	}
	b.StopTimer()
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	for _, h := range handlers {
		if h.gate != nil {
			close(h.gate)
		}
	}
	close(src.stop)
	cancel()
	<-done
	return informerRunCost{elapsed, after.Mallocs - before.Mallocs, after.TotalAlloc - before.TotalAlloc}
}

// BenchmarkInformerEndToEnd lists 50,000 objects, then streams 200,000
// updates, with three handlers; one op lasts until every handler has seen
// every notification. ns/event, allocs/event and B/event divide by the
// 250,000 source events (not multiplied by the three handlers).
func BenchmarkInformerEndToEnd(b *testing.B) {
	w := newInformerWorkload(50_000, 200_000)
	for _, impl := range informerBenchImpls {
		b.Run(impl.name, func(b *testing.B) {
			b.StopTimer()
			var cost informerRunCost
			for i := 0; i < b.N; i++ {
				handlers := []*informerCountingHandler{
					newInformerCountingHandler(w.events()), newInformerCountingHandler(w.events()), newInformerCountingHandler(w.events()),
				}
				cost.add(informerRunOnce(b, w, impl.build, handlers, handlers))
			}
			cost.report(b, float64(w.events())*float64(b.N), true)
		})
	}
}

// BenchmarkInformerFanOutWithOneSlowHandler lists 1,000 objects and streams
// 100,000 updates to ten handlers, one of which blocks until the others are
// done; one op lasts until the nine fast handlers have seen everything.
func BenchmarkInformerFanOutWithOneSlowHandler(b *testing.B) {
	w := newInformerWorkload(1_000, 100_000)
	for _, impl := range informerBenchImpls {
		b.Run(impl.name, func(b *testing.B) {
			b.StopTimer()
			var cost informerRunCost
			for i := 0; i < b.N; i++ {
				slow := newInformerCountingHandler(w.events())
				slow.gate = make(chan struct{})
				handlers := []*informerCountingHandler{slow}
				var fast []*informerCountingHandler
				for j := 0; j < 9; j++ {
					h := newInformerCountingHandler(w.events())
					fast = append(fast, h)
					handlers = append(handlers, h)
				}
				cost.add(informerRunOnce(b, w, impl.build, handlers, fast))
			}
			cost.report(b, float64(w.events())*float64(b.N), false)
		})
	}
}
