package cache

// Key set blocks: an index allocates its key sets in blocks rather than one
// by one, so a new indexed value costs a fraction of an allocation for its
// set.
//
// NB: a block stays allocated while any set in it is in use, as a Go map
// keeps its buckets after deletes: an index that lost most of its values
// keeps up to a block's worth of empty sets per live one, never more than it
// held at its largest. Replace starts from fresh blocks.

// keySetBlockSize is how many key sets newKeySet allocates at a time.
const keySetBlockSize = 16

// newKeySet returns an empty key set from vi's current block. The caller
// holds the owning map's lock for writing.
func (vi *valueIndex) newKeySet() *keySet {
	if len(vi.spare) == 0 {
		vi.spare = make([]keySet, keySetBlockSize)
	}
	ks := &vi.spare[0]
	vi.spare = vi.spare[1:]
	return ks
}
