package cache

import (
	"fmt"
	"reflect"
	"testing"
)

// deltaFIFOMemoryObj is a minimal keyable object for the memory tests.
type deltaFIFOMemoryObj struct{ key string }

// deltaFIFOMemoryKey keys a deltaFIFOMemoryObj.
func deltaFIFOMemoryKey(obj interface{}) (string, error) {
	return obj.(deltaFIFOMemoryObj).key, nil
}

// sameMap reports whether a and b are one map, to tell whether a queue's
// items map was replaced.
//
// NB: both maps are held by the caller while compared. Comparing a saved
// address instead fails when the old map was collected and the new one's
// header was allocated where the old one's was (seen under a loaded -cpu 1
// run: a 20k burst that moved twice read as never moved).
func sameMap[V any](a, b map[string]V) bool {
	return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer()
}

func TestDeltaFIFOGivesBackTheItemsMapOfADrainedBurstAndKeepsOrder(t *testing.T) {
	cases := []struct {
		name string
		// burst keys are queued by Add (or by one Replace), then popped
		// until remain are left.
		burst, remain int
		replace       bool
		// replaced is whether the map was swapped for a smaller one;
		// peak is itemsPeak afterwards.
		replaced bool
		peak     int
	}{
		{name: "a burst that fits the kept size keeps its map", burst: queueItemsKeep, remain: 0, replaced: false, peak: queueItemsKeep},
		{name: "one key more than the kept size is given back once drained to an eighth", burst: queueItemsKeep + 1, remain: 0, replaced: true, peak: (queueItemsKeep + 1) / 8},
		{name: "a burst drained to just above an eighth keeps its map", burst: 8000, remain: 1001, replaced: false, peak: 8000},
		{name: "a burst drained to an eighth moves the rest to a map sized for them", burst: 8000, remain: 1000, replaced: true, peak: 1000},
		{name: "a drained 20k burst moves twice and keeps a map for 312", burst: 20_000, remain: 0, replaced: true, peak: 312},
		{name: "a drained 20k Replace moves twice and keeps a map for 312", burst: 20_000, remain: 0, replace: true, replaced: true, peak: 312},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: deltaFIFOMemoryKey})
			objs := deltaFIFOMemoryBurst(t, f, tc.burst, tc.replace)
			before := f.items
			for i := 0; i < tc.burst-tc.remain; i++ {
				popAndCheck(t, f, objs[i])
			}
			if got := !sameMap(f.items, before); got != tc.replaced {
				t.Errorf("map replaced = %v, want %v", got, tc.replaced)
			}
			if f.itemsPeak != tc.peak {
				t.Errorf("itemsPeak = %d, want %d", f.itemsPeak, tc.peak)
			}
			for i := tc.burst - tc.remain; i < tc.burst; i++ {
				popAndCheck(t, f, objs[i])
			}
		})
	}
}

// popAndCheck pops one Deltas from f and fails unless it is the single delta
// of want.
func popAndCheck(t *testing.T, f *DeltaFIFO, want interface{}) {
	t.Helper()
	item, err := f.Pop(func(interface{}, bool) error { return nil })
	mustNoErr(t, err)
	ds := item.(Deltas)
	if len(ds) != 1 || ds[0].Object != want {
		t.Fatalf("popped %v, want one delta of %v", ds, want)
	}
}

func TestDeltaFIFOSteadyStateBelowTheKeptSizeNeverReplacesItsMap(t *testing.T) {
	cases := []struct {
		name    string
		backlog int
	}{
		{name: "short backlog", backlog: 10},
		{name: "backlog at the kept size", backlog: queueItemsKeep - 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: deltaFIFOMemoryKey})
			objs := make([]interface{}, 2*queueItemsKeep)
			for i := range objs {
				objs[i] = deltaFIFOMemoryObj{key: fmt.Sprintf("k%06d", i)}
			}
			for i := 0; i < tc.backlog; i++ {
				mustNoErr(t, f.Add(objs[i]))
			}
			m := f.items
			next := tc.backlog
			process := func(interface{}, bool) error { return nil }
			// NB: one Add and one Pop allocate the Deltas slice and its boxing
			// into the interface Pop returns, and nothing else.
			allocs := testing.AllocsPerRun(1000, func() {
				_ = f.Add(objs[next%len(objs)])
				next++
				_, _ = f.Pop(process)
			})
			if allocs > 2 {
				t.Errorf("%.1f allocations per Add and Pop, want at most 2", allocs)
			}
			if !sameMap(f.items, m) {
				t.Error("the items map was replaced in steady state")
			}
		})
	}
}

// deltaFIFOMemoryBurst queues n objects keyed k000000, k000001, … on q, a
// DeltaFIFO or FIFO, one Add each or, with replace, in one Replace, and
// returns them in key order.
func deltaFIFOMemoryBurst(t *testing.T, q interface {
	Add(interface{}) error
	Replace([]interface{}, string) error
}, n int, replace bool) []interface{} {
	t.Helper()
	objs := make([]interface{}, n)
	for i := range objs {
		objs[i] = deltaFIFOMemoryObj{key: fmt.Sprintf("k%06d", i)}
	}
	if replace {
		mustNoErr(t, q.Replace(objs, "1"))
		return objs
	}
	for _, obj := range objs {
		mustNoErr(t, q.Add(obj))
	}
	return objs
}
