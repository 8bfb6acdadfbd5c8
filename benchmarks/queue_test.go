package benchmarks

import (
	"fmt"
	"runtime"
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cg "k8s.io/client-go/tools/cache"

	kc "github.com/kcache-go/cache"
)

// queueBacklog is how many events sit in a queue while the throughput
// benchmarks push and pop: a consumer running slightly behind.
const queueBacklog = 1000

// queueReplaceSize is the list length of the Replace benchmarks.
const queueReplaceSize = 100000

// queuePodPool returns a pool of distinct pods shared by all benchmarks,
// built on first use (so that plain `go test` does not pay for it).
var queuePodPool = sync.OnceValue(func() []interface{} {
	pods := make([]interface{}, queueReplaceSize)
	for i := range pods {
		pods[i] = &v1.Pod{ObjectMeta: metav1.ObjectMeta{
			Namespace: fmt.Sprintf("ns-%d", i%50), Name: fmt.Sprintf("pod-%06d", i), ResourceVersion: fmt.Sprint(i + 1),
		}}
	}
	return pods
})

// queueReportRate adds events/s and, from the heap statistics around the
// timed loop, bytes and allocations per event.
func queueReportRate(b *testing.B, events int, before *runtime.MemStats) {
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(events), "B/event")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(events), "allocs/event")
}

// queueStart resets the timer and snapshots the heap statistics.
func queueStart(b *testing.B) *runtime.MemStats {
	b.ReportAllocs()
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	return &before
}

// queueTimedMem sums heap statistics over the timed sections of a
// benchmark whose iterations need untimed set-up (the Replace lists).
type queueTimedMem struct {
	before, after runtime.MemStats
	bytes, allocs uint64
}

// start begins a timed section.
func (m *queueTimedMem) start(b *testing.B) {
	runtime.ReadMemStats(&m.before)
	b.StartTimer()
}

// stop ends a timed section and adds its allocations.
func (m *queueTimedMem) stop(b *testing.B) {
	b.StopTimer()
	runtime.ReadMemStats(&m.after)
	m.bytes += m.after.TotalAlloc - m.before.TotalAlloc
	m.allocs += m.after.Mallocs - m.before.Mallocs
}

// report adds events/s, B/event and allocs/event for events objects.
func (m *queueTimedMem) report(b *testing.B, events int) {
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(m.bytes)/float64(events), "B/event")
	b.ReportMetric(float64(m.allocs)/float64(events), "allocs/event")
}

// queueOps is the queue surface the throughput loops use.
type queueOps struct {
	add      func(obj interface{}) error
	pop      func() error
	popBatch func() error
}

// queueRealFIFO is a RealFIFO of either library: D is its Delta, P its
// PopProcessFunc and B its ProcessBatchFunc.
type queueRealFIFO[D any, P ~func(interface{}, bool) error, B ~func([]D, bool) error] interface {
	Add(obj interface{}) error
	Pop(process P) (interface{}, error)
	PopBatch(processBatch B, processSingle P) error
	Close()
}

// queueRealOps wraps f as queueOps whose pops process nothing.
func queueRealOps[D any, P ~func(interface{}, bool) error, B ~func([]D, bool) error](f queueRealFIFO[D, P, B]) queueOps {
	noop := func(interface{}, bool) error { return nil }
	return queueOps{
		add:      f.Add,
		pop:      func() error { _, err := f.Pop(noop); return err },
		popBatch: func() error { return f.PopBatch(func([]D, bool) error { return nil }, noop) },
	}
}

// queueCGRealOps wraps an atomic client-go RealFIFO (informer defaults).
func queueCGRealOps() queueOps {
	return queueRealOps[cg.Delta, cg.PopProcessFunc, cg.ProcessBatchFunc](
		cg.NewRealFIFOWithOptions(cg.RealFIFOOptions{AtomicEvents: true, UnlockWhileProcessing: true}))
}

// queueKCRealOps wraps an atomic kcache RealFIFO (informer defaults).
func queueKCRealOps() queueOps {
	return queueRealOps[kc.Delta, kc.PopProcessFunc, kc.ProcessBatchFunc](
		kc.NewRealFIFOWithOptions(kc.RealFIFOOptions{AtomicEvents: true, UnlockWhileProcessing: true}))
}

