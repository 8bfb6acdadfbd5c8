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
	if p := c.at(id); p != nil {
		return *p
	}
	return 0
}

// at returns id's cell, nil when id is past the column.
func (c *soleColumn) at(id int32) *int32 {
	ci, i := int(id>>recordChunkBits), int(id&(recordChunkSize-1))
	if ci >= len(c.chunks) || i >= len(c.chunks[ci]) {
		return nil
	}
	return &c.chunks[ci][i]
}

// cell returns id's cell, growing the column to cover id.
func (c *soleColumn) cell(id int32) *int32 {
	if p := c.at(id); p != nil {
		return p
	}
	ci, i := int(id>>recordChunkBits), int(id&(recordChunkSize-1))
	for len(c.chunks) <= ci {
		c.chunks = append(c.chunks, nil)
	}
	if ci > 0 {
		c.chunks[ci] = make([]int32, recordChunkSize)
	} else {
		// NB: the first chunk grows by append, so a small store stays
		// small.
		c.chunks[0] = append(c.chunks[0], make([]int32, i+1-len(c.chunks[0]))...)
	}
	return &c.chunks[ci][i]
}

// joined records that ks, a key set of vi, now holds id.
func (vi *valueIndex) joined(id int32, ks *keySet) {
	if p := vi.sole.cell(id); *p == 0 {
		*p = ks.num + 1
	} else {
		*p = soleMany
	}
}

// left records that ks, a key set of vi, no longer holds id.
func (vi *valueIndex) left(id int32, ks *keySet) {
	if p := vi.sole.at(id); p != nil && *p == ks.num+1 {
		*p = 0
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
	return vi.soleSetOf(id, value) >= 0
}

// soleSetOf returns the number of the one key set of vi that holds id when
// that set is value's, else -1. It reads id's sole entry and that set's
// value, never a key set.
func (vi *valueIndex) soleSetOf(id int32, value string) int32 {
	if s := vi.sole.get(id); s > 0 && *vi.sets.valueAt(s - 1) == value {
		return s - 1
	}
	return -1
}

// setOf returns value's key set, nil when there is none. When the one set
// holding id is value's, it is found by its number, without a lookup in
// byValue (the common delete, and an update that moves a record).
func (vi *valueIndex) setOf(id int32, value string) *keySet {
	if num := vi.soleSetOf(id, value); num >= 0 {
		return vi.sets.at(num)
	}
	return vi.byValue[value]
}

// fresh resets id's sole entries in every index, pending content included,
// for a new record given the id of a freed one.
func (ix *storeIndices) fresh(id int32) {
	for _, vi := range ix.ordered {
		if p := vi.sole.at(id); p != nil {
			*p = 0
		}
	}
	for _, vi := range ix.pending {
		if p := vi.sole.at(id); p != nil {
			*p = 0
		}
	}
}
