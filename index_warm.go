package cache

// Reading ahead: before a delete goes through the indices one by one, the
// memory it will touch in each is read, so that the cache misses of the
// indices overlap.

// warm reads, in every index, the memory that removing record id goes on
// to touch: id's sole entry, then its sole set's value and the set's first
// slot line. It changes nothing an index holds; the caller holds the owning
// map's lock.
//
// NB: within one index these reads depend on one another (the entry names
// the set, the set holds its slots), so done as the delete goes, index by
// index between the IndexFunc calls, their misses follow one another. Here
// no index's reads wait for another's, and the processor has the misses of
// all the indices in flight at once. The sum kept in warmth only keeps the
// compiler from dropping the reads.
func (ix *storeIndices) warm(id int32) {
	sum := 0
	for _, vi := range ix.ordered {
		if s := vi.sole.get(id); s > 0 {
			sum += len(*vi.sets.ValueAt(s - 1)) + vi.sets.At(s-1).FirstSlot(id)
		}
	}
	ix.warmth += sum
}
