package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
)

// storeRow is one seeded run of the storage differential suite, read from
// testdata/store_seeds.json.
type storeRow struct {
	// Name names the subtest.
	Name string `json:"name"`
	// Kind is "indexer", "store" or "threadSafeStore".
	Kind string `json:"kind"`
	// Seed seeds the world and the op sequence.
	Seed int64 `json:"seed"`
	// Ops is the number of random writes.
	Ops int `json:"ops"`
	// KeyFunc is "MetaNamespaceKeyFunc" or "DeletionHandlingMetaNamespaceKeyFunc".
	KeyFunc string `json:"keyFunc"`
	// Indexers are the catalog indices installed at construction.
	Indexers []string `json:"indexers"`
	// Transformer installs the world's transformer with WithTransformer.
	Transformer bool `json:"transformer"`
	// NilIndices passes nil instead of an empty Indices to NewThreadSafeStore.
	NilIndices bool `json:"nilIndices"`
	// Indices is the initial index content handed to NewThreadSafeStore:
	// index name to indexed value to storage keys.
	Indices map[string]map[string][]string `json:"indices"`
	// Mix is "" for the usual op mix or "mutateHeavy" for one where in-place
	// mutation is frequent and Replace never clears the stale index state.
	Mix string `json:"mix"`
	// metricsName, when set, is a fresh informer name: both sides then get
	// a recording metrics provider (WithStoreMetrics / WithThreadSafeStoreMetrics).
	metricsName string
}

// storeRuns numbers runs so every run registers a fresh informer name.
var storeRuns atomic.Int64

// storeFreshInformerName returns an informer name no run used before.
func storeFreshInformerName(what string) string {
	return fmt.Sprintf("store-conformance-%s-%d", what, storeRuns.Add(1))
}

// storeLoadRows reads the run table.
func storeLoadRows(t *testing.T) []storeRow {
	t.Helper()
	data, err := os.ReadFile("testdata/store_seeds.json")
	if err != nil {
		t.Fatalf("reading the seed table: %v", err)
	}
	var rows []storeRow
	if err := json.Unmarshal(data, &rows); err != nil {
		t.Fatalf("parsing the seed table: %v", err)
	}
	if len(rows) == 0 {
		t.Fatal("the seed table is empty")
	}
	return rows
}

// TestStoreMatchesClientGo replays each seeded random sequence of writes on
// client-go and on kcache and requires identical outcomes and reads after
// every single write.
func TestStoreMatchesClientGo(t *testing.T) {
	for _, row := range storeLoadRows(t) {
		t.Run(row.Name, func(t *testing.T) {
			t.Parallel()
			storeRunRow(t, row)
		})
	}
}

// storeRunRow plays one row and stops at the first divergence, printing the
// seed, the op number and the op so the failure can be replayed.
func storeRunRow(t *testing.T, row storeRow) {
	row.metricsName = storeFreshInformerName(row.Name)
	w := newStoreWorld(row.Seed)
	want, got := newStoreSides(w, row)
	mix, threadSafe := storeStoreMix, false
	if row.Kind == "threadSafeStore" {
		mix, threadSafe = storeThreadSafeMix, true
	}
	if row.Mix == "mutateHeavy" {
		mix = storeMutateHeavyMix
	}
	where := fmt.Sprintf("seed=%d", row.Seed)
	storeCompareReads(t, where, -1, "construction", want, got, w.nextProbe(storeOp{}))
	for i := 0; i < row.Ops; i++ {
		op := w.nextOp(mix, threadSafe)
		wantOut, gotOut := storeApplyBoth(want, got, op)
		if strings.HasPrefix(wantOut, "panic(") {
			t.Fatalf("seed=%d op#%d %s\nclient-go panicked, which random runs must never provoke: %s", row.Seed, i, op.format(w), wantOut)
		}
		if wantOut != gotOut {
			t.Fatalf("seed=%d op#%d %s\noutcome differs\nclient-go: %s\nkcache:    %s", row.Seed, i, op.format(w), wantOut, gotOut)
		}
		if want.transformCalls() != got.transformCalls() {
			t.Fatalf("seed=%d op#%d %s\ntransformer calls so far differ: client-go %d, kcache %d", row.Seed, i, op.format(w), want.transformCalls(), got.transformCalls())
		}
		storeCompareReads(t, where, i, op.format(w), want, got, w.nextProbe(op))
	}
}

// storeApplyBoth applies op to both sides; a Mutate, which changes the
// objects both sides share, is performed once.
func storeApplyBoth(want, got storeSide, op storeOp) (string, string) {
	if op.Kind == "Mutate" {
		out := storeMutate(op)
		return out, out
	}
	return want.apply(op), got.apply(op)
}

// storeCompareReads makes the same reads on both sides and fails on the
// first differing answer; where (seed or scenario), i and op locate it.
func storeCompareReads(t *testing.T, where string, i int, op string, want, got storeSide, p storeProbe) {
	t.Helper()
	wantReads, gotReads := want.reads(p, false), got.reads(p, false)
	if len(wantReads) != len(gotReads) {
		t.Fatalf("%s op#%d %s\nread count differs: client-go %d, kcache %d", where, i, op, len(wantReads), len(gotReads))
	}
	for j := range wantReads {
		if wantReads[j] != gotReads[j] {
			labels := want.reads(p, true)
			t.Fatalf("%s op#%d %s\nread %s differs\nclient-go: %s\nkcache:    %s",
				where, i, op, labels[j].call, wantReads[j].answer, gotReads[j].answer)
		}
	}
}
