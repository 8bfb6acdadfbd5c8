package cache

// recordHole is the type of the two marks a record's object slot holds when
// the record has no object: stored objects are never of this type, so the
// marks cannot be mistaken for an object (nil is a legal object).
type recordHole struct{ state string }

var (
	// freeRecord marks a record on the free list.
	freeRecord interface{} = &recordHole{state: "free"}
	// detachedRecord marks a record whose key is not stored but that some
	// index still holds (see threadSafeMap.detached).
	detachedRecord interface{} = &recordHole{state: "detached"}
)

// isHole reports whether obj is one of the record marks.
func isHole(obj interface{}) bool {
	_, hole := obj.(*recordHole)
	return hole
}

// recordChunkBits sets the size of a record chunk: 1 << recordChunkBits
// records.
const recordChunkBits = 10

// recordChunkSize is the number of records of a full chunk.
const recordChunkSize = 1 << recordChunkBits

// recordChunk holds the records of ids chunk<<recordChunkBits and on, in
// parallel slices of equal length, at most recordChunkSize.
type recordChunk struct {
	keys    []recordKey
	objects []interface{}
	refs    []int32
}

// storeRecords holds a store's records by record id: the key (a recordKey:
// two string headers, for a key the store computed from an object's
// metadata the object's own namespace and name), the object and the number of key-set memberships of each, in parallel slices cut into
// chunks of recordChunkSize records. Ids are stable: a record keeps its id
// from its creation until it is freed, so indices hold ids and never need
// rewriting. A freed id goes on a free list and is reused, last freed first,
// by the next new record; the records never shrink (iteration cost follows
// the largest size, as with a Go map), and Replace starts from fresh ones.
//
// NB: chunks, rather than three slices grown by append, because a new chunk
// is allocated at its full size and nothing is ever copied: adding records
// leaves no garbage behind, and at most one chunk's worth of slots is unused
// (a slice grown by append keeps up to a quarter of its length unused). Only
// the first chunk grows by append, so a small store stays small.
//
// A record is in one of three states, told by its object slot:
//   - stored: any other value (nil included); its key is set and its refs
//     count the key sets holding it;
//   - detached (detachedRecord): its key is set and refs > 0;
//   - free (freeRecord): its key is empty (both headers ""), no key set
//     holds it, and refs is the next free id plus one (0 ends the list).
//
// Invariant: n records exist, ids 0 to n-1; every chunk but the last is
// full; live is the number of stored records; freeHead is the first free id
// plus one, 0 when none. storeRecords is not safe for concurrent use: the
// owning store's lock guards it.
type storeRecords struct {
	// chunks holds the records; chunks[id>>recordChunkBits] holds id.
	// A key handed to a caller is rendered (see recordKey.String): a new
	// string for a split key, so that it pins only its own bytes.
	chunks []recordChunk
	// n is the number of records, free ones included.
	n int32
	// freeHead is the most recently freed id plus one; 0 when none is free.
	freeHead int32
	// live is the number of stored records.
	live int
}

// newStoreRecords returns empty records with room for n before a chunk is
// added.
func newStoreRecords(n int) storeRecords {
	var r storeRecords
	for ; n > 0; n -= recordChunkSize {
		r.chunks = append(r.chunks, newRecordChunk(min(n, recordChunkSize)))
	}
	return r
}

// newRecordChunk returns an empty chunk with room for size records.
func newRecordChunk(size int) recordChunk {
	return recordChunk{
		keys:    make([]recordKey, 0, size),
		objects: make([]interface{}, 0, size),
		refs:    make([]int32, 0, size),
	}
}

// chunkOf returns the chunk of id and id's position in it.
func (r *storeRecords) chunkOf(id int32) (*recordChunk, int32) {
	return &r.chunks[id>>recordChunkBits], id & (recordChunkSize - 1)
}

// key returns the key of id.
func (r *storeRecords) key(id int32) recordKey {
	return r.chunks[id>>recordChunkBits].keys[id&(recordChunkSize-1)]
}

// entry returns the key and the object slot of id.
func (r *storeRecords) entry(id int32) (recordKey, interface{}) {
	c, i := r.chunkOf(id)
	return c.keys[i], c.objects[i]
}

