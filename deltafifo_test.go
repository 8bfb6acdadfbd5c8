package cache

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// queueDrainDelta pops f until it is empty and renders each Deltas with its
// isInInitialList flag and HasSynced after the pop.
func queueDrainDelta(t *testing.T, f *DeltaFIFO) []string {
	t.Helper()
	var out []string
	for f.order.Len() > 0 {
		var initial bool
		item, err := f.Pop(func(_ interface{}, init bool) error { initial = init; return nil })
		mustNoErr(t, err)
		line := queueText(item)
		if initial {
			line += " (initial)"
		}
		if f.HasSynced() {
			line += " synced"
		}
		out = append(out, line)
	}
	return out
}

func TestDeltaFIFOAccumulatesDeltasPerKeyAndCollapsesOnlyTrailingDeletions(t *testing.T) {
	cases := []struct {
		name  string
		write func(f *DeltaFIFO)
		want  []string
	}{
		{"updates are kept, a key is queued once", func(f *DeltaFIFO) {
			_ = f.Add(testPod("ns", "a", "1"))
			_ = f.Add(testPod("ns", "b", "1"))
			_ = f.Update(testPod("ns", "a", "2"))
			_ = f.Update(testPod("ns", "a", "3"))
		}, []string{"Added:a@1 Updated:a@2 Updated:a@3 synced", "Added:b@1 synced"}},
		{"two deletions keep the older", func(f *DeltaFIFO) {
			_ = f.Add(testPod("ns", "a", "1"))
			_ = f.Delete(testPod("ns", "a", "2"))
			_ = f.Delete(testPod("ns", "a", "3"))
		}, []string{"Added:a@1 Deleted:a@2 synced"}},
		{"a tombstone gives way to a real deletion", func(f *DeltaFIFO) {
			_ = f.Add(testPod("ns", "a", "1"))
			_ = f.Delete(DeletedFinalStateUnknown{Key: "ns/a", Obj: testPod("ns", "a", "2")})
			_ = f.Delete(testPod("ns", "a", "3"))
		}, []string{"Added:a@1 Deleted:a@3 synced"}},
		{"a real deletion is not replaced by a tombstone", func(f *DeltaFIFO) {
			_ = f.Add(testPod("ns", "a", "1"))
			_ = f.Delete(testPod("ns", "a", "2"))
			_ = f.Delete(DeletedFinalStateUnknown{Key: "ns/a", Obj: testPod("ns", "a", "3")})
		}, []string{"Added:a@1 Deleted:a@2 synced"}},
		{"deleting an unknown object does nothing", func(f *DeltaFIFO) {
			_ = f.Delete(testPod("ns", "ghost", "1"))
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{})
			tc.write(f)
			if got := queueDrainDelta(t, f); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDeltaFIFOReplaceTombstonesKeysMissingFromTheListAndCountsThePopulation(t *testing.T) {
	known := queueSortedKnown{queueKnown(testPod("ns", "k1", "1"), testPod("ns", "k2", "1"), testPod("ns", "k3", "1"))}
	for _, emitReplaced := range []bool{false, true} {
		name, typ := "Sync", "Sync"
		if emitReplaced {
			name, typ = "Replaced", "Replaced"
		}
		t.Run(name, func(t *testing.T) {
			f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KnownObjects: known, EmitDeltaTypeReplaced: emitReplaced})
			mustNoErr(t, f.Resync()) // queues Sync for k1..k3 before the population
			mustNoErr(t, f.Replace([]interface{}{testPod("ns", "k2", "9"), testPod("ns", "n1", "9")}, "9"))
			got := queueDrainDelta(t, f)
			want := []string{
				"Sync:k1@1 Deleted:Tombstone(ns/k1,k1@1) (initial)",
				"Sync:k2@1 " + typ + ":k2@9 (initial)",
				"Sync:k3@1 Deleted:Tombstone(ns/k3,k3@1) (initial)",
				typ + ":n1@9 (initial) synced",
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
		})
	}
}

func TestDeltaFIFOResyncAddsSyncOnlyForKnownKeysNotQueued(t *testing.T) {
	known := queueSortedKnown{queueKnown(testPod("ns", "k1", "1"), testPod("ns", "k2", "1"))}
	f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KnownObjects: known})
	mustNoErr(t, f.Update(testPod("ns", "k2", "5")))
	mustNoErr(t, f.Resync())
	got := queueDrainDelta(t, f)
	want := []string{"Updated:k2@5 synced", "Sync:k1@1 synced"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if err := NewDeltaFIFOWithOptions(DeltaFIFOOptions{}).Resync(); err != nil {
		t.Fatalf("Resync without known objects = %v", err)
	}
}

func TestDeltaFIFOPopReturnsProcessErrorsWithoutRequeueing(t *testing.T) {
	f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{})
	mustNoErr(t, f.Add(testPod("ns", "a", "1")))
	boom := errors.New("boom")
	item, err := f.Pop(func(interface{}, bool) error { return boom })
	if !errors.Is(err, boom) || queueText(item) != "Added:a@1" {
		t.Fatalf("Pop = %s, %v", queueText(item), err)
	}
	if f.order.Len() != 0 || len(f.items) != 0 {
		t.Fatal("the failed item was requeued")
	}
}

func TestDeltaFIFOKeyOfUnwrapsDeltasAndTombstones(t *testing.T) {
	f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{})
	cases := []struct {
		name    string
		obj     interface{}
		want    string
		wantErr string
	}{
		{"object", testPod("ns", "a", "1"), "ns/a", ""},
		{"deltas use the newest object", Deltas{{Added, testPod("ns", "old", "1")}, {Updated, testPod("ns", "new", "2")}}, "ns/new", ""},
		{"tombstone", DeletedFinalStateUnknown{Key: "x/y"}, "x/y", ""},
		{"empty deltas", Deltas{}, "", "couldn't create key for object []: 0 length Deltas object; can't get key"},
		{"no metadata", 42, "", "object has no meta: object does not implement the Object interfaces"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := f.KeyOf(tc.obj)
			checkResult(t, got, err, tc.want, tc.wantErr)
		})
	}
}

func TestDeltaFIFOTransformsEverythingButTombstonesAndResyncs(t *testing.T) {
	known := queueSortedKnown{queueKnown(testPod("ns", "k", "1"))}
	calls := 0
	f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KnownObjects: known, Transformer: func(o interface{}) (interface{}, error) {
		calls++
		return o, nil
	}})
	mustNoErr(t, f.Add(testPod("ns", "a", "1")))
	mustNoErr(t, f.Delete(DeletedFinalStateUnknown{Key: "ns/a", Obj: testPod("ns", "a", "1")}))
	mustNoErr(t, f.Resync())
	if calls != 1 {
		t.Fatalf("transformer ran %d times, want once (for the Add)", calls)
	}
	if f.Transformer() == nil {
		t.Fatal("Transformer() lost the transformer")
	}
}
