package ring

import (
	"bytes"
	"testing"
)

// note stands for a listener's notification: two object references, as
// the root package's notification holds.
type note struct{ oldObj, newObj interface{} }

// drainBatch is how many notes a pop takes at most, as a listener's drain
// batch does.
const drainBatch = 64

func TestBacklogKeepsOrderAcrossGrowthAndWrapAround(t *testing.T) {
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
			var r Backlog[note]
			var got []int
			buf := make([]note, 16)
			drain := func(limit int) {
				n := r.PopInto(buf[:min(limit, len(buf))])
				for _, item := range buf[:n] {
					got = append(got, item.newObj.(int))
				}
			}
			for i := 0; i < tc.pushes; i++ {
				r.Push(note{newObj: i})
				if tc.popEvery > 0 && (i+1)%tc.popEvery == 0 {
					drain(tc.popSize)
				}
			}
			for r.Len() > 0 {
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

func TestBacklogClearsDeliveredSlots(t *testing.T) {
	var r Backlog[note]
	r.Push(note{newObj: "x"})
	buf := make([]note, 1)
	r.PopInto(buf)
	for i, slot := range r.buf {
		if slot.newObj != nil || slot.oldObj != nil {
			t.Fatalf("slot %d still references %v", i, slot.newObj)
		}
	}
}

// ringStep pushes push items, then pops pop items (all of them when pop is
// negative) in batches of drainBatch.
type ringStep struct{ push, pop int }

// runRingSteps applies steps to r, numbering pushed items from next and
// checking that popped items come out in order; it returns the next number.
func runRingSteps(t *testing.T, r *Backlog[note], steps []ringStep, next int) int {
	t.Helper()
	want := next - r.Len()
	buf := make([]note, drainBatch)
	for _, s := range steps {
		for i := 0; i < s.push; i++ {
			r.Push(note{newObj: next})
			next++
		}
		left := s.pop
		if left < 0 {
			left = r.Len()
		}
		for left > 0 {
			n := r.PopInto(buf[:min(left, len(buf))])
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
func assertRingHoldsOnlyLiveItems(t *testing.T, r *Backlog[note]) {
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

func TestBacklogGivesBackABurstsBufferOnceDrained(t *testing.T) {
	cases := []struct {
		name    string
		steps   []ringStep
		maxCap  int // capacity after the steps is at most this
		wantLen int
	}{
		{name: "small load keeps its buffer", steps: []ringStep{{push: 50, pop: -1}}, maxCap: backlogMinSize},
		{name: "load at the threshold keeps its buffer", steps: []ringStep{{push: backlogShrinkAbove, pop: -1}}, maxCap: backlogShrinkAbove},
		{name: "burst of 100k drained", steps: []ringStep{{push: 100_000, pop: -1}}, maxCap: 0},
		{name: "burst drained while more arrive", steps: []ringStep{{push: 50_000, pop: 40_000}, {push: 10, pop: -1}}, maxCap: 0},
		{name: "burst mostly drained", steps: []ringStep{{push: 100_000, pop: 99_990}}, maxCap: 2 * backlogShrinkAbove, wantLen: 10},
		{name: "burst drained to a standing backlog", steps: []ringStep{{push: 100_000, pop: 99_000}}, maxCap: 4096, wantLen: 1000},
		{name: "two bursts", steps: []ringStep{{push: 30_000, pop: -1}, {push: 70_000, pop: -1}}, maxCap: 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var r Backlog[note]
			runRingSteps(t, &r, tc.steps, 0)
			if r.Len() != tc.wantLen {
				t.Fatalf("%d items left, want %d", r.Len(), tc.wantLen)
			}
			if len(r.buf) > tc.maxCap {
				t.Fatalf("capacity %d after the burst, want at most %d", len(r.buf), tc.maxCap)
			}
		})
	}
}

func TestBacklogKeepsOrderAcrossGrowAndShrink(t *testing.T) {
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
			var r Backlog[note]
			runRingSteps(t, &r, tc.steps, 0)
		})
	}
}

func TestBacklogAllocatesNothingUnderASteadyLoad(t *testing.T) {
	cases := []struct {
		name    string
		backlog int // items left queued between rounds
		perRun  int // items pushed and popped per round
	}{
		{name: "one in one out", perRun: 1},
		{name: "a batch in, drained", perRun: drainBatch},
		{name: "threshold-sized bursts, drained", perRun: backlogShrinkAbove},
		{name: "small standing backlog", backlog: 10, perRun: 30},
		{name: "standing backlog above the threshold", backlog: 5000, perRun: 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var r Backlog[note]
			next := runRingSteps(t, &r, []ringStep{{push: tc.backlog + tc.perRun, pop: tc.perRun}}, 0)
			obj := interface{}(&next)
			buf := make([]note, drainBatch)
			allocs := testing.AllocsPerRun(100, func() {
				for i := 0; i < tc.perRun; i++ {
					r.Push(note{newObj: obj})
				}
				for left := tc.perRun; left > 0; {
					left -= r.PopInto(buf[:min(left, len(buf))])
				}
			})
			if allocs != 0 {
				t.Fatalf("%v allocations per round, want 0 (capacity %d)", allocs, len(r.buf))
			}
			if r.Len() != tc.backlog {
				t.Fatalf("%d items left, want %d", r.Len(), tc.backlog)
			}
		})
	}
}

// FuzzBacklogAgreesWithASlice drives a Backlog and a plain slice with the
// same pushes and batched pops, read from the input a byte at a time, and
// compares them after every step: what each pop returned, the length, the
// power-of-two capacity, the cleared free slots, and the bound on the
// memory a drained or mostly drained backlog keeps.
func FuzzBacklogAgreesWithASlice(f *testing.F) {
	f.Add([]byte{0, 5, 1, 3, 0, 200, 1, 64, 1, 255})
	f.Add([]byte{2, 255, 2, 255, 2, 255, 3, 3, 3, 0, 1, 1, 1})
	f.Add(append(bytes.Repeat([]byte{2, 255}, 20), bytes.Repeat([]byte{1, 64}, 100)...))
	f.Fuzz(func(t *testing.T, ops []byte) {
		var r Backlog[note]
		var model []note
		next := 0
		buf := make([]note, drainBatch)
		for i := 0; i+1 < len(ops); i += 2 {
			op, arg := ops[i]%4, int(ops[i+1])
			switch op {
			case 0, 2: // push arg, or 64*arg for a burst
				n := arg
				if op == 2 {
					n *= 64
				}
				for range n {
					v := note{oldObj: next, newObj: next}
					next++
					r.Push(v)
					model = append(model, v)
				}
			case 1: // pop up to arg, at most a batch
				n := r.PopInto(buf[:min(arg, len(buf))])
				if want := min(arg, len(buf), len(model)); n != want {
					t.Fatalf("step %d: popped %d, want %d", i, n, want)
				}
				for j := range n {
					if buf[j] != model[j] {
						t.Fatalf("step %d: popped %v, want %v", i, buf[j], model[j])
					}
				}
				model = model[n:]
			case 3: // drain
				for r.Len() > 0 {
					model = model[r.PopInto(buf):]
				}
			}
			checkBacklogAgainst(t, i, &r, model, op == 1 || op == 3)
		}
	})
}

// checkBacklogAgainst fails unless r holds model's elements in order, free
// slots cleared, and, after a pop, within a buffer of the size the package
// doc promises: none once drained past the threshold, at most
// 2*backlogShrinkAbove slots for a few items, at most 8 slots an item.
func checkBacklogAgainst(t *testing.T, step int, r *Backlog[note], model []note, popped bool) {
	t.Helper()
	if r.Len() != len(model) {
		t.Fatalf("step %d: len %d, want %d", step, r.Len(), len(model))
	}
	assertRingHoldsOnlyLiveItems(t, r)
	size := len(r.buf)
	for i, want := range model {
		if got := r.buf[(r.head+i)&(size-1)]; got != want {
			t.Fatalf("step %d: item %d is %v, want %v", step, i, got, want)
		}
	}
	bound := max(backlogShrinkAbove, 8*r.count)
	if r.count > 0 {
		bound = max(bound, 2*backlogShrinkAbove)
	}
	if popped && size > bound {
		t.Fatalf("step %d: %d items kept in %d slots past a pop", step, r.count, size)
	}
}
