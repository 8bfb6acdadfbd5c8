package cache

import "testing"

func TestNotificationRingKeepsOrderAcrossGrowthAndWrapAround(t *testing.T) {
	cases := []struct {
		name     string
		pushes   int
		popEvery int // pop popSize items after every popEvery pushes
		popSize  int
	}{
		{name: "no pops", pushes: 300, popEvery: 0},
		{name: "wrap before growth", pushes: 500, popEvery: 10, popSize: 7},
		{name: "drain often", pushes: 200, popEvery: 3, popSize: 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var r notificationRing
			var got []int
			buf := make([]notification, 16)
			drain := func(limit int) {
				n := r.popInto(buf[:min(limit, len(buf))])
				for _, item := range buf[:n] {
					got = append(got, item.newObj.(int))
				}
			}
			for i := 0; i < tc.pushes; i++ {
				r.push(notification{kind: notifyAdd, newObj: i})
				if tc.popEvery > 0 && (i+1)%tc.popEvery == 0 {
					drain(tc.popSize)
				}
			}
			for r.len() > 0 {
				drain(len(buf))
			}
			if len(got) != tc.pushes {
				t.Fatalf("got %d items, want %d", len(got), tc.pushes)
			}
			for i, v := range got {
				if v != i {
					t.Fatalf("item %d is %d: order broken", i, v)
				}
			}
		})
	}
}

func TestNotificationRingClearsDeliveredSlots(t *testing.T) {
	var r notificationRing
	r.push(notification{newObj: "x"})
	buf := make([]notification, 1)
	r.popInto(buf)
	for i, slot := range r.buf {
		if slot.newObj != nil || slot.oldObj != nil {
			t.Fatalf("slot %d still references %v", i, slot.newObj)
		}
	}
}

// ringStep pushes push items, then pops pop items (all of them when pop is
// negative) in batches of listenerDrainBatch.
type ringStep struct{ push, pop int }

// runRingSteps applies steps to r, numbering pushed items from next and
// checking that popped items come out in order; it returns the next number.
func runRingSteps(t *testing.T, r *notificationRing, steps []ringStep, next int) int {
	t.Helper()
	want := next - r.len()
	buf := make([]notification, listenerDrainBatch)
	for _, s := range steps {
		for i := 0; i < s.push; i++ {
			r.push(notification{kind: notifyAdd, newObj: next})
			next++
		}
		left := s.pop
		if left < 0 {
			left = r.len()
		}
		for left > 0 {
			n := r.popInto(buf[:min(left, len(buf))])
			if n == 0 {
				t.Fatalf("ring ran dry with %d still to pop", left)
			}
			for _, item := range buf[:n] {
				if item.newObj.(int) != want {
					t.Fatalf("popped %v, want %d: order broken", item.newObj, want)
				}
				want++
			}
			left -= n
		}
		assertRingHoldsOnlyLiveItems(t, r)
	}
	return next
}

// assertRingHoldsOnlyLiveItems fails if a slot outside the queued items
// still references an object, or if the capacity is not zero or a power of
// two that holds the items.
func assertRingHoldsOnlyLiveItems(t *testing.T, r *notificationRing) {
	t.Helper()
	size := len(r.buf)
	if size&(size-1) != 0 || size < r.count {
		t.Fatalf("capacity %d for %d items", size, r.count)
	}
	for i := r.count; i < size; i++ {
		if slot := r.buf[(r.head+i)&(size-1)]; slot.newObj != nil || slot.oldObj != nil {
			t.Fatalf("free slot %d still references %v", (r.head+i)&(size-1), slot.newObj)
		}
	}
}

func TestNotificationRingGivesBackABurstsBufferOnceDrained(t *testing.T) {
	cases := []struct {
		name    string
		steps   []ringStep
		maxCap  int // capacity after the steps is at most this
		wantLen int
	}{
		{name: "small load keeps its buffer", steps: []ringStep{{push: 50, pop: -1}}, maxCap: notificationRingMinSize},
		{name: "load at the threshold keeps its buffer", steps: []ringStep{{push: notificationRingShrinkAbove, pop: -1}}, maxCap: notificationRingShrinkAbove},
		{name: "burst of 100k drained", steps: []ringStep{{push: 100_000, pop: -1}}, maxCap: 0},
		{name: "burst drained while more arrive", steps: []ringStep{{push: 50_000, pop: 40_000}, {push: 10, pop: -1}}, maxCap: 0},
		{name: "burst mostly drained", steps: []ringStep{{push: 100_000, pop: 99_990}}, maxCap: 2 * notificationRingShrinkAbove, wantLen: 10},
		{name: "burst drained to a standing backlog", steps: []ringStep{{push: 100_000, pop: 99_000}}, maxCap: 4096, wantLen: 1000},
		{name: "two bursts", steps: []ringStep{{push: 30_000, pop: -1}, {push: 70_000, pop: -1}}, maxCap: 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var r notificationRing
			runRingSteps(t, &r, tc.steps, 0)
			if r.len() != tc.wantLen {
				t.Fatalf("%d items left, want %d", r.len(), tc.wantLen)
			}
			if len(r.buf) > tc.maxCap {
				t.Fatalf("capacity %d after the burst, want at most %d", len(r.buf), tc.maxCap)
			}
		})
	}
}

func TestNotificationRingKeepsOrderAcrossGrowAndShrink(t *testing.T) {
	cases := []struct {
		name  string
		steps []ringStep
	}{
		{name: "grow then shrink with items wrapped", steps: []ringStep{{push: 5000, pop: 4990}, {push: 3000, pop: 2000}, {push: 0, pop: -1}}},
		{name: "shrink in steps", steps: []ringStep{{push: 20_000, pop: 17_500}, {push: 0, pop: 2000}, {push: 0, pop: 400}, {push: 0, pop: -1}}},
		{name: "regrow after a shrink", steps: []ringStep{{push: 10_000, pop: 9_900}, {push: 10_000, pop: 9_990}, {push: 50, pop: -1}}},
		{name: "many bursts", steps: []ringStep{{push: 2000, pop: -1}, {push: 2000, pop: 1990}, {push: 2000, pop: -1}, {push: 7, pop: 3}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var r notificationRing
			runRingSteps(t, &r, tc.steps, 0)
		})
	}
}

func TestNotificationRingAllocatesNothingUnderASteadyLoad(t *testing.T) {
	cases := []struct {
		name    string
		backlog int // items left queued between rounds
		perRun  int // items pushed and popped per round
	}{
		{name: "one in one out", perRun: 1},
		{name: "a batch in, drained", perRun: listenerDrainBatch},
		{name: "threshold-sized bursts, drained", perRun: notificationRingShrinkAbove},
		{name: "small standing backlog", backlog: 10, perRun: 30},
		{name: "standing backlog above the threshold", backlog: 5000, perRun: 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var r notificationRing
			next := runRingSteps(t, &r, []ringStep{{push: tc.backlog + tc.perRun, pop: tc.perRun}}, 0)
			obj := interface{}(&next)
			buf := make([]notification, listenerDrainBatch)
			allocs := testing.AllocsPerRun(100, func() {
				for i := 0; i < tc.perRun; i++ {
					r.push(notification{kind: notifyAdd, newObj: obj})
				}
				for left := tc.perRun; left > 0; {
					left -= r.popInto(buf[:min(left, len(buf))])
				}
			})
			if allocs != 0 {
				t.Fatalf("%v allocations per round, want 0 (capacity %d)", allocs, len(r.buf))
			}
			if r.len() != tc.backlog {
				t.Fatalf("%d items left, want %d", r.len(), tc.backlog)
			}
		})
	}
}
