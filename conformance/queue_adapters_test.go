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

// queueProviderOf hands the recorder's metrics to a library's queue: ID is
// the library's InformerNameAndResource, G and H its gauge and histogram
// metric types.
type queueProviderOf[ID, G, H any] struct{ rec *queueMetricsRecorder }

func (p queueProviderOf[ID, G, H]) NewQueuedItemMetric(ID) G {
	return any(queueGauge{p.rec}).(G)
}
func (p queueProviderOf[ID, G, H]) NewProcessingLatencyMetric(ID) H {
	return any(queueHistogram{p.rec}).(H)
}
func (p queueProviderOf[ID, G, H]) NewStoreResourceVersionMetric(ID) G {
	return any(queueGauge{&queueMetricsRecorder{}}).(G)
}

// queueCGProvider and queueKCProvider are the providers of each library.
type (
	queueCGProvider = queueProviderOf[cg.InformerNameAndResource, cg.GaugeMetric, cg.HistogramMetric]
	queueKCProvider = queueProviderOf[kc.InformerNameAndResource, kc.GaugeMetric, kc.HistogramMetric]
)

// queuePodsGVR is the resource the test identities register.
var queuePodsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// queueIdentityCounter makes informer names unique within the test binary.
var queueIdentityCounter int

// queueNextIdentityName returns a fresh informer name.
func queueNextIdentityName() string {
	queueIdentityCounter++
	return fmt.Sprintf("queue-conformance-%d", queueIdentityCounter)
}

