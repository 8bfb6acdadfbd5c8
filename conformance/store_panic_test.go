package conformance

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestStoreIndexingPanicsLikeClientGo checks that an index function
// error surfaces exactly as in client-go: the same panic (type and message)
// on the write paths that index, the same error from Index, and no panic
// where client-go has none. It also pins client-go's panics on stores built
// with nil Indexers or nil Indices, or replaced with a nil map. Both sides recover; nothing is read
// after a panic, since a store that panicked mid-write may hold its lock.
func TestStoreIndexingPanicsLikeClientGo(t *testing.T) {
	w := newStoreWorld(1)
	good := w.register(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "good", ResourceVersion: "5"}}, "pod:default/good")
	bad := w.register(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "bad", ResourceVersion: "6"}}, "pod:default/bad")
	badNewer := w.register(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "bad", ResourceVersion: "7"}}, "pod:default/bad(newer)")
	goodAsBad := w.register(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "bad", ResourceVersion: "8"}}, "pod:default/bad(as good key)")
	explicit := w.register(storeExplicitKey("default/explicit"), "explicit(default/explicit)")
	failing := []string{"fails-on-bad"}
	none := []string{}
	strict := []string{"namespace-strict"}
	tests := []struct {
		name      string    // the behaviour pinned
		row       storeRow  // the kind of store and its indexers
		setup     []storeOp // writes before the action, compared too
		action    storeOp   // the write or Index call under test
		wantPanic bool      // whether client-go panics on the action
		// kcacheAccepts marks client-go panics on nil maps it was handed
		// (nil Indexers, nil Indices, Replace with a nil map): kcache
		// deliberately works instead. No program that runs with client-go
		// depends on the panic, so accepting is a compatible superset.
		kcacheAccepts bool
	}{
		{name: "IndexerAddOfAnUnindexableObjectPanics", row: storeRow{Kind: "indexer", Indexers: failing},
			action: storeOp{Kind: "Add", Obj: bad}, wantPanic: true},
		{name: "IndexerUpdateToAnUnindexableObjectPanics", row: storeRow{Kind: "indexer", Indexers: failing},
			setup: []storeOp{{Kind: "Add", Obj: good}}, action: storeOp{Kind: "Update", Obj: bad}, wantPanic: true},
		{name: "IndexerReplaceWithAnUnindexableObjectPanics", row: storeRow{Kind: "indexer", Indexers: failing},
			setup: []storeOp{{Kind: "Add", Obj: good}}, action: storeOp{Kind: "Replace", Objs: []any{good, bad}, RV: "9"}, wantPanic: true},
		{name: "IndexerAddIndexersBackfillOverAnUnindexableObjectPanics", row: storeRow{Kind: "indexer", Indexers: none},
			setup: []storeOp{{Kind: "Add", Obj: good}, {Kind: "Add", Obj: bad}}, action: storeOp{Kind: "AddIndexers", Indexers: failing}, wantPanic: true},
		{name: "IndexerTransactionAddOfAnUnindexableObjectPanics", row: storeRow{Kind: "indexer", Indexers: failing},
			action: storeOp{Kind: "Transaction", Txns: []storeTxn{{Type: "Add", Obj: good}, {Type: "Add", Obj: bad}}}, wantPanic: true},
		{name: "IndexerDeleteOfAnAbsentUnindexableObjectDoesNotPanic", row: storeRow{Kind: "indexer", Indexers: failing},
			setup: []storeOp{{Kind: "Add", Obj: good}}, action: storeOp{Kind: "Delete", Obj: badNewer}},
		{name: "IndexerUpdateOfAnUnindexableObjectOverAnotherPanics", row: storeRow{Kind: "indexer", Indexers: failing},
			setup: []storeOp{{Kind: "Add", Obj: good}}, action: storeOp{Kind: "Update", Obj: goodAsBad}, wantPanic: true},
		{name: "IndexerIndexOfAnUnindexableObjectReturnsTheError", row: storeRow{Kind: "indexer", Indexers: failing},
			setup: []storeOp{{Kind: "Add", Obj: good}}, action: storeOp{Kind: "Index", Indexers: failing, Obj: bad}},
		{name: "IndexerMetaNamespaceIndexFuncOnAnExplicitKeyPanics", row: storeRow{Kind: "indexer", KeyFunc: "MetaNamespaceKeyFunc", Indexers: strict},
			action: storeOp{Kind: "Add", Obj: explicit}, wantPanic: true},
		{name: "ThreadSafeStoreAddOfAnUnindexableObjectPanics", row: storeRow{Kind: "threadSafeStore", Indexers: failing},
			action: storeOp{Kind: "Add", Key: "default/bad", Obj: bad}, wantPanic: true},
		{name: "ThreadSafeStoreUpdateToAnUnindexableObjectPanics", row: storeRow{Kind: "threadSafeStore", Indexers: failing},
			setup: []storeOp{{Kind: "Add", Key: "k", Obj: good}}, action: storeOp{Kind: "Update", Key: "k", Obj: bad}, wantPanic: true},
		{name: "ThreadSafeStoreReplaceWithAnUnindexableObjectPanics", row: storeRow{Kind: "threadSafeStore", Indexers: failing},
			action: storeOp{Kind: "Replace", Items: map[string]any{"default/bad": bad}, RV: "3"}, wantPanic: true},
		{name: "ThreadSafeStoreDeleteOfAnObjectStoredBeforeIndexingDoesNotPanic", row: storeRow{Kind: "threadSafeStore", Indexers: none},
			setup: []storeOp{{Kind: "Add", Key: "k", Obj: bad}, {Kind: "AddIndexers", Indexers: []string{"app"}}}, action: storeOp{Kind: "Delete", Key: "k"}},
		{name: "ThreadSafeStoreAddIndexersBackfillOverAnUnindexableObjectPanics", row: storeRow{Kind: "threadSafeStore", Indexers: none},
			setup: []storeOp{{Kind: "Add", Key: "k", Obj: bad}}, action: storeOp{Kind: "AddIndexers", Indexers: failing}, wantPanic: true},
		{name: "ThreadSafeStoreTransactionOfAnUnindexableObjectPanics", row: storeRow{Kind: "threadSafeStore", Indexers: failing},
			action: storeOp{Kind: "Transaction", Txns: []storeTxn{{Type: "Update", Key: "k", Obj: bad}}}, wantPanic: true},
		{name: "IndexerBuiltWithNilIndexersPanicsOnAddIndexers", row: storeRow{Kind: "indexer"},
			setup: []storeOp{{Kind: "Add", Obj: good}}, action: storeOp{Kind: "AddIndexers", Indexers: []string{"app"}}, wantPanic: true, kcacheAccepts: true},
		{name: "ThreadSafeStoreBuiltWithNilIndexersPanicsOnAddIndexers", row: storeRow{Kind: "threadSafeStore"},
			action: storeOp{Kind: "AddIndexers", Indexers: []string{"app"}}, wantPanic: true, kcacheAccepts: true},
		{name: "ThreadSafeStoreBuiltWithNilIndicesPanicsOnTheFirstIndexedAdd", row: storeRow{Kind: "threadSafeStore", Indexers: []string{"app"}, NilIndices: true},
			action: storeOp{Kind: "Add", Key: "default/good", Obj: good}, wantPanic: true, kcacheAccepts: true},
		{name: "ThreadSafeStoreReplacedWithANilMapPanicsOnTheNextAdd", row: storeRow{Kind: "threadSafeStore", Indexers: none},
			setup: []storeOp{{Kind: "Replace", RV: "4"}}, action: storeOp{Kind: "Add", Key: "default/good", Obj: good}, wantPanic: true, kcacheAccepts: true},
		{name: "IndexerReplacedWithANilListAcceptsTheNextAdd", row: storeRow{Kind: "indexer", Indexers: none},
			setup: []storeOp{{Kind: "Replace", RV: "4"}}, action: storeOp{Kind: "Add", Obj: good}},
		{name: "ThreadSafeStoreIndexOfAnUnindexableObjectReturnsTheError", row: storeRow{Kind: "threadSafeStore", Indexers: failing},
			action: storeOp{Kind: "Index", Indexers: failing, Obj: bad}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want, got := newStoreSides(w, tc.row)
			for i, op := range tc.setup {
				wantOut, gotOut := want.apply(op), got.apply(op)
				if wantOut != gotOut {
					t.Fatalf("setup op#%d %s\nclient-go: %s\nkcache:    %s", i, op.format(w), wantOut, gotOut)
				}
			}
			wantOut, gotOut := want.apply(tc.action), got.apply(tc.action)
			if panicked := strings.HasPrefix(wantOut, "panic("); panicked != tc.wantPanic {
				t.Fatalf("%s: client-go panicked=%t, the table says %t (outcome %s)", tc.action.format(w), panicked, tc.wantPanic, wantOut)
			}
			if tc.kcacheAccepts {
				if strings.HasPrefix(gotOut, "panic(") {
					t.Fatalf("%s: kcache must accept what client-go panics on; got %s", tc.action.format(w), gotOut)
				}
				return
			}
			if wantOut != gotOut {
				t.Fatalf("%s\nclient-go: %s\nkcache:    %s", tc.action.format(w), wantOut, gotOut)
			}
		})
	}
}
