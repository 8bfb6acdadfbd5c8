package cache

import (
	"github.com/kcache-go/cache/internal/records"
)

// Sole memberships: for each record, the one key set of an index that holds
// it, when only one does, kept in a soleColumn per index (valueIndex.joined
// and left write it, see index.go). Update reads it to tell, without the old
// object, that a record's memberships already are the new object's values
// (see index_update.go).

// soleMany marks a record held by more than one key set of the index, or
// once held by several: it is never narrowed back, only reset when the id is
// given to a new record (see storeIndices.fresh).
const soleMany int32 = -1

// soleColumn maps record ids to one int32 each, in chunks of
// records.ChunkSize (the first grows by append, as the records' does; later
// ones are allocated at full size, so growing copies nothing). An id past
// the column reads 0. It is not safe for concurrent use; the owning map's
// lock guards it.
type soleColumn struct {
	// chunks holds the values; chunks[id>>records.ChunkBits] holds id's.
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
	ci, i := int(id>>records.ChunkBits), int(id&(records.ChunkSize-1))
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
	ci, i := int(id>>records.ChunkBits), int(id&(records.ChunkSize-1))
	for len(c.chunks) <= ci {
		c.chunks = append(c.chunks, nil)
	}
	if ci > 0 {
		c.chunks[ci] = make([]int32, records.ChunkSize)
	} else {
		// NB: the first chunk grows by append, so a small store stays
		// small.
		c.chunks[0] = append(c.chunks[0], make([]int32, i+1-len(c.chunks[0]))...)
	}
	return &c.chunks[ci][i]
}
