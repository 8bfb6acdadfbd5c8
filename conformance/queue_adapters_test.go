package conformance

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	cg "k8s.io/client-go/tools/cache"

	kc "github.com/kcache-go/cache"
)

// queueSubject is one queue under test, client-go's or kcache's, with the
// consumer the informer would put behind it. Every method returns or records
// what a consumer can observe, rendered with queueRender.
type queueSubject interface {
	add(obj interface{}) error
	update(obj interface{}) error
	del(obj interface{}) error
	replace(list []interface{}, rv string) error
	resync() error
	bookmark(rv string) error
	// pop runs Pop once; the process function returns fail.
	pop(fail error) string
	// popBatch runs PopBatch once (RealFIFO only).
	popBatch(fail error) string
	// syncState renders HasSynced and whether the DoneChecker is done.
	syncState() string
	// depth is the last value of the queued-items gauge (RealFIFO only).
	depth() int
	// observed is how many processing latencies were recorded.
	observed() int
	close()
}

// queueMetricsRecorder keeps what a queue published through its metrics.
type queueMetricsRecorder struct {
	// lastDepth is the last queued-items value set.
	lastDepth float64
	// observations counts processing-latency observations.
	observations int
}

// queueGauge records Set calls into the recorder.
type queueGauge struct{ rec *queueMetricsRecorder }

func (g queueGauge) Set(v float64) { g.rec.lastDepth = v }

// queueHistogram counts Observe calls.
type queueHistogram struct{ rec *queueMetricsRecorder }

func (h queueHistogram) Observe(float64) { h.rec.observations++ }

// queueCGProvider hands the recorder's metrics to client-go's queue.
type queueCGProvider struct{ rec *queueMetricsRecorder }

func (p queueCGProvider) NewQueuedItemMetric(cg.InformerNameAndResource) cg.GaugeMetric {
	return queueGauge{p.rec}
}
func (p queueCGProvider) NewProcessingLatencyMetric(cg.InformerNameAndResource) cg.HistogramMetric {
	return queueHistogram{p.rec}
}
func (p queueCGProvider) NewStoreResourceVersionMetric(cg.InformerNameAndResource) cg.GaugeMetric {
	return queueGauge{&queueMetricsRecorder{}}
}

// queueKCProvider hands the recorder's metrics to kcache's queue.
type queueKCProvider struct{ rec *queueMetricsRecorder }

func (p queueKCProvider) NewQueuedItemMetric(kc.InformerNameAndResource) kc.GaugeMetric {
	return queueGauge{p.rec}
}
func (p queueKCProvider) NewProcessingLatencyMetric(kc.InformerNameAndResource) kc.HistogramMetric {
	return queueHistogram{p.rec}
}
func (p queueKCProvider) NewStoreResourceVersionMetric(kc.InformerNameAndResource) kc.GaugeMetric {
	return queueGauge{&queueMetricsRecorder{}}
}

// queuePodsGVR is the resource the test identities register.
var queuePodsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// queueIdentityCounter makes informer names unique within the test binary.
var queueIdentityCounter int

// queueNextIdentityName returns a fresh informer name.
func queueNextIdentityName() string {
	queueIdentityCounter++
	return fmt.Sprintf("queue-conformance-%d", queueIdentityCounter)
}

// queueCGSortedKeys is a client-go Indexer whose ListKeys is sorted: the real
// store, with the map-order randomness of key listing taken out so that both
// queues see known keys in the same order.
type queueCGSortedKeys struct{ cg.Indexer }

func (s queueCGSortedKeys) ListKeys() []string {
	keys := s.Indexer.ListKeys()
	sort.Strings(keys)
	return keys
}

// queueKCSortedKeys is queueCGSortedKeys for a kcache Indexer.
type queueKCSortedKeys struct{ kc.Indexer }

func (s queueKCSortedKeys) ListKeys() []string {
	keys := s.Indexer.ListKeys()
	sort.Strings(keys)
	return keys
}

// queueApplyCG applies deltas to a client-go store the way the informer
// does: deletions delete, everything per-object adds or updates; queue-wide
// deltas are ignored (the store only serves as KnownObjects).
func queueApplyCG(store cg.Indexer, ds []cg.Delta) {
	if store == nil {
		return
	}
	for _, d := range ds {
		switch d.Type {
		case cg.Deleted:
			_ = store.Delete(d.Object)
		case cg.Added, cg.Updated, cg.Replaced, cg.Sync:
			if _, ok, _ := store.Get(d.Object); ok {
				_ = store.Update(d.Object)
			} else {
				_ = store.Add(d.Object)
			}
		}
	}
}

