package cache

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func podForTest(name, rv string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

// describeForTest renders pods as name@rv and tombstones as tombstone(key).
func describeForTest(obj interface{}) string {
	switch o := obj.(type) {
	case *v1.Pod:
		return o.Name + "@" + o.ResourceVersion
	case DeletedFinalStateUnknown:
		return "tombstone(" + o.Key + " " + describeForTest(o.Obj) + ")"
	}
	return fmt.Sprintf("%T", obj)
}

// podEventLog records handler calls on pods.
type podEventLog struct{ calls []string }

func (l *podEventLog) OnAdd(obj interface{}, initial bool) {
	l.calls = append(l.calls, fmt.Sprintf("add %s initial=%v", describeForTest(obj), initial))
}
func (l *podEventLog) OnUpdate(oldObj, newObj interface{}) {
	l.calls = append(l.calls, "update "+describeForTest(oldObj)+" -> "+describeForTest(newObj))
}
func (l *podEventLog) OnDelete(obj interface{}) {
	l.calls = append(l.calls, "delete "+describeForTest(obj))
}

func storeContentsForTest(s Store) []string {
	var out []string
	for _, obj := range s.List() {
		out = append(out, describeForTest(obj))
	}
	sort.Strings(out)
	return out
}

func TestProcessDeltasAppliesEachDeltaTypeAndNotifies(t *testing.T) {
	cases := []struct {
		name      string
		initial   []*v1.Pod
		deltas    Deltas
		inInitial bool
		wantCalls []string
		wantStore []string
		wantRV    string
	}{
		{
			name:      "added unknown key is an add carrying isInInitialList",
			deltas:    Deltas{{Type: Added, Object: podForTest("a", "1")}},
			inInitial: true,
			wantCalls: []string{"add a@1 initial=true"},
			wantStore: []string{"a@1"},
		},
		{
			name:      "added, sync and replaced of a cached key are updates",
			initial:   []*v1.Pod{podForTest("a", "1")},
			deltas:    Deltas{{Type: Added, Object: podForTest("a", "2")}, {Type: Sync, Object: podForTest("a", "2")}, {Type: Replaced, Object: podForTest("a", "3")}},
			wantCalls: []string{"update a@1 -> a@2", "update a@2 -> a@2", "update a@2 -> a@3"},
			wantStore: []string{"a@3"},
		},
		{
			name:      "updated unknown key is an add",
			deltas:    Deltas{{Type: Updated, Object: podForTest("b", "5")}},
			wantCalls: []string{"add b@5 initial=false"},
			wantStore: []string{"b@5"},
		},
		{
			name:      "deleted is notified even for an unknown key",
			initial:   []*v1.Pod{podForTest("a", "1")},
			deltas:    Deltas{{Type: Deleted, Object: podForTest("a", "2")}, {Type: Deleted, Object: podForTest("ghost", "3")}},
			wantCalls: []string{"delete a@2", "delete ghost@3"},
			wantStore: nil,
		},
		{
			name:    "replaced all deletes missing keys first then adds and updates in list order",
			initial: []*v1.Pod{podForTest("a", "1"), podForTest("b", "2"), podForTest("c", "3")},
			deltas: Deltas{{Type: ReplacedAll, Object: ReplacedAllInfo{ResourceVersion: "20", Objects: []interface{}{
				podForTest("d", "18"), podForTest("a", "1"), podForTest("c", "17"),
			}}}},
			wantCalls: []string{"delete tombstone(ns/b b@2)", "add d@18 initial=false", "update a@1 -> a@1", "update c@3 -> c@17"},
			wantStore: []string{"a@1", "c@17", "d@18"},
			wantRV:    "20",
		},
		{
			name:      "sync all updates every cached object with itself",
			initial:   []*v1.Pod{podForTest("a", "1")},
			deltas:    Deltas{{Type: SyncAll, Object: SyncAllInfo{}}},
			wantCalls: []string{"update a@1 -> a@1"},
			wantStore: []string{"a@1"},
		},
		{
			name:      "bookmark only advances the resource version",
			initial:   []*v1.Pod{podForTest("a", "1")},
			deltas:    Deltas{{Type: Bookmark, Object: BookmarkInfo{ResourceVersion: "42"}}},
			wantStore: []string{"a@1"},
			wantRV:    "42",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			store := NewIndexer(DeletionHandlingMetaNamespaceKeyFunc, Indexers{})
			for _, p := range tc.initial {
				if err := store.Add(p); err != nil {
					t.Fatal(err)
				}
			}
			log := &podEventLog{}
			if err := processDeltas(log, store, tc.deltas, tc.inInitial); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(log.calls, tc.wantCalls) {
				t.Errorf("calls %q, want %q", log.calls, tc.wantCalls)
			}
			if got := storeContentsForTest(store); !reflect.DeepEqual(got, tc.wantStore) {
				t.Errorf("store %q, want %q", got, tc.wantStore)
			}
			if tc.wantRV != "" && store.LastStoreSyncResourceVersion() != tc.wantRV {
				t.Errorf("store resource version %q, want %q", store.LastStoreSyncResourceVersion(), tc.wantRV)
			}
		})
	}
}

func TestProcessDeltasRejectsMalformedPayloads(t *testing.T) {
	cases := []Delta{
		{Type: ReplacedAll, Object: "not info"},
		{Type: Bookmark, Object: 7},
		{Type: DeltaType("Bogus"), Object: podForTest("a", "1")},
	}
	for _, d := range cases {
		store := NewStore(DeletionHandlingMetaNamespaceKeyFunc)
		if err := processDeltas(&podEventLog{}, store, Deltas{d}, false); err == nil {
			t.Errorf("delta %v: no error", d.Type)
		}
	}
}

// failingKeyPod is an object whose key cannot be computed.
type failingKeyPod struct{}

func TestBatchProcessingNotifiesOnlyAppliedDeltasAndReportsTheRest(t *testing.T) {
	store := NewIndexer(DeletionHandlingMetaNamespaceKeyFunc, Indexers{})
	if err := store.Add(podForTest("a", "1")); err != nil {
		t.Fatal(err)
	}
	log := &podEventLog{}
	err := processBatchDeltas(log, store, []Delta{
		{Type: Updated, Object: podForTest("a", "2")},
		{Type: Added, Object: podForTest("b", "3")},
		{Type: Deleted, Object: podForTest("c", "4")},
	}, true)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"update a@1 -> a@2", "add b@3 initial=true", "delete c@4"}
	if !reflect.DeepEqual(log.calls, want) {
		t.Fatalf("calls %q, want %q", log.calls, want)
	}
	if got := storeContentsForTest(store); !reflect.DeepEqual(got, []string{"a@2", "b@3"}) {
		t.Fatalf("store %q", got)
	}

	log = &podEventLog{}
	err = processBatchDeltas(log, store, []Delta{
		{Type: Deleted, Object: failingKeyPod{}},
		{Type: Updated, Object: podForTest("b", "5")},
	}, false)
	var txErr *TransactionError
	if !errors.As(err, &txErr) || !reflect.DeepEqual(txErr.SuccessfulIndices, []int{1}) {
		t.Fatalf("error %v, want a TransactionError with index 1 applied", err)
	}
	if want := []string{"update b@3 -> b@5"}; !reflect.DeepEqual(log.calls, want) {
		t.Fatalf("calls %q, want %q", log.calls, want)
	}
	if err := processBatchDeltas(log, store, []Delta{{Type: SyncAll, Object: SyncAllInfo{}}}, false); err == nil {
		t.Fatal("a queue-wide delta was accepted in a batch")
	}
}
