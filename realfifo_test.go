package cache

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// queueText renders what a queue hands its consumer: objects as
// name@rv, tombstones, queue-wide payloads, Deltas and batches.
func queueText(x interface{}) string {
	switch v := x.(type) {
	case nil:
		return "nil"
	case *v1.Pod:
		return v.Name + "@" + v.ResourceVersion
	case DeletedFinalStateUnknown:
		return "Tombstone(" + v.Key + "," + queueText(v.Obj) + ")"
	case ReplacedAllInfo:
		parts := make([]string, len(v.Objects))
		for i, o := range v.Objects {
			parts[i] = queueText(o)
		}
		return "All(" + v.ResourceVersion + ":" + strings.Join(parts, ",") + ")"
	case SyncAllInfo:
		return "SyncAll"
	case BookmarkInfo:
		return "Bookmark(" + v.ResourceVersion + ")"
	case Deltas:
		return queueText([]Delta(v))
	case []Delta:
		parts := make([]string, len(v))
		for i, d := range v {
			parts[i] = string(d.Type) + ":" + queueText(d.Object)
		}
		return strings.Join(parts, " ")
	}
	return fmt.Sprintf("%T", x)
}

// queueDrainBatches pops f with PopBatch until it is empty, returning one
// line per call: "batch|single initial=<bool>: deltas".
func queueDrainBatches(t *testing.T, f *RealFIFO) []string {
	t.Helper()
	var out []string
	for f.pending.Len() > 0 {
		err := f.PopBatch(func(ds []Delta, initial bool) error {
			out = append(out, fmt.Sprintf("batch initial=%v: %s", initial, queueText(ds)))
			return nil
		}, func(obj interface{}, initial bool) error {
			out = append(out, fmt.Sprintf("single initial=%v: %s", initial, queueText(obj)))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// queueAtomic returns an atomic RealFIFO with opts applied.
func queueAtomic(opts RealFIFOOptions) *RealFIFO {
	opts.AtomicEvents = true
	return NewRealFIFOWithOptions(opts)
}

// queueKnown returns an indexer holding the given pods.
func queueKnown(pods ...*v1.Pod) Indexer {
	idx := NewIndexer(MetaNamespaceKeyFunc, Indexers{})
	for _, p := range pods {
		_ = idx.Add(p)
	}
	return idx
}

func TestRealFIFODeliversEveryChangeInArrivalOrderWithoutMerging(t *testing.T) {
	f := queueAtomic(RealFIFOOptions{})
	mustNoErr(t, f.Add(testPod("ns", "a", "1")))
	mustNoErr(t, f.Update(testPod("ns", "a", "2")))
	mustNoErr(t, f.Update(testPod("ns", "a", "3")))
	mustNoErr(t, f.Delete(testPod("ns", "a", "4")))
	mustNoErr(t, f.Delete(testPod("ns", "never-added", "5")))
	var got []string
	for i := 0; i < 5; i++ {
		item, err := f.Pop(func(obj interface{}, initial bool) error { return nil })
		mustNoErr(t, err)
		got = append(got, queueText(item))
	}
	want := []string{"Added:a@1", "Updated:a@2", "Updated:a@3", "Deleted:a@4", "Deleted:never-added@5"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("popped %q, want %q", got, want)
	}
}

func TestAtomicReplaceResyncAndBookmarkQueueOneDeltaEach(t *testing.T) {
	cases := []struct {
		name      string
		bookmarks bool
		want      []string
	}{
		{"bookmarks emitted", true, []string{
			"single initial=true: Bookmark:Bookmark(1)",
			"single initial=true: ReplacedAll:All(2:a@2,b@2)",
			"single initial=false: SyncAll:SyncAll",
			"single initial=false: Added:c@3",
		}},
		{"bookmarks dropped", false, []string{
			"single initial=true: ReplacedAll:All(2:a@2,b@2)",
			"single initial=false: SyncAll:SyncAll",
			"single initial=false: Added:c@3",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := queueAtomic(RealFIFOOptions{EmitDeltaTypeBookmark: tc.bookmarks})
			mustNoErr(t, f.Bookmark("1"))
			mustNoErr(t, f.Replace([]interface{}{testPod("ns", "a", "2"), testPod("ns", "b", "2")}, "2"))
			mustNoErr(t, f.Resync())
			mustNoErr(t, f.Add(testPod("ns", "c", "3")))
			if got := queueDrainBatches(t, f); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

func TestNonAtomicReplaceTombstonesQueuedAndKnownKeysMissingFromTheList(t *testing.T) {
	known := queueSortedKnown{queueKnown(testPod("ns", "k1", "1"), testPod("ns", "k2", "1"), testPod("ns", "k3", "1"))}
	f := NewRealFIFOWithOptions(RealFIFOOptions{KnownObjects: known})
	mustNoErr(t, f.Add(testPod("ns", "q2", "2")))
	mustNoErr(t, f.Add(testPod("ns", "q1", "2")))
	mustNoErr(t, f.Delete(testPod("ns", "q1", "3"))) // newest queued is a deletion: no tombstone
	mustNoErr(t, f.Update(testPod("ns", "q2", "4"))) // tombstone carries the newest queued object
	mustNoErr(t, f.Add(testPod("ns", "k2", "5")))    // known and queued: tombstoned once, from the queue
	mustNoErr(t, f.Replace([]interface{}{testPod("ns", "k1", "9"), testPod("ns", "n1", "9")}, "9"))
	var got []string
	for f.pending.Len() > 0 {
		item, err := f.Pop(func(interface{}, bool) error { return nil })
		mustNoErr(t, err)
		got = append(got, queueText(item))
	}
	want := []string{
		"Added:q2@2", "Added:q1@2", "Deleted:q1@3", "Updated:q2@4", "Added:k2@5",
		"Deleted:Tombstone(ns/q2,q2@4)", "Deleted:Tombstone(ns/k2,k2@5)", // queued keys, in order of first queueing
		"Deleted:Tombstone(ns/k3,k3@1)", // known key, from the store
		"Replaced:k1@9", "Replaced:n1@9",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// queueSortedKnown lists an Indexer's keys sorted, so that tests can state
// the order in which a queue walks KnownObjects.
type queueSortedKnown struct{ Indexer }

func (s queueSortedKnown) ListKeys() []string {
	keys := s.Indexer.ListKeys()
	sort.Strings(keys)
	return keys
}

func TestNonAtomicResyncSyncsOnlyKnownKeysWithNothingQueued(t *testing.T) {
	known := queueSortedKnown{queueKnown(testPod("ns", "k1", "1"), testPod("ns", "k2", "1"), testPod("ns", "k3", "1"))}
	f := NewRealFIFOWithOptions(RealFIFOOptions{KnownObjects: known, Transformer: func(o interface{}) (interface{}, error) {
		p := *o.(*v1.Pod)
		p.ResourceVersion += "t"
		return &p, nil
	}})
	mustNoErr(t, f.Update(testPod("ns", "k2", "2")))
	mustNoErr(t, f.Resync())
	got := queueDrainBatches(t, f)
	// k1 and k3 come from the store, not transformed again, in its key order.
	want := []string{"batch initial=false: Updated:k2@2t Sync:k1@1 Sync:k3@1"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestPopBatchCutsAtTheCapRepeatedKeysQueueWideDeltasAndTheInitialPopulation(t *testing.T) {
	sizes := func(lines []string) []string {
		var out []string
		for _, l := range lines {
			kind, rest, _ := strings.Cut(l, ":")
			out = append(out, fmt.Sprintf("%s/%d", kind, len(strings.Fields(rest))))
		}
		return out
	}
	cases := []struct {
		name string
		fill func(f *RealFIFO)
		want []string
	}{
		{"2500 distinct keys", func(f *RealFIFO) {
			for i := 0; i < 2500; i++ {
				_ = f.Add(testPod("ns", fmt.Sprintf("p%d", i), "1"))
			}
		}, []string{"batch initial=false/1000", "batch initial=false/1000", "batch initial=false/500"}},
		{"a repeated key ends the batch before it", func(f *RealFIFO) {
			for _, n := range []string{"a", "b", "c", "b", "d"} {
				_ = f.Add(testPod("ns", n, "1"))
			}
		}, []string{"batch initial=false/3", "batch initial=false/2"}},
		{"queue-wide deltas travel alone", func(f *RealFIFO) {
			_ = f.Add(testPod("ns", "a", "1"))
			_ = f.Resync()
			_ = f.Add(testPod("ns", "b", "1"))
			_ = f.Add(testPod("ns", "c", "1"))
		}, []string{"single initial=false/1", "single initial=false/1", "batch initial=false/2"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := queueAtomic(RealFIFOOptions{})
			tc.fill(f)
			if got := sizes(queueDrainBatches(t, f)); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("batches %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("the initial population ends a batch", func(t *testing.T) {
		f := NewRealFIFOWithOptions(RealFIFOOptions{KnownObjects: queueKnown()})
		mustNoErr(t, f.Replace([]interface{}{testPod("ns", "a", "1"), testPod("ns", "b", "1"), testPod("ns", "c", "1")}, "1"))
		mustNoErr(t, f.Add(testPod("ns", "d", "2")))
		mustNoErr(t, f.Add(testPod("ns", "e", "2")))
		got := queueDrainBatches(t, f)
		want := []string{"batch initial=true: Replaced:a@1 Replaced:b@1 Replaced:c@1", "batch initial=false: Added:d@2 Added:e@2"}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("got %q, want %q", got, want)
		}
	})
}

func TestHasSyncedTurnsTrueOnlyAfterTheInitialItemsAreProcessed(t *testing.T) {
	for _, unlock := range []bool{false, true} {
		t.Run(fmt.Sprintf("unlock=%v", unlock), func(t *testing.T) {
			f := queueAtomic(RealFIFOOptions{UnlockWhileProcessing: unlock})
			mustNoErr(t, f.Resync()) // queued before the population: not synced by it
			if f.HasSynced() {
				t.Fatal("synced before any Replace or Add")
			}
			mustNoErr(t, f.Replace([]interface{}{testPod("ns", "a", "1")}, "1"))
			for i, want := range []bool{false, true} {
				var during bool
				_, err := f.Pop(func(interface{}, bool) error { during = f.HasSynced(); return nil })
				mustNoErr(t, err)
				if during {
					t.Fatalf("pop %d: HasSynced true while the item was being processed", i)
				}
				if f.HasSynced() != want || IsDone(f.HasSyncedChecker()) != want {
					t.Fatalf("pop %d: HasSynced %v, want %v", i, f.HasSynced(), want)
				}
			}
		})
	}
	t.Run("an Add before any Replace syncs at once, even if it fails", func(t *testing.T) {
		f := queueAtomic(RealFIFOOptions{})
		if err := f.Add(42); err == nil {
			t.Fatal("Add of an object without metadata succeeded")
		}
		if !f.HasSynced() {
			t.Fatal("not synced after an Add")
		}
	})
	t.Run("a failed Replace does not start the population", func(t *testing.T) {
		f := queueAtomic(RealFIFOOptions{Transformer: func(interface{}) (interface{}, error) { return nil, errors.New("no") }})
		if err := f.Replace([]interface{}{testPod("ns", "a", "1")}, "1"); err == nil || err.Error() != "no" {
			t.Fatalf("Replace error %v, want the transformer's", err)
		}
		if f.HasSynced() || f.pending.Len() != 0 {
			t.Fatalf("synced=%v queued=%d after a failed Replace", f.HasSynced(), f.pending.Len())
		}
	})
}

func TestRealFIFOReportsKeyAndTransformerErrors(t *testing.T) {
	reject := func(o interface{}) (interface{}, error) {
		if p, ok := o.(*v1.Pod); ok && p.Name == "bad" {
			return nil, errors.New("rejected")
		}
		return o, nil
	}
	t.Run("atomic", func(t *testing.T) {
		f := queueAtomic(RealFIFOOptions{Transformer: reject})
		err := f.Add(42)
		var keyErr KeyError
		if !errors.As(err, &keyErr) || keyErr.Obj != 42 {
			t.Fatalf("Add(42) = %v, want a KeyError for 42", err)
		}
		if err := f.Update(testPod("ns", "bad", "1")); err == nil || err.Error() != "rejected" {
			t.Fatalf("Update(bad) = %v, want the transformer's error", err)
		}
		if f.pending.Len() != 0 {
			t.Fatalf("%d deltas queued by failing calls", f.pending.Len())
		}
	})
	t.Run("non-atomic Replace keeps what it queued before a transformer error", func(t *testing.T) {
		f := NewRealFIFOWithOptions(RealFIFOOptions{KnownObjects: queueKnown(testPod("ns", "gone", "1")), Transformer: reject})
		err := f.Replace([]interface{}{testPod("ns", "a", "2"), testPod("ns", "bad", "2"), testPod("ns", "c", "2")}, "2")
		if err == nil || err.Error() != "couldn't enqueue object: rejected" {
			t.Fatalf("Replace = %v", err)
		}
		got := queueDrainBatches(t, f)
		want := []string{"batch initial=true: Deleted:Tombstone(ns/gone,gone@1) Replaced:a@2"}
		if !reflect.DeepEqual(got, want) || f.HasSynced() {
			t.Fatalf("got %q synced=%v, want %q and not synced", got, f.HasSynced(), want)
		}
	})
	t.Run("non-atomic Replace queues nothing after a key error", func(t *testing.T) {
		f := NewRealFIFOWithOptions(RealFIFOOptions{KnownObjects: queueKnown(testPod("ns", "gone", "1"))})
		var keyErr KeyError
		if err := f.Replace([]interface{}{testPod("ns", "a", "2"), 42}, "2"); !errors.As(err, &keyErr) {
			t.Fatalf("Replace = %v, want a KeyError", err)
		}
		if f.pending.Len() != 0 {
			t.Fatalf("%d deltas queued", f.pending.Len())
		}
	})
}

func TestNewRealFIFOWithOptionsPanicsOnCombinationsThatCannotWork(t *testing.T) {
	known := queueKnown()
	cases := []struct {
		name string
		opts RealFIFOOptions
		want string
	}{
		{"non-atomic without known objects", RealFIFOOptions{}, "coding error: knownObjects must be provided when AtomicEvents is false"},
		{"atomic with known objects", RealFIFOOptions{AtomicEvents: true, KnownObjects: known}, "coding error: knownObjects must not be provided when AtomicEvents is true"},
		{"unlock without atomic", RealFIFOOptions{UnlockWhileProcessing: true}, "coding error: UnlockWhileProcessing must be false when AtomicEvents is false"},
		{"bookmarks without atomic", RealFIFOOptions{EmitDeltaTypeBookmark: true, KnownObjects: known}, "coding error: EmitDeltaTypeBookmark must be false when AtomicEvents is false"},
		{"valid atomic", RealFIFOOptions{AtomicEvents: true, UnlockWhileProcessing: true, EmitDeltaTypeBookmark: true}, ""},
		{"valid non-atomic", RealFIFOOptions{KnownObjects: known}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := func() (msg string) {
				defer func() {
					if r := recover(); r != nil {
						msg = fmt.Sprint(r)
					}
				}()
				NewRealFIFOWithOptions(tc.opts)
				return ""
			}()
			if got != tc.want {
				t.Fatalf("panic %q, want %q", got, tc.want)
			}
		})
	}
}

// queueRecordingProvider records what a queue publishes.
type queueRecordingProvider struct {
	depths    []float64
	latencies int
	created   int
}

func (p *queueRecordingProvider) NewQueuedItemMetric(InformerNameAndResource) GaugeMetric {
	p.created++
	return queueRecordingGauge{p}
}
func (p *queueRecordingProvider) NewProcessingLatencyMetric(InformerNameAndResource) HistogramMetric {
	p.created++
	return queueRecordingHistogram{p}
}
func (p *queueRecordingProvider) NewStoreResourceVersionMetric(InformerNameAndResource) GaugeMetric {
	return noopMetric{}
}

type queueRecordingGauge struct{ p *queueRecordingProvider }

func (g queueRecordingGauge) Set(v float64) { g.p.depths = append(g.p.depths, v) }

type queueRecordingHistogram struct{ p *queueRecordingProvider }

func (h queueRecordingHistogram) Observe(v float64) {
	if v < 0 {
		panic("negative latency")
	}
	h.p.latencies++
}

func TestRealFIFOPublishesDepthAndLatencyOnlyForAReservedIdentity(t *testing.T) {
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	name, err := NewInformerName("realfifo-metrics-test")
	mustNoErr(t, err)
	defer name.Release()
	reserved := name.WithResource(gvr)
	duplicate := name.WithResource(gvr)
	cases := []struct {
		name      string
		id        InformerNameAndResource
		wantDepth []float64
		wantLat   int
	}{
		{"reserved", reserved, []float64{1, 2, 3, 2, 0}, 2},
		{"duplicate registration", duplicate, nil, 0},
		{"no identity", InformerNameAndResource{}, nil, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &queueRecordingProvider{}
			f := queueAtomic(RealFIFOOptions{Identifier: tc.id, MetricsProvider: p})
			mustNoErr(t, f.Add(testPod("ns", "a", "1")))
			mustNoErr(t, f.Add(testPod("ns", "b", "1")))
			mustNoErr(t, f.Add(testPod("ns", "a", "2")))
			_, err := f.Pop(func(interface{}, bool) error { return nil })
			mustNoErr(t, err)
			mustNoErr(t, f.PopBatch(func([]Delta, bool) error { return nil }, func(interface{}, bool) error { return nil }))
			if !reflect.DeepEqual(p.depths, tc.wantDepth) || p.latencies != tc.wantLat {
				t.Fatalf("depths %v latencies %d, want %v and %d", p.depths, p.latencies, tc.wantDepth, tc.wantLat)
			}
			if tc.id.Reserved() && f.Name() != name.Name() {
				t.Fatalf("Name %q, want the identity's %q", f.Name(), name.Name())
			}
		})
	}
}

func TestPopAfterCloseDrainsWhatIsQueuedThenReportsClosed(t *testing.T) {
	f := queueAtomic(RealFIFOOptions{})
	mustNoErr(t, f.Add(testPod("ns", "a", "1")))
	f.Close()
	if !f.IsClosed() {
		t.Fatal("IsClosed false after Close")
	}
	item, err := f.Pop(func(interface{}, bool) error { return nil })
	if err != nil || queueText(item) != "Added:a@1" {
		t.Fatalf("Pop = %s, %v; want the queued item", queueText(item), err)
	}
	if _, err := f.Pop(func(interface{}, bool) error { return nil }); !errors.Is(err, ErrFIFOClosed) {
		t.Fatalf("Pop on closed empty queue = %v, want ErrFIFOClosed", err)
	}
	if err := f.PopBatch(nil, nil); !errors.Is(err, ErrFIFOClosed) {
		t.Fatalf("PopBatch on closed empty queue = %v, want ErrFIFOClosed", err)
	}
}

func TestProcessErrorsAreReturnedAndNothingIsRequeued(t *testing.T) {
	f := queueAtomic(RealFIFOOptions{})
	mustNoErr(t, f.Add(testPod("ns", "a", "1")))
	mustNoErr(t, f.Add(testPod("ns", "b", "1")))
	mustNoErr(t, f.Add(testPod("ns", "c", "1")))
	boom := errors.New("boom")
	item, err := f.Pop(func(interface{}, bool) error { return boom })
	if !errors.Is(err, boom) || queueText(item) != "Added:a@1" {
		t.Fatalf("Pop = %s, %v", queueText(item), err)
	}
	if err := f.PopBatch(func([]Delta, bool) error { return boom }, nil); !errors.Is(err, boom) {
		t.Fatalf("PopBatch = %v", err)
	}
	if f.pending.Len() != 0 {
		t.Fatalf("%d deltas requeued", f.pending.Len())
	}
}

func TestQueuesTakePreTransformedListsWithoutTransformingAgain(t *testing.T) {
	var calls int
	mark := func(obj interface{}) (interface{}, error) {
		calls++
		pod := obj.(*v1.Pod).DeepCopy()
		pod.Labels = map[string]string{"transformed": "once"}
		return pod, nil
	}
	queues := []struct {
		name  string
		queue transformedReplacer
	}{
		{"atomic RealFIFO", NewRealFIFOWithOptions(RealFIFOOptions{Transformer: mark, AtomicEvents: true})},
		{"per-object RealFIFO", NewRealFIFOWithOptions(RealFIFOOptions{Transformer: mark, KnownObjects: NewStore(MetaNamespaceKeyFunc)})},
		{"DeltaFIFO", NewDeltaFIFOWithOptions(DeltaFIFOOptions{Transformer: mark, EmitDeltaTypeReplaced: true})},
	}
	for _, q := range queues {
		t.Run(q.name, func(t *testing.T) {
			calls = 0
			list := []interface{}{testPod("a", "x", "1"), testPod("a", "y", "2")}
			for i, obj := range list {
				list[i], _ = q.queue.Transformer()(obj)
			}
			if err := q.queue.replaceTransformed(list, "5"); err != nil {
				t.Fatal(err)
			}
			if calls != 2 {
				t.Fatalf("transformer ran %d times for 2 objects, want 2 (only before replaceTransformed)", calls)
			}
		})
	}
}
