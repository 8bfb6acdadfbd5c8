package cache

import (
	"fmt"
	"testing"
)

// thrashAllocsPerPop measures the allocations of one Add-then-Pop pair on a
// queue that first held burst keys and was drained to hold keys: it
// alternates a new key in and the oldest out, so that its size sits right at
// the move threshold.
func thrashAllocsPerPop(t *testing.T, burst, hold int) float64 {
	t.Helper()
	f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: deltaFIFOMemoryKey})
	const runs = 2000
	objs := make([]interface{}, burst+runs+1)
	for i := range objs {
		objs[i] = deltaFIFOMemoryObj{key: fmt.Sprintf("k%06d", i)}
	}
	for _, obj := range objs[:burst] {
		mustNoErr(t, f.Add(obj))
	}
	for i := 0; i < burst-hold; i++ {
		popAndCheck(t, f, objs[i])
	}
	next := burst
	pop := func(interface{}, bool) error { return nil }
	return testing.AllocsPerRun(runs, func() {
		_ = f.Add(objs[next])
		next++
		_, _ = f.Pop(pop)
	})
}

func TestDeltaFIFOAlternatingAddAndPopAtTheMoveThresholdAllocatesNoMoreThanFarBelowIt(t *testing.T) {
	base := thrashAllocsPerPop(t, 100, 10)
	cases := []struct {
		name        string
		burst, hold int
	}{
		{name: "held at an eighth of a 1025-key peak", burst: queueItemsKeep + 1, hold: (queueItemsKeep + 1) / 8},
		{name: "held one above an eighth of a 1025-key peak", burst: queueItemsKeep + 1, hold: (queueItemsKeep+1)/8 + 1},
		{name: "held at an eighth of a 20k peak", burst: 20_000, hold: 20_000 / 8},
		{name: "held at the kept size", burst: queueItemsKeep, hold: queueItemsKeep},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := thrashAllocsPerPop(t, tc.burst, tc.hold)
			t.Logf("allocs per Add+Pop: %v (far below the threshold: %v)", got, base)
			if got > base+0.5 {
				t.Errorf("allocs per Add+Pop = %v, want at most %v as far below the threshold", got, base)
			}
		})
	}
}
