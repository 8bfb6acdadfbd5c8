package ring

import (
	"bytes"
	"testing"
)

func TestQueueKeepsOrderAcrossWrapAroundAndGrowth(t *testing.T) {
	var r Queue[int]
	next, want := 0, 0
	// Interleave pushes and pops so that head walks around the buffer many
	// times while it grows.
	for round := 0; round < 40; round++ {
		for i := 0; i < round%7+3; i++ {
			r.Push(next)
			next++
		}
		for i := 0; i < round%5+1 && r.Len() > 0; i++ {
			if got := r.Pop(); got != want {
				t.Fatalf("round %d: popped %d, want %d", round, got, want)
			}
			want++
		}
		for i := 0; i < r.Len(); i++ {
			if got := r.At(i); got != want+i {
				t.Fatalf("round %d: at(%d) = %d, want %d", round, i, got, want+i)
			}
		}
	}
	if r.Len() != next-want {
		t.Fatalf("len %d, want %d", r.Len(), next-want)
	}
}

func TestQueueClearsPoppedSlotsSoObjectsCanBeCollected(t *testing.T) {
	var r Queue[*int]
	for i := 0; i < 10; i++ {
		v := i
		r.Push(&v)
	}
	for i := 0; i < 10; i++ {
		r.Pop()
	}
	for i, p := range r.buf {
		if p != nil {
			t.Fatalf("slot %d still references a popped object", i)
		}
	}
}

func TestQueueGivesMemoryBackAfterABurst(t *testing.T) {
	var r Queue[int]
	r.Reserve(100000)
	for i := 0; i < 100000; i++ {
		r.Push(i)
	}
	peak := len(r.buf)
	for i := 0; i < 99990; i++ {
		if got := r.Pop(); got != i {
			t.Fatalf("popped %d, want %d", got, i)
		}
	}
	if len(r.buf) >= peak/4 {
		t.Fatalf("capacity %d after draining a burst that peaked at %d", len(r.buf), peak)
	}
	for i := 99990; i < 100000; i++ {
		if got := r.Pop(); got != i {
			t.Fatalf("popped %d after shrinking, want %d", got, i)
		}
	}
}

func TestQueueResetEmptiesButKeepsTheBuffer(t *testing.T) {
	var r Queue[string]
	for _, s := range []string{"a", "b", "c"} {
		r.Push(s)
	}
	r.Pop()
	capBefore := len(r.buf)
	r.Reset()
	if r.Len() != 0 || len(r.buf) != capBefore {
		t.Fatalf("after reset: len %d cap %d, want 0 and %d", r.Len(), len(r.buf), capBefore)
	}
	r.Push("d")
	if got := r.Pop(); got != "d" {
		t.Fatalf("popped %q after reset, want d", got)
	}
}

// FuzzQueueAgreesWithASlice drives a Queue and a plain slice (append to
// push, re-slice to pop) with the same operations, read from the input a
// byte at a time, and compares them after every step: length, every
// element through At, the power-of-two capacity and the cleared free slots.
func FuzzQueueAgreesWithASlice(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 1, 0, 2, 1, 1, 1})
	f.Add([]byte{3, 200, 3, 200, 3, 200, 1, 1, 1, 4, 0, 1})
	f.Add(append(bytes.Repeat([]byte{3, 255}, 40), bytes.Repeat([]byte{1}, 250)...))
	f.Fuzz(func(t *testing.T, ops []byte) {
		var q Queue[*int]
		var model []*int
		next := 0
		push := func() {
			v := next
			next++
			q.Push(&v)
			model = append(model, &v)
		}
		for i := 0; i < len(ops); i++ {
			switch op := ops[i] % 5; {
			case op == 0: // push one
				push()
			case op == 1: // pop one, when any
				if len(model) > 0 {
					if got := q.Pop(); got != model[0] {
						t.Fatalf("step %d: popped %d, want %d", i, *got, *model[0])
					}
					model = model[1:]
				}
			case op == 2: // reset
				q.Reset()
				model = nil
			case op == 3 && i+1 < len(ops): // reserve, then push, a burst
				i++
				n := 64 * int(ops[i])
				q.Reserve(n)
				for range n {
					push()
				}
			case op == 4: // reserve a few without pushing
				q.Reserve(int(ops[i]))
			}
			checkQueueAgainst(t, i, &q, model)
		}
	})
}

// checkQueueAgainst fails unless q holds model's elements in order within a
// power-of-two buffer whose free slots are all nil.
func checkQueueAgainst(t *testing.T, step int, q *Queue[*int], model []*int) {
	t.Helper()
	if q.Len() != len(model) {
		t.Fatalf("step %d: len %d, want %d", step, q.Len(), len(model))
	}
	size := len(q.buf)
	if size&(size-1) != 0 || size < q.n || (q.n == 0 && q.head != 0) {
		t.Fatalf("step %d: capacity %d, head %d for %d elements", step, size, q.head, q.n)
	}
	for i, want := range model {
		if got := q.At(i); got != want {
			t.Fatalf("step %d: At(%d) = %d, want %d", step, i, *got, *want)
		}
	}
	for i := q.n; i < size; i++ {
		if q.buf[(q.head+i)&(size-1)] != nil {
			t.Fatalf("step %d: free slot %d still holds an element", step, (q.head+i)&(size-1))
		}
	}
}
