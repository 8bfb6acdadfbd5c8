package keyset

import "slices"

// Key set blocks: an index keeps its key sets in numbered blocks rather than
// allocating them one by one, so a new indexed value costs a fraction of an
// allocation for its set, and a set's number (which an index keeps per
// record) leads to it with no lookup.
//
// NB: the blocks stay allocated as the index shrinks, as a Go map keeps its
// buckets after deletes: an index that lost most of its values keeps, empty,
// the sets it held at its largest (64 B each; a list or hash array a set
// grew is dropped with the set) and reuses them first. Replace starts from
// fresh blocks.

// blockSize is how many key sets one block of a Blocks holds.
const blockSize = 16

// Blocks holds the key sets of one index by number: set num lives in
// blocks[num/blockSize] at num%blockSize and never moves, so an index's map
// by value may point at it and name it by number.
//
// Invariant: every number below n is either a live set's (its Set.num is
// the number, ValueAt(num) its index value) or listed once in free (its
// Set empty, as Set.reset leaves it, and its value ""). It is not safe
// for concurrent use; the owning map's lock guards it.
type Blocks struct {
	// blocks holds the sets; a block is allocated whole, when the first
	// number in it is handed out.
	blocks []*[blockSize]Set
	// values holds each set's value by number, apart from the sets, in
	// chunks of valueChunk, so that Update's check reads 16 bytes
	// from a few pages, not a set's line from one page of many.
	values [][]string
	// n is the number of numbers handed out, free ones included.
	n int32
	// free lists the numbers of released sets, for reuse.
	free []int32
}

// At returns the set numbered num, a number handed out.
func (t *Blocks) At(num int32) *Set {
	return &t.blocks[num/blockSize][num%blockSize]
}

// valueChunk is how many values one chunk of Blocks.values
// holds.
const valueChunk = 256

// ValueAt returns the value cell of num, a number handed out.
func (t *Blocks) ValueAt(num int32) *string {
	return &t.values[num/valueChunk][num%valueChunk]
}

// setValue records value as the value of num, a number being handed out,
// growing the values to cover it: the first chunk by append, so a small
// index stays small; later ones allocated whole.
func (t *Blocks) setValue(num int32, value string) {
	ci, i := int(num/valueChunk), int(num%valueChunk)
	if ci == len(t.values) {
		size := valueChunk
		if ci == 0 {
			size = 0
		}
		t.values = append(t.values, make([]string, 0, size))
	}
	if i == len(t.values[ci]) {
		t.values[ci] = append(t.values[ci], value)
		return
	}
	t.values[ci][i] = value
}

// Take returns an empty set for value, numbered: a released number first,
// else the next one. The caller holds the owning map's lock for writing.
func (t *Blocks) Take(value string) *Set {
	var num int32
	if last := len(t.free) - 1; last >= 0 {
		num, t.free = t.free[last], t.free[:last]
	} else {
		if t.n%blockSize == 0 {
			t.blocks = append(t.blocks, new([blockSize]Set))
		}
		num = t.n
		t.n++
	}
	ks := t.At(num)
	ks.reset(num)
	t.setValue(num, value)
	return ks
}

// Release frees ks, a set of t that no record is in any more (so no sole
// entry names it), dropping its value and any list it grew.
func (t *Blocks) Release(ks *Set) {
	num := ks.num
	ks.reset(num)
	*t.ValueAt(num) = ""
	t.free = append(t.free, num)
}

// Len returns how many numbers t has handed out, released ones included:
// every set of t is numbered below it.
func (t *Blocks) Len() int { return int(t.n) }

// Released returns a copy of the numbers of the released sets, the next to
// be handed out last. It is for tests and debugging.
func (t *Blocks) Released() []int32 { return slices.Clone(t.free) }