// queueApplyKC is queueApplyCG for kcache.
func queueApplyKC(store kc.Indexer, ds []kc.Delta) {
	if store == nil {
		return
	}
	for _, d := range ds {
		switch d.Type {
		case kc.Deleted:
			_ = store.Delete(d.Object)
		case kc.Added, kc.Updated, kc.Replaced, kc.Sync:
			if _, ok, _ := store.Get(d.Object); ok {
				_ = store.Update(d.Object)
			} else {
				_ = store.Add(d.Object)
			}
		}
	}
}

// queueConsumerLog collects what the process functions saw during one pop.
type queueConsumerLog struct{ calls []string }

func (l *queueConsumerLog) record(kind string, item interface{}, initial bool) {
	l.calls = append(l.calls, fmt.Sprintf("%s(%s, initial=%v)", kind, queueRender(item), initial))
}

func (l *queueConsumerLog) String() string { return strings.Join(l.calls, " ") }

// queueKnownStore returns the Indexer the consumer keeps (nil without
// KnownObjects) for each side.
func queueKnownStores(withKnown bool) (cg.Indexer, kc.Indexer) {
	if !withKnown {
		return nil, nil
	}
	return cg.NewIndexer(cg.DeletionHandlingMetaNamespaceKeyFunc, cg.Indexers{}),
		kc.NewIndexer(kc.DeletionHandlingMetaNamespaceKeyFunc, kc.Indexers{})
}

// queueCGReal drives client-go's RealFIFO.
type queueCGReal struct {
	q     *cg.RealFIFO
	known cg.Indexer
	rec   *queueMetricsRecorder
}

func newQueueCGReal(c queueCombination, transform func(interface{}) (interface{}, error)) *queueCGReal {
	s := &queueCGReal{rec: &queueMetricsRecorder{}}
	name, err := cg.NewInformerName(queueNextIdentityName())
	if err != nil {
		panic(err)
	}
	opts := cg.RealFIFOOptions{
		AtomicEvents:          c.Atomic,
		UnlockWhileProcessing: c.Unlock,
		EmitDeltaTypeBookmark: c.Bookmarks,
		Identifier:            name.WithResource(queuePodsGVR),
		MetricsProvider:       queueCGProvider{s.rec},
	}
	if c.Transformer {
		opts.Transformer = transform
	}
	if c.Known {
		s.known, _ = queueKnownStores(true)
		opts.KnownObjects = queueCGSortedKeys{s.known}
	}
	s.q = cg.NewRealFIFOWithOptions(opts)
	return s
}

func (s *queueCGReal) add(obj interface{}) error    { return s.q.Add(queueAsCG(obj)) }
func (s *queueCGReal) update(obj interface{}) error { return s.q.Update(queueAsCG(obj)) }
func (s *queueCGReal) del(obj interface{}) error    { return s.q.Delete(queueAsCG(obj)) }
func (s *queueCGReal) replace(list []interface{}, rv string) error {
	return s.q.Replace(queueListAsCG(list), rv)
}
func (s *queueCGReal) resync() error            { return s.q.Resync() }
func (s *queueCGReal) bookmark(rv string) error { return s.q.Bookmark(rv) }
func (s *queueCGReal) depth() int               { return int(s.rec.lastDepth) }
func (s *queueCGReal) observed() int            { return s.rec.observations }
func (s *queueCGReal) close()                   { s.q.Close() }
func (s *queueCGReal) syncState() string {
	return fmt.Sprintf("synced=%v done=%v", s.q.HasSynced(), cg.IsDone(s.q.HasSyncedChecker()))
}

func (s *queueCGReal) pop(fail error) string {
	var log queueConsumerLog
	item, err := s.q.Pop(func(obj interface{}, initial bool) error {
		log.record("process", obj, initial)
		if ds, ok := obj.(cg.Deltas); ok {
			queueApplyCG(s.known, ds)
		}
		return fail
	})
	return fmt.Sprintf("%s -> %s %s", log.String(), queueRender(item), queueRenderErr(err))
}

func (s *queueCGReal) popBatch(fail error) string {
	var log queueConsumerLog
	err := s.q.PopBatch(func(ds []cg.Delta, initial bool) error {
		log.record("batch", ds, initial)
		queueApplyCG(s.known, ds)
		return fail
	}, func(obj interface{}, initial bool) error {
		log.record("single", obj, initial)
		if ds, ok := obj.(cg.Deltas); ok {
			queueApplyCG(s.known, ds)
		}
		return fail
	})
	return fmt.Sprintf("%s -> %s", log.String(), queueRenderErr(err))
}

