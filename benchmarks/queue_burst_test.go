package benchmarks

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	cg "k8s.io/client-go/tools/cache"

	kc "github.com/kcache-go/cache"
)

// queueBurstSize is how many events the producer of the burst benchmark
// pushes as fast as it can.
const queueBurstSize = 300000

// queueBurstSpin is the busy work the consumer does per delta (a handler
// slower than the producer, as during a relist of a large cache).
const queueBurstSpin = 400

// queueBurstProducerSpin is the busy work the producer does per event (a
// reflector decoding a watch event): a third of the consumer's, so the
// producer outruns the consumer threefold.
const queueBurstProducerSpin = queueBurstSpin / 3

// queuePeakGauge records the largest queued-items value a queue publishes.
type queuePeakGauge struct{ peak atomic.Int64 }

// Set implements GaugeMetric for both packages.
func (g *queuePeakGauge) Set(v float64) {
	for {
		old := g.peak.Load()
		if int64(v) <= old || g.peak.CompareAndSwap(old, int64(v)) {
			return
		}
	}
}

// queueNopHistogram ignores latencies.
type queueNopHistogram struct{}

// Observe implements HistogramMetric for both packages.
func (queueNopHistogram) Observe(float64) {}

// queueBurstProvider hands a peak gauge to a RealFIFO of either library:
// ID is its InformerNameAndResource, G its GaugeMetric and H its
// HistogramMetric.
type queueBurstProvider[ID, G, H any] struct{ g *queuePeakGauge }

func (p queueBurstProvider[ID, G, H]) NewQueuedItemMetric(ID) G {
	return any(p.g).(G)
}
func (queueBurstProvider[ID, G, H]) NewProcessingLatencyMetric(ID) H {
	return any(queueNopHistogram{}).(H)
}
func (queueBurstProvider[ID, G, H]) NewStoreResourceVersionMetric(ID) G {
	return any(&queuePeakGauge{}).(G)
}

// queueBurstSpinWork burns CPU for one delta and returns a value the
// compiler cannot drop.
func queueBurstSpinWork() int { return queueBurstSpinFor(queueBurstSpin) }

// queueBurstSpinFor burns CPU for n steps.
func queueBurstSpinFor(n int) int {
	x := 0
	for i := 0; i < n; i++ {
		x += i * i
	}
	return x
}

// queueBurstSink keeps queueBurstSpinWork's result alive.
var queueBurstSink atomic.Int64

// queueBurstQueue is the surface of an informer-default RealFIFO
// (AtomicEvents, UnlockWhileProcessing) of either package: popBatch
// processes one batch and returns how many deltas it held.
type queueBurstQueue struct {
	add      func(obj interface{}) error
	popBatch func() (int, error)
	close    func()
}

// queueBurstWork processes n deltas.
func queueBurstWork(n int) {
	for i := 0; i < n; i++ {
		queueBurstSink.Add(int64(queueBurstSpinWork()))
	}
}

// queueBurstGVR is the resource of the benchmark's queue identities.
var queueBurstGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// queueBurstNames makes the informer names of the burst benchmark unique.
var queueBurstNames atomic.Int64

// queueBurstCG builds client-go's queue.
func queueBurstCG(g *queuePeakGauge) queueBurstQueue {
	name, err := cg.NewInformerName(fmt.Sprintf("burst-cg-%d", queueBurstNames.Add(1)))
	if err != nil {
		panic(err)
	}
	f := cg.NewRealFIFOWithOptions(cg.RealFIFOOptions{
		AtomicEvents: true, UnlockWhileProcessing: true,
		Identifier: name.WithResource(queueBurstGVR), MetricsProvider: queueBurstProvider[cg.InformerNameAndResource, cg.GaugeMetric, cg.HistogramMetric]{g},
	})
	return queueBurstOn[cg.Delta, cg.PopProcessFunc, cg.ProcessBatchFunc](f)
}

// queueBurstOn wraps f as the burst benchmark's queue: each pop works
// on as many events as it takes.
func queueBurstOn[D any, P ~func(interface{}, bool) error, B ~func([]D, bool) error](f queueRealFIFO[D, P, B]) queueBurstQueue {
	return queueBurstQueue{
		add: f.Add,
		popBatch: func() (n int, err error) {
			err = f.PopBatch(func(ds []D, _ bool) error { n = len(ds); queueBurstWork(n); return nil },
				func(interface{}, bool) error { n = 1; queueBurstWork(1); return nil })
			return n, err
		},
		close: f.Close,
	}
}

// queueBurstKC builds kcache's queue.
func queueBurstKC(g *queuePeakGauge) queueBurstQueue {
	name, err := kc.NewInformerName(fmt.Sprintf("burst-kc-%d", queueBurstNames.Add(1)))
	if err != nil {
		panic(err)
	}
	f := kc.NewRealFIFOWithOptions(kc.RealFIFOOptions{
		AtomicEvents: true, UnlockWhileProcessing: true,
		Identifier: name.WithResource(queueBurstGVR), MetricsProvider: queueBurstProvider[kc.InformerNameAndResource, kc.GaugeMetric, kc.HistogramMetric]{g},
	})
	return queueBurstOn[kc.Delta, kc.PopProcessFunc, kc.ProcessBatchFunc](f)
}

// queueBurstRun pushes queueBurstSize events from one producer goroutine
// while the benchmark goroutine drains them with PopBatch, and returns the
// peak of the queued-items gauge and the peak live heap sampled between
// batches.
func queueBurstRun(b *testing.B, build func(*queuePeakGauge) queueBurstQueue) (peakQueued int64, peakHeap uint64) {
	g := &queuePeakGauge{}
	q := build(g)
	pods := queuePodPool()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < queueBurstSize; i++ {
			queueBurstSink.Add(int64(queueBurstSpinFor(queueBurstProducerSpin)))
			if err := q.add(pods[i%len(pods)]); err != nil {
				b.Error(err)
				return
			}
		}
	}()
	var ms runtime.MemStats
	for popped, batches := 0, 0; popped < queueBurstSize; batches++ {
		if batches%20 == 0 {
			runtime.ReadMemStats(&ms)
			peakHeap = max(peakHeap, ms.HeapAlloc)
		}
		n, err := q.popBatch()
		if err != nil {
			b.Fatal(err)
		}
		popped += n
	}
	wg.Wait()
	q.close()
	return g.peak.Load(), peakHeap
}

// BenchmarkQueueBurstBackPressure measures how far an informer-default
// RealFIFO grows when one producer pushes a burst of 300,000 events three
// times faster than the consumer handles them: the peak of the queued-items gauge
// (peak-queued) and of the live heap (peak-MiB, the shared pod pool
// included). A queue that keeps back-pressure on the producer stays near
// two batches; one that never does grows towards the whole burst.
func BenchmarkQueueBurstBackPressure(b *testing.B) {
	impls := []struct {
		name  string
		build func(*queuePeakGauge) queueBurstQueue
	}{{"client-go", queueBurstCG}, {"kcache", queueBurstKC}}
	queuePodPool()
	for _, impl := range impls {
		b.Run("impl="+impl.name, func(b *testing.B) {
			var queued int64
			var heap uint64
			runtime.GC()
			for i := 0; i < b.N; i++ {
				q, h := queueBurstRun(b, impl.build)
				queued, heap = max(queued, q), max(heap, h)
			}
			b.ReportMetric(float64(queued), "peak-queued")
			b.ReportMetric(float64(heap)/(1<<20), "peak-MiB")
		})
	}
}
