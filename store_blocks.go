package cache

// Key set blocks: an index keeps its key sets in numbered blocks rather than
// allocating them one by one, so a new indexed value costs a fraction of an
// allocation for its set, and a set's number (see soleColumn) leads to it
// with no lookup.
//
// NB: the blocks stay allocated as the index shrinks, as a Go map keeps its
// buckets after deletes: an index that lost most of its values keeps, empty,
// the sets it held at its largest (64 B each; a list or hash array a set
// grew is dropped with the set) and reuses them first. Replace starts from
// fresh blocks.

// keySetBlockSize is how many key sets one block of a keySetTable holds.
const keySetBlockSize = 16

// keySetTable holds the key sets of one index by number: set num lives in
// blocks[num/keySetBlockSize] at num%keySetBlockSize and never moves, so
// byValue may point at it and the sole column may name it by number.
//
// Invariant: every number below n is either a live set's (its keySet.num is
// the number, valueAt(num) its index value) or listed once in free (its
// keySet empty, as keySet.reset leaves it, and its value ""). It is not safe
// for concurrent use; the owning map's lock guards it.
type keySetTable struct {
	// blocks holds the sets; a block is allocated whole, when the first
	// number in it is handed out.
	blocks []*[keySetBlockSize]keySet
	// values holds each set's value by number, apart from the sets, in
	// chunks of keySetValueChunk, so that Update's check reads 16 bytes
	// from a few pages, not a set's line from one page of many.
	values [][]string
	// n is the number of numbers handed out, free ones included.
	n int32
	// free lists the numbers of released sets, for reuse.
	free []int32
}

// at returns the set numbered num, a number handed out.
func (t *keySetTable) at(num int32) *keySet {
	return &t.blocks[num/keySetBlockSize][num%keySetBlockSize]
}

// keySetValueChunk is how many values one chunk of keySetTable.values
// holds.
const keySetValueChunk = 256

// valueAt returns the value cell of num, a number handed out.
func (t *keySetTable) valueAt(num int32) *string {
	return &t.values[num/keySetValueChunk][num%keySetValueChunk]
}

// setValue records value as the value of num, a number being handed out,
// growing the values to cover it: the first chunk by append, so a small
// index stays small; later ones allocated whole.
func (t *keySetTable) setValue(num int32, value string) {
	ci, i := int(num/keySetValueChunk), int(num%keySetValueChunk)
	if ci == len(t.values) {
		size := keySetValueChunk
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

// take returns an empty set for value, numbered: a released number first,
// else the next one. The caller holds the owning map's lock for writing.
func (t *keySetTable) take(value string) *keySet {
	var num int32
	if last := len(t.free) - 1; last >= 0 {
		num, t.free = t.free[last], t.free[:last]
	} else {
		if t.n%keySetBlockSize == 0 {
			t.blocks = append(t.blocks, new([keySetBlockSize]keySet))
		}
		num = t.n
		t.n++
	}
	ks := t.at(num)
	ks.reset(num)
	t.setValue(num, value)
	return ks
}

// release frees ks, a set of t that no record is in any more (so no sole
// entry names it), dropping its value and any list it grew.
func (t *keySetTable) release(ks *keySet) {
	num := ks.num
	ks.reset(num)
	*t.valueAt(num) = ""
	t.free = append(t.free, num)
}