// queueCGDeltaOps wraps a client-go DeltaFIFO.
func queueCGDeltaOps() queueOps {
	f := cg.NewDeltaFIFOWithOptions(cg.DeltaFIFOOptions{EmitDeltaTypeReplaced: true})
	noop := func(interface{}, bool) error { return nil }
	return queueOps{add: f.Add, pop: func() error { _, err := f.Pop(noop); return err }}
}

// queueKCDeltaOps wraps a kcache DeltaFIFO.
func queueKCDeltaOps() queueOps {
	f := kc.NewDeltaFIFOWithOptions(kc.DeltaFIFOOptions{EmitDeltaTypeReplaced: true})
	noop := func(interface{}, bool) error { return nil }
	return queueOps{add: f.Add, pop: func() error { _, err := f.Pop(noop); return err }}
}

// queueImpls lists the implementations compared side by side.
var queueImpls = []struct {
	name  string
	real  func() queueOps
	delta func() queueOps
}{
	{"client-go", queueCGRealOps, queueCGDeltaOps},
	{"kcache", queueKCRealOps, queueKCDeltaOps},
}

// queueSteadyPushPop keeps queueBacklog events queued and, per iteration,
// adds one event and pops one: b.N events flow through the queue.
func queueSteadyPushPop(b *testing.B, q queueOps) {
	pods := queuePodPool()
	for i := 0; i < queueBacklog; i++ {
		if err := q.add(pods[i]); err != nil {
			b.Fatal(err)
		}
	}
	before := queueStart(b)
	for i := 0; i < b.N; i++ {
		if err := q.add(pods[(queueBacklog+i)%len(pods)]); err != nil {
			b.Fatal(err)
		}
		if err := q.pop(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	queueReportRate(b, b.N, before)
}

// BenchmarkQueueRealFIFOPop measures event throughput of the default
// RealFIFO consumed one event per Pop.
func BenchmarkQueueRealFIFOPop(b *testing.B) {
	for _, impl := range queueImpls {
		b.Run("impl="+impl.name, func(b *testing.B) { queueSteadyPushPop(b, impl.real()) })
	}
}

// BenchmarkQueueRealFIFOPopBatch measures event throughput of the default
// RealFIFO consumed with PopBatch: events arrive in bursts of a thousand
// distinct keys and the consumer drains each burst.
func BenchmarkQueueRealFIFOPopBatch(b *testing.B) {
	for _, impl := range queueImpls {
		b.Run("impl="+impl.name, func(b *testing.B) {
			q := impl.real()
			pods := queuePodPool()
			before := queueStart(b)
			next := 0
			for done := 0; done < b.N; {
				burst := min(queueBacklog, b.N-done)
				for i := 0; i < burst; i++ {
					if err := q.add(pods[next]); err != nil {
						b.Fatal(err)
					}
					next = (next + 1) % len(pods)
				}
				for popped := 0; popped < burst; popped += queueBacklog {
					if err := q.popBatch(); err != nil {
						b.Fatal(err)
					}
				}
				done += burst
			}
			b.StopTimer()
			queueReportRate(b, b.N, before)
		})
	}
}

// BenchmarkQueueDeltaFIFO measures event throughput of the DeltaFIFO with a
// backlog of distinct keys, one Add and one Pop per event.
func BenchmarkQueueDeltaFIFO(b *testing.B) {
	for _, impl := range queueImpls {
		b.Run("impl="+impl.name, func(b *testing.B) { queueSteadyPushPop(b, impl.delta()) })
	}
}

// queueReplaceCase is one Replace benchmark: a fresh queue, the known
// objects it consults, and the Replace and drain calls.
type queueReplaceCase struct {
	name string
	cg   func() (replace func([]interface{}) error, drain func())
	kc   func() (replace func([]interface{}) error, drain func())
}

// queueKeepAsIs is a transformer that changes nothing: it makes the atomic
// Replace visit every object, as informers with a transformer do.
func queueKeepAsIs(obj interface{}) (interface{}, error) { return obj, nil }

// BenchmarkQueueReplace100k measures Replace of 100,000 objects, followed
// by popping what it queued: atomic RealFIFO with a transformer (one
// ReplacedAll; the transformer makes it visit every object), non-atomic
// RealFIFO and DeltaFIFO against a known store holding the same 100,000
// keys (a relist of an unchanged cache). One op is one Replace; events/s
// counts objects.
func BenchmarkQueueReplace100k(b *testing.B) {
	cgKnown := cg.NewIndexer(cg.MetaNamespaceKeyFunc, cg.Indexers{})
	kcKnown := kc.NewIndexer(kc.MetaNamespaceKeyFunc, kc.Indexers{})
	for _, p := range queuePodPool() {
		_ = cgKnown.Add(p)
		_ = kcKnown.Add(p)
	}
	noop := func(interface{}, bool) error { return nil }
	cases := []queueReplaceCase{
		{"RealFIFO-atomic",
			func() (func([]interface{}) error, func()) {
				f := cg.NewRealFIFOWithOptions(cg.RealFIFOOptions{AtomicEvents: true, Transformer: queueKeepAsIs})
				return func(l []interface{}) error { return f.Replace(l, "1") }, func() { _, _ = f.Pop(noop) }
			},
			func() (func([]interface{}) error, func()) {
				f := kc.NewRealFIFOWithOptions(kc.RealFIFOOptions{AtomicEvents: true, Transformer: queueKeepAsIs})
				return func(l []interface{}) error { return f.Replace(l, "1") }, func() { _, _ = f.Pop(noop) }
			}},
		{"RealFIFO-non-atomic",
			func() (func([]interface{}) error, func()) {
				f := cg.NewRealFIFOWithOptions(cg.RealFIFOOptions{KnownObjects: cgKnown})
				return func(l []interface{}) error { return f.Replace(l, "1") }, func() {
					for !f.HasSynced() {
						_ = f.PopBatch(func([]cg.Delta, bool) error { return nil }, noop)
					}
				}
			},
			func() (func([]interface{}) error, func()) {
				f := kc.NewRealFIFOWithOptions(kc.RealFIFOOptions{KnownObjects: kcKnown})
				return func(l []interface{}) error { return f.Replace(l, "1") }, func() {
					for !f.HasSynced() {
						_ = f.PopBatch(func([]kc.Delta, bool) error { return nil }, noop)
					}
				}
			}},
		{"DeltaFIFO",
			func() (func([]interface{}) error, func()) {
				f := cg.NewDeltaFIFOWithOptions(cg.DeltaFIFOOptions{KnownObjects: cgKnown, EmitDeltaTypeReplaced: true})
				return func(l []interface{}) error { return f.Replace(l, "1") }, func() {
					for !f.HasSynced() {
						_, _ = f.Pop(noop)
					}
				}
			},
			func() (func([]interface{}) error, func()) {
				f := kc.NewDeltaFIFOWithOptions(kc.DeltaFIFOOptions{KnownObjects: kcKnown, EmitDeltaTypeReplaced: true})
				return func(l []interface{}) error { return f.Replace(l, "1") }, func() {
					for !f.HasSynced() {
						_, _ = f.Pop(noop)
					}
				}
			}},
	}
	for _, c := range cases {
		for _, impl := range []struct {
			name string
			make func() (func([]interface{}) error, func())
		}{{"client-go", c.cg}, {"kcache", c.kc}} {
			b.Run(c.name+"/impl="+impl.name, func(b *testing.B) {
				b.ReportAllocs()
				var mem queueTimedMem
				b.ResetTimer()
				b.StopTimer()
				for i := 0; i < b.N; i++ {
					list := append([]interface{}(nil), queuePodPool()...) // the queue owns its list
					replace, drain := impl.make()
					mem.start(b)
					if err := replace(list); err != nil {
						b.Fatal(err)
					}
					drain()
					mem.stop(b)
				}
				mem.report(b, b.N*queueReplaceSize)
			})
		}
	}
}