// queueKCReal drives kcache's RealFIFO.
type queueKCReal struct {
	q     *kc.RealFIFO
	known kc.Indexer
	rec   *queueMetricsRecorder
}

func newQueueKCReal(c queueCombination, transform func(interface{}) (interface{}, error)) *queueKCReal {
	s := &queueKCReal{rec: &queueMetricsRecorder{}}
	name, err := kc.NewInformerName(queueNextIdentityName())
	if err != nil {
		panic(err)
	}
	opts := kc.RealFIFOOptions{
		AtomicEvents:          c.Atomic,
		UnlockWhileProcessing: c.Unlock,
		EmitDeltaTypeBookmark: c.Bookmarks,
		Identifier:            name.WithResource(queuePodsGVR),
		MetricsProvider:       queueKCProvider{s.rec},
	}
	if c.Transformer {
		opts.Transformer = transform
	}
	if c.Known {
		_, s.known = queueKnownStores(true)
		opts.KnownObjects = queueKCSortedKeys{s.known}
	}
	s.q = kc.NewRealFIFOWithOptions(opts)
	return s
}

func (s *queueKCReal) add(obj interface{}) error    { return s.q.Add(queueAsKC(obj)) }
func (s *queueKCReal) update(obj interface{}) error { return s.q.Update(queueAsKC(obj)) }
func (s *queueKCReal) del(obj interface{}) error    { return s.q.Delete(queueAsKC(obj)) }
func (s *queueKCReal) replace(list []interface{}, rv string) error {
	return s.q.Replace(queueListAsKC(list), rv)
}
func (s *queueKCReal) resync() error            { return s.q.Resync() }
func (s *queueKCReal) bookmark(rv string) error { return s.q.Bookmark(rv) }
func (s *queueKCReal) depth() int               { return int(s.rec.lastDepth) }
func (s *queueKCReal) observed() int            { return s.rec.observations }
func (s *queueKCReal) close()                   { s.q.Close() }
func (s *queueKCReal) syncState() string {
	return fmt.Sprintf("synced=%v done=%v", s.q.HasSynced(), kc.IsDone(s.q.HasSyncedChecker()))
}

func (s *queueKCReal) pop(fail error) string {
	var log queueConsumerLog
	item, err := s.q.Pop(func(obj interface{}, initial bool) error {
		log.record("process", obj, initial)
		if ds, ok := obj.(kc.Deltas); ok {
			queueApplyKC(s.known, ds)
		}
		return fail
	})
	return fmt.Sprintf("%s -> %s %s", log.String(), queueRender(item), queueRenderErr(err))
}

func (s *queueKCReal) popBatch(fail error) string {
	var log queueConsumerLog
	err := s.q.PopBatch(func(ds []kc.Delta, initial bool) error {
		log.record("batch", ds, initial)
		queueApplyKC(s.known, ds)
		return fail
	}, func(obj interface{}, initial bool) error {
		log.record("single", obj, initial)
		if ds, ok := obj.(kc.Deltas); ok {
			queueApplyKC(s.known, ds)
		}
		return fail
	})
	return fmt.Sprintf("%s -> %s", log.String(), queueRenderErr(err))
}

// queueCGDelta drives client-go's DeltaFIFO.
type queueCGDelta struct {
	q     *cg.DeltaFIFO
	known cg.Indexer
}

func newQueueCGDelta(c queueCombination, transform func(interface{}) (interface{}, error)) *queueCGDelta {
	s := &queueCGDelta{}
	opts := cg.DeltaFIFOOptions{EmitDeltaTypeReplaced: c.EmitReplaced}
	if c.Transformer {
		opts.Transformer = transform
	}
	if c.Known {
		s.known, _ = queueKnownStores(true)
		opts.KnownObjects = queueCGSortedKeys{s.known}
	}
	s.q = cg.NewDeltaFIFOWithOptions(opts)
	return s
}

