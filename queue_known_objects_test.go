package cache

import (
	"fmt"
	"testing"
)

// ownStoreOfPods returns a kcache Store keyed by MetaNamespaceKeyFunc
// holding n pods, and their keys.
func ownStoreOfPods(t *testing.T, n int) (Store, []string) {
	t.Helper()
	store := NewStore(MetaNamespaceKeyFunc)
	keys := make([]string, n)
	for i := range keys {
		p := testPod(fmt.Sprintf("ns-%d", i%7), fmt.Sprintf("pod-%d", i), "1")
		if err := store.Add(p); err != nil {
			t.Fatal(err)
		}
		keys[i] = p.Namespace + "/" + p.Name
	}
	return store, keys
}

func TestTombstoningAgainstTheQueuesOwnStoreBuildsNoKeyForAListedObject(t *testing.T) {
	tests := []struct {
		name string
		// tombstone runs the queue's known-objects tombstone pass with
		// listed, under the queue's lock, and returns the keys tombstoned.
		tombstone func(known Store, listed map[string]struct{}) []string
	}{
		{"non-atomic RealFIFO", func(known Store, listed map[string]struct{}) []string {
			f := NewRealFIFOWithOptions(RealFIFOOptions{KeyFunction: MetaNamespaceKeyFunc, KnownObjects: known})
			f.lock.Lock()
			defer f.lock.Unlock()
			f.tombstoneKnownLocked(listed, map[string]struct{}{})
			var keys []string
			for i := 0; i < f.pending.Len(); i++ {
				keys = append(keys, f.pending.At(i).key)
			}
			return keys
		}},
		{"DeltaFIFO", func(known Store, listed map[string]struct{}) []string {
			f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: MetaNamespaceKeyFunc, KnownObjects: known})
			f.lock.Lock()
			defer f.lock.Unlock()
			f.tombstoneKnownLocked(listed)
			var keys []string
			for i := 0; i < f.order.Len(); i++ {
				keys = append(keys, f.order.At(i))
			}
			return keys
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const n = 1000
			known, keys := ownStoreOfPods(t, n)
			all := map[string]struct{}{}
			for _, k := range keys {
				all[k] = struct{}{}
			}
			// Everything listed: nothing tombstoned, and no key built.
			allocs := testing.AllocsPerRun(20, func() {
				if got := tt.tombstone(known, all); len(got) != 0 {
					t.Fatalf("tombstoned %v with every key listed", got)
				}
			})
			t.Logf("%v allocations with %d keys listed", allocs, n)
			if allocs > 20 {
				t.Errorf("%v allocations for %d listed keys, want a handful (no key built)", allocs, n)
			}
			// Every third key unlisted: exactly those, in ListKeys' order.
			listed, want := map[string]struct{}{}, []string(nil)
			for i, k := range known.ListKeys() {
				if i%3 == 0 {
					want = append(want, k)
				} else {
					listed[k] = struct{}{}
				}
			}
			got := tt.tombstone(known, listed)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("tombstoned %d keys %v…, want %d keys %v…", len(got), head(got), len(want), head(want))
			}
		})
	}
}

// head returns up to the first three of keys.
func head(keys []string) []string { return keys[:min(3, len(keys))] }
