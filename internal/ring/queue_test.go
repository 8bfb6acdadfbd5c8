package cache

import "testing"

func TestQueueRingKeepsOrderAcrossWrapAroundAndGrowth(t *testing.T) {
	var r queueRing[int]
	next, want := 0, 0
	// Interleave pushes and pops so that head walks around the buffer many
	// times while it grows.
	for round := 0; round < 40; round++ {
		for i := 0; i < round%7+3; i++ {
			r.push(next)
			next++
		}
		for i := 0; i < round%5+1 && r.len() > 0; i++ {
			if got := r.pop(); got != want {
				t.Fatalf("round %d: popped %d, want %d", round, got, want)
			}
			want++
		}
		for i := 0; i < r.len(); i++ {
			if got := r.at(i); got != want+i {
				t.Fatalf("round %d: at(%d) = %d, want %d", round, i, got, want+i)
			}
		}
	}
	if r.len() != next-want {
		t.Fatalf("len %d, want %d", r.len(), next-want)
	}
}

func TestQueueRingClearsPoppedSlotsSoObjectsCanBeCollected(t *testing.T) {
	var r queueRing[*int]
	for i := 0; i < 10; i++ {
		v := i
		r.push(&v)
	}
	for i := 0; i < 10; i++ {
		r.pop()
	}
	for i, p := range r.buf {
		if p != nil {
			t.Fatalf("slot %d still references a popped object", i)
		}
	}
}

func TestQueueRingGivesMemoryBackAfterABurst(t *testing.T) {
	var r queueRing[int]
	r.reserve(100000)
	for i := 0; i < 100000; i++ {
		r.push(i)
	}
	peak := len(r.buf)
	for i := 0; i < 99990; i++ {
		if got := r.pop(); got != i {
			t.Fatalf("popped %d, want %d", got, i)
		}
	}
	if len(r.buf) >= peak/4 {
		t.Fatalf("capacity %d after draining a burst that peaked at %d", len(r.buf), peak)
	}
	for i := 99990; i < 100000; i++ {
		if got := r.pop(); got != i {
			t.Fatalf("popped %d after shrinking, want %d", got, i)
		}
	}
}

func TestQueueRingResetEmptiesButKeepsTheBuffer(t *testing.T) {
	var r queueRing[string]
	for _, s := range []string{"a", "b", "c"} {
		r.push(s)
	}
	r.pop()
	capBefore := len(r.buf)
	r.reset()
	if r.len() != 0 || len(r.buf) != capBefore {
		t.Fatalf("after reset: len %d cap %d, want 0 and %d", r.len(), len(r.buf), capBefore)
	}
	r.push("d")
	if got := r.pop(); got != "d" {
		t.Fatalf("popped %q after reset, want d", got)
	}
}
