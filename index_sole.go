package cache

// Sole memberships: for each record, the one key set of an index that holds
// it, when only one does. Update reads it to tell, without the old object,
// that a record's memberships already are the new object's values (see
// index_update.go).

// soleMany marks a record held by more than one key set of the index, or
// once held by several: it is never narrowed back, only reset when the id is
// given to a new record (see storeIndices.fresh).
const soleMany int32 = -1

// soleColumn maps record ids to one int32 each, in chunks of
// recordChunkSize (the first grows by append, as the records' does; later
// ones are allocated at full size, so growing copies nothing). An id past
// the column reads 0. It is not safe for concurrent use; the owning map's
// lock guards it.
type soleColumn struct {
	// chunks holds the values; chunks[id>>recordChunkBits] holds id's.
	chunks [][]int32
}

// get returns the value of id, 0 when id is past the column.
func (c *soleColumn) get(id int32) int32 {
	ci, i := int(id>>recordChunkBits), int(id&(recordChunkSize-1))
	if ci >= len(c.chunks) || i >= len(c.chunks[ci]) {
		return 0
	}
	return c.chunks[ci][i]
}

// set makes v the value of id, growing the column to cover id.
func (c *soleColumn) set(id int32, v int32) {
	ci, i := int(id>>recordChunkBits), int(id&(recordChunkSize-1))
	for len(c.chunks) <= ci {
		c.chunks = append(c.chunks, nil)
	}
	chunk := c.chunks[ci]
	if i >= len(chunk) {
		if ci > 0 {
			chunk = make([]int32, recordChunkSize)
		} else {
			chunk = append(chunk, make([]int32, i+1-len(chunk))...)
		}
		c.chunks[ci] = chunk
	}
	chunk[i] = v
}

// numberSet gives ks, a key set new to vi, a number and records value as
// its value.
func (vi *valueIndex) numberSet(ks *keySet, value string) {
	if n := len(vi.freeNums); n > 0 {
		ks.num = vi.freeNums[n-1]
		vi.freeNums = vi.freeNums[:n-1]
		vi.setValues[ks.num] = value
		return
	}
	ks.num = int32(len(vi.setValues))
	vi.setValues = append(vi.setValues, value)
}

// releaseSet frees the number of ks, a key set vi just dropped (it has no
// member, so no sole entry names it).
func (vi *valueIndex) releaseSet(ks *keySet) {
	vi.setValues[ks.num] = ""
	vi.freeNums = append(vi.freeNums, ks.num)
}

// joined records that ks, a key set of vi, now holds id.
func (vi *valueIndex) joined(id int32, ks *keySet) {
	if vi.sole.get(id) == 0 {
		vi.sole.set(id, ks.num+1)
		return
	}
	vi.sole.set(id, soleMany)
}

// left records that ks, a key set of vi, no longer holds id.
func (vi *valueIndex) left(id int32, ks *keySet) {
	if vi.sole.get(id) == ks.num+1 {
		vi.sole.set(id, 0)
	}
}

// holdsExactly reports whether id's memberships in vi are exactly values: no
// membership when there are none, else the one key set of the one value. It
// reads neither an object nor a key set, and answers false when it cannot
// tell (several values, or a record once held by several sets).
func (vi *valueIndex) holdsExactly(id int32, values []string) bool {
	switch len(values) {
	case 0:
		return vi.sole.get(id) == 0
	case 1:
		return vi.holdsOnly(id, values[0])
	}
	return false
}

// holdsOnly reports whether value's key set is the one key set of vi that
// holds id.
func (vi *valueIndex) holdsOnly(id int32, value string) bool {
	s := vi.sole.get(id)
	return s > 0 && vi.setValues[s-1] == value
}

// fresh resets id's sole entries in every index, pending content included,
// for a new record given the id of a freed one.
func (ix *storeIndices) fresh(id int32) {
	for _, vi := range ix.ordered {
		if vi.sole.get(id) != 0 {
			vi.sole.set(id, 0)
		}
	}
	for _, vi := range ix.pending {
		if vi.sole.get(id) != 0 {
			vi.sole.set(id, 0)
		}
	}
}