func (s *queueCGDelta) add(obj interface{}) error    { return s.q.Add(queueAsCG(obj)) }
func (s *queueCGDelta) update(obj interface{}) error { return s.q.Update(queueAsCG(obj)) }
func (s *queueCGDelta) del(obj interface{}) error    { return s.q.Delete(queueAsCG(obj)) }
func (s *queueCGDelta) replace(list []interface{}, rv string) error {
	return s.q.Replace(queueListAsCG(list), rv)
}
func (s *queueCGDelta) resync() error         { return s.q.Resync() }
func (s *queueCGDelta) bookmark(string) error { return nil }
func (s *queueCGDelta) depth() int            { return -1 }
func (s *queueCGDelta) observed() int         { return 0 }
func (s *queueCGDelta) close()                { s.q.Close() }
func (s *queueCGDelta) popBatch(error) string { return "no PopBatch" }
func (s *queueCGDelta) syncState() string {
	return fmt.Sprintf("synced=%v done=%v", s.q.HasSynced(), cg.IsDone(s.q.HasSyncedChecker()))
}

func (s *queueCGDelta) pop(fail error) string {
	var log queueConsumerLog
	item, err := s.q.Pop(func(obj interface{}, initial bool) error {
		log.record("process", obj, initial)
		if ds, ok := obj.(cg.Deltas); ok {
			queueApplyCG(s.known, ds)
		}
		return fail
	})
	key := "-"
	if item != nil {
		k, kerr := s.q.KeyOf(item)
		key = k + " " + queueRenderErr(kerr)
	}
	return fmt.Sprintf("%s -> %s key=%s %s", log.String(), queueRender(item), key, queueRenderErr(err))
}

// queueKCDelta drives kcache's DeltaFIFO.
type queueKCDelta struct {
	q     *kc.DeltaFIFO
	known kc.Indexer
}

func newQueueKCDelta(c queueCombination, transform func(interface{}) (interface{}, error)) *queueKCDelta {
	s := &queueKCDelta{}
	opts := kc.DeltaFIFOOptions{EmitDeltaTypeReplaced: c.EmitReplaced}
	if c.Transformer {
		opts.Transformer = transform
	}
	if c.Known {
		_, s.known = queueKnownStores(true)
		opts.KnownObjects = queueKCSortedKeys{s.known}
	}
	s.q = kc.NewDeltaFIFOWithOptions(opts)
	return s
}

func (s *queueKCDelta) add(obj interface{}) error    { return s.q.Add(queueAsKC(obj)) }
func (s *queueKCDelta) update(obj interface{}) error { return s.q.Update(queueAsKC(obj)) }
func (s *queueKCDelta) del(obj interface{}) error    { return s.q.Delete(queueAsKC(obj)) }
func (s *queueKCDelta) replace(list []interface{}, rv string) error {
	return s.q.Replace(queueListAsKC(list), rv)
}
func (s *queueKCDelta) resync() error         { return s.q.Resync() }
func (s *queueKCDelta) bookmark(string) error { return nil }
func (s *queueKCDelta) depth() int            { return -1 }
func (s *queueKCDelta) observed() int         { return 0 }
func (s *queueKCDelta) close()                { s.q.Close() }
func (s *queueKCDelta) popBatch(error) string { return "no PopBatch" }
func (s *queueKCDelta) syncState() string {
	return fmt.Sprintf("synced=%v done=%v", s.q.HasSynced(), kc.IsDone(s.q.HasSyncedChecker()))
}

func (s *queueKCDelta) pop(fail error) string {
	var log queueConsumerLog
	item, err := s.q.Pop(func(obj interface{}, initial bool) error {
		log.record("process", obj, initial)
		if ds, ok := obj.(kc.Deltas); ok {
			queueApplyKC(s.known, ds)
		}
		return fail
	})
	key := "-"
	if item != nil {
		k, kerr := s.q.KeyOf(item)
		key = k + " " + queueRenderErr(kerr)
	}
	return fmt.Sprintf("%s -> %s key=%s %s", log.String(), queueRender(item), key, queueRenderErr(err))
}

// queueTombstone is a package-neutral deletion tombstone produced by the
// generator; queueAsCG and queueAsKC turn it into each package's
// DeletedFinalStateUnknown.
type queueTombstone struct {
	key string
	obj interface{}
}

// queueAsCG converts a generated object (a tombstone, or any neutral form
// of queueBadAsCG) for client-go.
func queueAsCG(obj interface{}) interface{} { return queueBadAsCG(obj) }

// queueAsKC converts a generated object for kcache.
func queueAsKC(obj interface{}) interface{} { return queueBadAsKC(obj) }

// queueListAsCG converts a generated list for client-go, in place.
func queueListAsCG(list []interface{}) []interface{} {
	for i, o := range list {
		list[i] = queueAsCG(o)
	}
	return list
}

// queueListAsKC converts a generated list for kcache, in place.
func queueListAsKC(list []interface{}) []interface{} {
	for i, o := range list {
		list[i] = queueAsKC(o)
	}
	return list
}
