package keyset

import (
	"fmt"
	"strings"
	"unsafe"
)

// Verify checks s's invariants (see Set) and returns the first that fails,
// nil when all hold. It is for tests and debugging.
func (s *Set) Verify() error {
	if !s.hashed() {
		return s.verifyList()
	}
	size := len(s.ids)
	if size&(size-1) != 0 || size < hashedMin {
		return fmt.Errorf("hash set of %d slots", size)
	}
	mask := size - 1
	n := 0
	seen := map[int32]bool{}
	for i, slot := range s.ids {
		if slot == 0 {
			continue
		}
		if n++; seen[slot] {
			return fmt.Errorf("hash set holds %d twice", slot-1)
		}
		seen[slot] = true
		for j := s.home(slot - 1); j != i; j = (j + 1) & mask {
			if s.ids[j] == 0 {
				return fmt.Errorf("id %d at slot %d is cut off from its home by empty slot %d", slot-1, i, j)
			}
		}
	}
	if n != int(s.n) || n*4 > size*3 {
		return fmt.Errorf("hash set of %d slots holds %d members, n = %d", size, n, s.n)
	}
	return nil
}

// verifyList checks the invariant of s, a list.
func (s *Set) verifyList() error {
	if s.n != 0 {
		return fmt.Errorf("list with n = %d", s.n)
	}
	for i, id := range s.ids {
		if id < 0 {
			return fmt.Errorf("list holds id %d", id)
		}
		for _, other := range s.ids[:i] {
			if other == id {
				return fmt.Errorf("list holds %d twice", id)
			}
		}
	}
	return nil
}

// onInline reports whether s's list sits on its own inline array.
func (s *Set) onInline() bool {
	return cap(s.ids) == inlineCap && unsafe.SliceData(s.ids) == &s.inline[0]
}

// Verify checks t's invariants (see Blocks) and those of each of its sets,
// and returns the first that fails, nil when all hold: every number handed
// out is live or free, once; a free set is empty on its inline array with
// value ""; a set's list of inlineCap ids is its inline array; and no two
// sets share a list. It is for tests and debugging.
func (t *Blocks) Verify() error {
	if err := t.verifyLayout(); err != nil {
		return err
	}
	free := make(map[int32]bool, len(t.free))
	for _, num := range t.free {
		if num < 0 || num >= t.n || free[num] {
			return fmt.Errorf("free list names %d twice or out of %d", num, t.n)
		}
		free[num] = true
	}
	lists := map[*int32]int32{}
	for num := int32(0); num < t.n; num++ {
		s := t.At(num)
		if err := t.verifySet(s, num, free[num]); err != nil {
			return err
		}
		if cap(s.ids) == 0 {
			continue
		}
		p := unsafe.SliceData(s.ids[:1])
		if other, ok := lists[p]; ok {
			return fmt.Errorf("sets %d and %d share a list", other, num)
		}
		lists[p] = num
	}
	return nil
}

// verifyLayout checks that the blocks and the value chunks cover exactly
// the numbers handed out.
func (t *Blocks) verifyLayout() error {
	if want := (int(t.n) + blockSize - 1) / blockSize; len(t.blocks) != want {
		return fmt.Errorf("%d blocks for %d numbers, want %d", len(t.blocks), t.n, want)
	}
	rest := int(t.n)
	for ci, values := range t.values {
		if want := min(rest, valueChunk); len(values) != want {
			return fmt.Errorf("value chunk %d holds %d values, want %d", ci, len(values), want)
		}
		rest -= len(values)
	}
	if rest != 0 {
		return fmt.Errorf("the values cover %d of %d numbers", int(t.n)-rest, t.n)
	}
	return nil
}

// verifySet checks s, the set numbered num, free or live.
func (t *Blocks) verifySet(s *Set, num int32, free bool) error {
	if s.num != num {
		return fmt.Errorf("set %d is numbered %d", num, s.num)
	}
	if cap(s.ids) == 0 {
		return fmt.Errorf("set %d has no list", num)
	}
	if free && (len(s.ids) != 0 || s.n != 0 || !s.onInline() || *t.ValueAt(num) != "") {
		return fmt.Errorf("free set %d holds %d ids, value %q, or a list of its own", num, s.Len(), *t.ValueAt(num))
	}
	if !s.hashed() && cap(s.ids) == inlineCap && !s.onInline() {
		return fmt.Errorf("set %d has a list of %d not on its inline array", num, inlineCap)
	}
	if err := s.Verify(); err != nil {
		return fmt.Errorf("set %d: %w", num, err)
	}
	return nil
}

// Dump renders everything s holds: its number, count, list (length,
// capacity, whether on its inline array, members) and inline array. It is
// for tests and debugging: two sets in the same state dump alike.
func (s *Set) Dump() string {
	return fmt.Sprintf("{num=%d n=%d len=%d cap=%d inlineBacked=%v ids=%v inline=%v}",
		s.num, s.n, len(s.ids), cap(s.ids), cap(s.ids) > 0 && &s.ids[:1][0] == &s.inline[0], s.ids, s.inline)
}

// Dump renders everything t holds: its count, its free list (with its
// length and capacity), every set of every block (see Set.Dump) and the
// value chunks. It is for tests and debugging.
func (t *Blocks) Dump() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sets n=%d free=%v (len=%d cap=%d) blocks=%d\n", t.n, t.free, len(t.free), cap(t.free), len(t.blocks))
	for bi, blk := range t.blocks {
		for i := range blk {
			fmt.Fprintf(&b, " block %d/%d %s\n", bi, i, blk[i].Dump())
		}
	}
	for ci, c := range t.values {
		fmt.Fprintf(&b, "values %d len=%d cap=%d %q\n", ci, len(c), cap(c), c)
	}
	return b.String()
}