// queueIdentity registers a fresh informer name through a library's
// NewInformerName and names pods with it; a registration error panics.
func queueIdentity[N interface {
	WithResource(schema.GroupVersionResource) ID
}, ID any](newName func(string) (N, error)) ID {
	name, err := newName(queueNextIdentityName())
	if err != nil {
		panic(err)
	}
	return name.WithResource(queuePodsGVR)
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

// queueKnown is the part of a known store the consumer writes.
type queueKnown interface {
	Get(obj any) (item any, exists bool, err error)
	Add(obj any) error
	Update(obj any) error
	Delete(obj any) error
}

// queueDeltaFields is the shape both libraries' Delta have.
type queueDeltaFields[DT ~string] = struct {
	Type   DT
	Object any
}

// queueApply applies deltas to a store the way the informer does:
// deletions delete, everything per-object adds or updates; queue-wide
// deltas are ignored (the store only serves as KnownObjects). A nil store
// is left alone.
func queueApply[D ~queueDeltaFields[DT], DT ~string](store queueKnown, ds []D) {
	if store == nil {
		return
	}
	for _, d := range ds {
		delta := queueDeltaFields[DT](d)
		switch delta.Type {
		case "Deleted":
			_ = store.Delete(delta.Object)
		case "Added", "Updated", "Replaced", "Sync":
			if _, ok, _ := store.Get(delta.Object); ok {
				_ = store.Update(delta.Object)
			} else {
				_ = store.Add(delta.Object)
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

// queueKnownStores returns the Indexer the consumer keeps (nil without
// KnownObjects) for each side.
func queueKnownStores(withKnown bool) (cg.Indexer, kc.Indexer) {
	if !withKnown {
		return nil, nil
	}
	return cg.NewIndexer(cg.DeletionHandlingMetaNamespaceKeyFunc, cg.Indexers{}),
		kc.NewIndexer(kc.DeletionHandlingMetaNamespaceKeyFunc, kc.Indexers{})
}

// queueOps are the calls both libraries' RealFIFO and DeltaFIFO have with
// the same signature.
type queueOps interface {
	Add(obj any) error
	Update(obj any) error
	Delete(obj any) error
	Replace(list []any, resourceVersion string) error
	Resync() error
	HasSynced() bool
	Close()
}

// queueOf drives one library's RealFIFO or DeltaFIFO q as a queueSubject,
// with the consumer the informer would put behind it: process functions
// that record what they see and apply the deltas to known.
//
// The type parameters are the library's types: I its Indexer, P its
// PopProcessFunc, B its ProcessBatchFunc, C its DoneChecker, DS its Deltas
// of Delta D and DeltaType DT. queueCG and queueKC name them once.
// Used by one goroutine only.
type queueOf[I queueKnown, P ~func(any, bool) error, B ~func([]D, bool) error, C any, DS ~[]D, D ~queueDeltaFields[DT], DT ~string] struct {
	// q is the *RealFIFO or *DeltaFIFO under test.
	q queueOps
	// delta is true for a DeltaFIFO: no Bookmark, PopBatch or metrics, and
	// a pop reports the popped item's key.
	delta bool
	// known is the store the consumer keeps, or nil.
	known I
	// rec holds a RealFIFO's metrics.
	rec *queueMetricsRecorder
	// isDone is the library's IsDone.
	isDone func(C) bool
	// in converts a generated object for the library.
	in func(any) any
}

// queueCG and queueKC are the subjects of each library.
type (
	queueCG = queueOf[cg.Indexer, cg.PopProcessFunc, cg.ProcessBatchFunc, cg.DoneChecker, cg.Deltas, cg.Delta, cg.DeltaType]
	queueKC = queueOf[kc.Indexer, kc.PopProcessFunc, kc.ProcessBatchFunc, kc.DoneChecker, kc.Deltas, kc.Delta, kc.DeltaType]
)

// queueCGReal wraps client-go's RealFIFO q, whose consumer keeps known and
// whose metrics go to rec.
func queueCGReal(q *cg.RealFIFO, known cg.Indexer, rec *queueMetricsRecorder) *queueCG {
	return &queueCG{q: q, known: known, rec: rec, isDone: cg.IsDone, in: queueAsCG}
}

// queueKCReal is queueCGReal for kcache.
func queueKCReal(q *kc.RealFIFO, known kc.Indexer, rec *queueMetricsRecorder) *queueKC {
	return &queueKC{q: q, known: known, rec: rec, isDone: kc.IsDone, in: queueAsKC}
}

// queueCGDelta wraps client-go's DeltaFIFO q, whose consumer keeps known.
func queueCGDelta(q *cg.DeltaFIFO, known cg.Indexer) *queueCG {
	return &queueCG{q: q, delta: true, known: known, isDone: cg.IsDone, in: queueAsCG}
}

// queueKCDelta is queueCGDelta for kcache.
func queueKCDelta(q *kc.DeltaFIFO, known kc.Indexer) *queueKC {
	return &queueKC{q: q, delta: true, known: known, isDone: kc.IsDone, in: queueAsKC}
}

// queueTransformer is transform when c installs one, nil otherwise.
func queueTransformer(c queueCombination, transform func(interface{}) (interface{}, error)) func(interface{}) (interface{}, error) {
	if !c.Transformer {
		return nil
	}
	return transform
}

// newQueueRealPair builds client-go's and kcache's RealFIFO of
// combination c, client-go's first.
func newQueueRealPair(c queueCombination, transform func(interface{}) (interface{}, error)) (*queueCG, *queueKC) {
	cRec, kRec := &queueMetricsRecorder{}, &queueMetricsRecorder{}
	cOpts := cg.RealFIFOOptions{AtomicEvents: c.Atomic, UnlockWhileProcessing: c.Unlock, EmitDeltaTypeBookmark: c.Bookmarks,
		Identifier: queueIdentity(cg.NewInformerName), MetricsProvider: queueCGProvider{cRec}, Transformer: queueTransformer(c, transform)}
	kOpts := kc.RealFIFOOptions{AtomicEvents: c.Atomic, UnlockWhileProcessing: c.Unlock, EmitDeltaTypeBookmark: c.Bookmarks,
		Identifier: queueIdentity(kc.NewInformerName), MetricsProvider: queueKCProvider{kRec}, Transformer: queueTransformer(c, transform)}
	cKnown, kKnown := queueKnownStores(c.Known)
	cOpts.KnownObjects, kOpts.KnownObjects = queueCGKnownOrNil(cKnown), queueKCKnownOrNil(kKnown)
	return queueCGReal(cg.NewRealFIFOWithOptions(cOpts), cKnown, cRec), queueKCReal(kc.NewRealFIFOWithOptions(kOpts), kKnown, kRec)
}

// newQueueDeltaPair builds client-go's and kcache's DeltaFIFO of
// combination c, client-go's first.
func newQueueDeltaPair(c queueCombination, transform func(interface{}) (interface{}, error)) (*queueCG, *queueKC) {
	cKnown, kKnown := queueKnownStores(c.Known)
	cOpts := cg.DeltaFIFOOptions{EmitDeltaTypeReplaced: c.EmitReplaced, Transformer: queueTransformer(c, transform), KnownObjects: queueCGKnownOrNil(cKnown)}
	kOpts := kc.DeltaFIFOOptions{EmitDeltaTypeReplaced: c.EmitReplaced, Transformer: queueTransformer(c, transform), KnownObjects: queueKCKnownOrNil(kKnown)}
	return queueCGDelta(cg.NewDeltaFIFOWithOptions(cOpts), cKnown), queueKCDelta(kc.NewDeltaFIFOWithOptions(kOpts), kKnown)
}

func (s *queueOf[I, P, B, C, DS, D, DT]) add(obj any) error    { return s.q.Add(s.in(obj)) }
func (s *queueOf[I, P, B, C, DS, D, DT]) update(obj any) error { return s.q.Update(s.in(obj)) }
func (s *queueOf[I, P, B, C, DS, D, DT]) del(obj any) error    { return s.q.Delete(s.in(obj)) }
func (s *queueOf[I, P, B, C, DS, D, DT]) resync() error        { return s.q.Resync() }
func (s *queueOf[I, P, B, C, DS, D, DT]) close()               { s.q.Close() }

// replace converts list for the library, in place, and replaces with it.
func (s *queueOf[I, P, B, C, DS, D, DT]) replace(list []any, rv string) error {
	for i, o := range list {
		list[i] = s.in(o)
	}
	return s.q.Replace(list, rv)
}

// bookmark calls a RealFIFO's Bookmark; a DeltaFIFO has none.
func (s *queueOf[I, P, B, C, DS, D, DT]) bookmark(rv string) error {
	if s.delta {
		return nil
	}
	return s.q.(interface{ Bookmark(string) error }).Bookmark(rv)
}

// depth is a RealFIFO's last queued-items value, -1 for a DeltaFIFO.
func (s *queueOf[I, P, B, C, DS, D, DT]) depth() int {
	if s.delta {
		return -1
	}
	return int(s.rec.lastDepth)
}

// observed is a RealFIFO's count of latency observations, 0 for a DeltaFIFO.
func (s *queueOf[I, P, B, C, DS, D, DT]) observed() int {
	if s.delta {
		return 0
	}
	return s.rec.observations
}

func (s *queueOf[I, P, B, C, DS, D, DT]) syncState() string {
	checker := s.q.(interface{ HasSyncedChecker() C }).HasSyncedChecker()
	return fmt.Sprintf("synced=%v done=%v", s.q.HasSynced(), s.isDone(checker))
}

// process is the consumer's PopProcessFunc: it records the item under
// kind and applies the deltas it carries to the known store.
func (s *queueOf[I, P, B, C, DS, D, DT]) process(log *queueConsumerLog, kind string, fail error) P {
	return func(obj any, initial bool) error {
		log.record(kind, obj, initial)
		if ds, ok := obj.(DS); ok {
			queueApply(s.knownStore(), []D(ds))
		}
		return fail
	}
}

// knownStore is the known store as a queueKnown, nil when there is none.
func (s *queueOf[I, P, B, C, DS, D, DT]) knownStore() queueKnown {
	if any(s.known) == nil {
		return nil
	}
	return s.known
}

// pop runs Pop once; a DeltaFIFO's result also reports the item's key.
func (s *queueOf[I, P, B, C, DS, D, DT]) pop(fail error) string {
	var log queueConsumerLog
	item, err := s.q.(interface{ Pop(P) (any, error) }).Pop(s.process(&log, "process", fail))
	if !s.delta {
		return fmt.Sprintf("%s -> %s %s", log.String(), queueRender(item), queueRenderErr(err))
	}
	key := "-"
	if item != nil {
		k, kerr := s.q.(interface{ KeyOf(any) (string, error) }).KeyOf(item)
		key = k + " " + queueRenderErr(kerr)
	}
	return fmt.Sprintf("%s -> %s key=%s %s", log.String(), queueRender(item), key, queueRenderErr(err))
}

// popBatch runs a RealFIFO's PopBatch once; a DeltaFIFO has none.
func (s *queueOf[I, P, B, C, DS, D, DT]) popBatch(fail error) string {
	if s.delta {
		return "no PopBatch"
	}
	var log queueConsumerLog
	batch := func(ds []D, initial bool) error {
		log.record("batch", ds, initial)
		queueApply(s.knownStore(), ds)
		return fail
	}
	err := s.q.(interface{ PopBatch(B, P) error }).PopBatch(batch, s.process(&log, "single", fail))
	return fmt.Sprintf("%s -> %s", log.String(), queueRenderErr(err))
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
