package cache

import (
	"testing"
)

func TestFIFOGivesBackTheItemsMapOfADrainedBurstAndKeepsItsOrder(t *testing.T) {
	cases := []struct {
		name string
		// burst keys are queued by Add (or by one Replace); then remove
		// of them are popped (or deleted), oldest first.
		burst, remove int
		replace       bool
		delete        bool
		// replaced is whether the map was swapped for a smaller one;
		// peak is itemsPeak afterwards.
		replaced bool
		peak     int
	}{
		{name: "a burst that fits the kept size keeps its map", burst: queueItemsKeep, remove: queueItemsKeep, peak: queueItemsKeep},
		{name: "one key more than the kept size is given back once popped to an eighth", burst: queueItemsKeep + 1, remove: queueItemsKeep + 1 - (queueItemsKeep+1)/8, replaced: true, peak: (queueItemsKeep + 1) / 8},
		{name: "a burst popped to just above an eighth keeps its map", burst: 8000, remove: 6999, peak: 8000},
		{name: "a drained 20k Replace moves twice and keeps a map for 312", burst: 20_000, remove: 20_000, replace: true, replaced: true, peak: 312},
		{name: "deleting a burst gives its map back too", burst: 8000, remove: 7000, delete: true, replaced: true, peak: 1000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := NewFIFO(deltaFIFOMemoryKey)
			objs := deltaFIFOMemoryBurst(t, f, tc.burst, tc.replace)
			before := f.items
			for i := 0; i < tc.remove; i++ {
				if tc.delete {
					mustNoErr(t, f.Delete(objs[i]))
				} else {
					fifoPopAndCheck(t, f, objs[i])
				}
			}
			if got := !sameMap(f.items, before); got != tc.replaced {
				t.Errorf("map replaced = %v, want %v", got, tc.replaced)
			}
			if f.itemsPeak != tc.peak {
				t.Errorf("itemsPeak = %d, want %d", f.itemsPeak, tc.peak)
			}
			for i := tc.remove; i < tc.burst; i++ {
				fifoPopAndCheck(t, f, objs[i])
			}
			if len(f.items) != 0 {
				t.Errorf("%d items left after draining", len(f.items))
			}
		})
	}
}

// fifoPopAndCheck pops one object from f and fails unless it is want.
func fifoPopAndCheck(t *testing.T, f *FIFO, want interface{}) {
	t.Helper()
	item, err := f.Pop(func(interface{}, bool) error { return nil })
	mustNoErr(t, err)
	if item != want {
		t.Fatalf("popped %v, want %v", item, want)
	}
}