// setKey makes k, a key that renders as id's key does, the key of id: the
// headers are re-pointed (to a newer object's metadata strings, or to a
// plain key), the key stays the same.
func (r *storeRecords) setKey(id int32, k recordKey) {
	r.chunks[id>>recordChunkBits].keys[id&(recordChunkSize-1)] = k
}

// object returns the object slot of id: its object or a record mark.
func (r *storeRecords) object(id int32) interface{} {
	return r.chunks[id>>recordChunkBits].objects[id&(recordChunkSize-1)]
}

// setObject makes obj the object of id, a stored record.
func (r *storeRecords) setObject(id int32, obj interface{}) {
	r.chunks[id>>recordChunkBits].objects[id&(recordChunkSize-1)] = obj
}

// refs returns the membership count of id, for the indices to keep.
func (r *storeRecords) refs(id int32) *int32 {
	return &r.chunks[id>>recordChunkBits].refs[id&(recordChunkSize-1)]
}

// add creates a record of key holding obj (an object, or detachedRecord),
// reusing the most recently freed id when there is one, and returns its id.
func (r *storeRecords) add(key recordKey, obj interface{}) int32 {
	if !isHole(obj) {
		r.live++
	}
	if r.freeHead != 0 {
		id := r.freeHead - 1
		c, i := r.chunkOf(id)
		r.freeHead = c.refs[i]
		c.keys[i], c.objects[i], c.refs[i] = key, obj, 0
		return id
	}
	if r.n&(recordChunkSize-1) == 0 && int(r.n>>recordChunkBits) == len(r.chunks) {
		// NB: the first chunk starts small and grows by append.
		r.chunks = append(r.chunks, newRecordChunk(min(recordChunkSize, max(8, int(r.n)))))
	}
	c := &r.chunks[r.n>>recordChunkBits]
	c.keys = append(c.keys, key)
	c.objects = append(c.objects, obj)
	c.refs = append(c.refs, 0)
	r.n++
	return r.n - 1
}

// free puts id, a record no key set holds, on the free list and drops its
// key and object so their memory can go.
func (r *storeRecords) free(id int32) {
	c, i := r.chunkOf(id)
	if !isHole(c.objects[i]) {
		r.live--
	}
	c.keys[i], c.objects[i] = recordKey{}, freeRecord
	c.refs[i] = r.freeHead
	r.freeHead = id + 1
}

// detach turns id, a stored record, into a detached one.
func (r *storeRecords) detach(id int32) {
	r.setObject(id, detachedRecord)
	r.live--
}

// attach gives id, a detached record, the object obj.
func (r *storeRecords) attach(id int32, obj interface{}) {
	r.setObject(id, obj)
	r.live++
}

// objectOf returns the object of id, nil for a detached record (as
// client-go's index reads give nil for a key they hold that is not stored).
func (r *storeRecords) objectOf(id int32) interface{} {
	if obj := r.object(id); !isHole(obj) {
		return obj
	}
	return nil
}

// appendObjects appends every stored object to dst.
func (r *storeRecords) appendObjects(dst []interface{}) []interface{} {
	for ci := range r.chunks {
		objects := r.chunks[ci].objects
		if r.live == int(r.n) {
			dst = append(dst, objects...) // NB: no holes: one copy.
			continue
		}
		for _, obj := range objects {
			if !isHole(obj) {
				dst = append(dst, obj)
			}
		}
	}
	return dst
}

// appendKeys appends every stored key, rendered, to dst: one allocation
// per split key (see recordKey.String).
func (r *storeRecords) appendKeys(dst []string) []string {
	for ci := range r.chunks {
		c := &r.chunks[ci]
		for i, obj := range c.objects {
			if !isHole(obj) {
				dst = append(dst, c.keys[i].String())
			}
		}
	}
	return dst
}

// forEachStored calls fn with every stored record and its object.
func (r *storeRecords) forEachStored(fn func(id int32, obj interface{})) {
	for ci := range r.chunks {
		for i, obj := range r.chunks[ci].objects {
			if !isHole(obj) {
				fn(int32(ci<<recordChunkBits+i), obj)
			}
		}
	}
}
