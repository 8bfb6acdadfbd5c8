package cache

// Key set blocks: an index allocates its key sets, and the first list of
// each, in blocks rather than one by one, so a new indexed value costs a
// fraction of an allocation for its set.
//
// NB: a block stays allocated while any set (or first list) in it is in
// use, as a Go map keeps its buckets after deletes: an index that lost most
// of its values keeps up to a block's worth of empty sets per live one,
// never more than it held at its largest. A list that outgrows its first
// capacity moves to its own allocation (its first list is cut with a full
// slice expression, so an append never writes into a neighbour's). Replace
// starts from fresh blocks.

// keySetBlockSize is how many key sets newKeySet allocates at a time.
const keySetBlockSize = 16

// keySetListBlockSize is how many first lists (of keySetListMin ids each)
// newKeySet cuts from one allocation.
const keySetListBlockSize = 64

// newKeySet returns an empty key set from vi's current block, with its
// first list, of capacity keySetListMin, from vi's current list block. The
// caller holds the owning map's lock for writing.
func (vi *valueIndex) newKeySet() *keySet {
	if len(vi.spare) == 0 {
		vi.spare = make([]keySet, keySetBlockSize)
	}
	ks := &vi.spare[0]
	vi.spare = vi.spare[1:]
	if len(vi.spareIDs) < keySetListMin {
		vi.spareIDs = make([]int32, keySetListBlockSize*keySetListMin)
	}
	ks.ids = vi.spareIDs[:0:keySetListMin]
	vi.spareIDs = vi.spareIDs[keySetListMin:]
	return ks
}
