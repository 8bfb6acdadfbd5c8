package records

// hole is the type of the two marks a record's object slot holds when
// the record has no object: stored objects are never of this type, so the
// marks cannot be mistaken for an object (nil is a legal object).
type hole struct{ state string }

var (
	// freeMark marks a record on the free list.
	freeMark interface{} = &hole{state: "free"}
	// Detached marks a record whose key is not stored but that some
	// index still holds (the store keeps a map of their keys).
	Detached interface{} = &hole{state: "detached"}
)

// IsHole reports whether obj is one of the record marks.
func IsHole(obj interface{}) bool {
	_, hole := obj.(*hole)
	return hole
}

// ChunkBits sets the size of a record chunk: 1 << ChunkBits
// records.
const ChunkBits = 10

// ChunkSize is the number of records of a full chunk.
const ChunkSize = 1 << ChunkBits

// chunk holds the records of ids chunk<<ChunkBits and on, in
// parallel slices of equal length, at most ChunkSize.
type chunk struct {
	keys    []Key
	objects []interface{}
	refs    []int32
}

// Table holds a store's records by record id: the key (a Key:
// two string headers, for a key the store computed from an object's
// metadata the object's own namespace and name), the object and the number of key-set memberships of each, in parallel slices cut into
// chunks of ChunkSize records. Ids are stable: a record keeps its id
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
//   - detached (Detached): its key is set and refs > 0;
//   - free (freeMark): its key is empty (both headers ""), no key set
//     holds it, and refs is the next free id plus one (0 ends the list).
//
// Invariant: n records exist, ids 0 to n-1; every chunk but the last is
// full; live is the number of stored records; freeHead is the first free id
// plus one, 0 when none. Table is not safe for concurrent use: the
// owning store's lock guards it.
type Table struct {
	// chunks holds the records; chunks[id>>ChunkBits] holds id.
	// A key handed to a caller is rendered (see Key.String): a new
	// string for a split key, so that it pins only its own bytes.
	chunks []chunk
	// n is the number of records, free ones included.
	n int32
	// freeHead is the most recently freed id plus one; 0 when none is free.
	freeHead int32
	// live is the number of stored records.
	live int
}

// NewTable returns empty records with room for n before a chunk is
// added.
func NewTable(n int) Table {
	var r Table
	for ; n > 0; n -= ChunkSize {
		r.chunks = append(r.chunks, newChunk(min(n, ChunkSize)))
	}
	return r
}

// newChunk returns an empty chunk with room for size records.
func newChunk(size int) chunk {
	return chunk{
		keys:    make([]Key, 0, size),
		objects: make([]interface{}, 0, size),
		refs:    make([]int32, 0, size),
	}
}

// chunkOf returns the chunk of id and id's position in it.
func (r *Table) chunkOf(id int32) (*chunk, int32) {
	return &r.chunks[id>>ChunkBits], id & (ChunkSize - 1)
}

// Key returns the key of id.
func (r *Table) Key(id int32) Key {
	return r.chunks[id>>ChunkBits].keys[id&(ChunkSize-1)]
}

// Entry returns the key and the object slot of id.
func (r *Table) Entry(id int32) (Key, interface{}) {
	c, i := r.chunkOf(id)
	return c.keys[i], c.objects[i]
}

// SetKey makes k, a key that renders as id's key does, the key of id: the
// headers are re-pointed (to a newer object's metadata strings, or to a
// plain key), the key stays the same.
func (r *Table) SetKey(id int32, k Key) {
	r.chunks[id>>ChunkBits].keys[id&(ChunkSize-1)] = k
}

// Object returns the object slot of id: its object or a record mark.
func (r *Table) Object(id int32) interface{} {
	return r.chunks[id>>ChunkBits].objects[id&(ChunkSize-1)]
}

// SetObject makes obj the object of id, a stored record.
func (r *Table) SetObject(id int32, obj interface{}) {
	r.chunks[id>>ChunkBits].objects[id&(ChunkSize-1)] = obj
}

// Refs returns the membership count of id, for the indices to keep.
func (r *Table) Refs(id int32) *int32 {
	return &r.chunks[id>>ChunkBits].refs[id&(ChunkSize-1)]
}

// Add creates a record of key holding obj (an object, or Detached),
// reusing the most recently freed id when there is one, and returns its id.
func (r *Table) Add(key Key, obj interface{}) int32 {
	if !IsHole(obj) {
		r.live++
	}
	if r.freeHead != 0 {
		id := r.freeHead - 1
		c, i := r.chunkOf(id)
		r.freeHead = c.refs[i]
		c.keys[i], c.objects[i], c.refs[i] = key, obj, 0
		return id
	}
	if r.n&(ChunkSize-1) == 0 && int(r.n>>ChunkBits) == len(r.chunks) {
		// NB: the first chunk starts small and grows by append.
		r.chunks = append(r.chunks, newChunk(min(ChunkSize, max(8, int(r.n)))))
	}
	c := &r.chunks[r.n>>ChunkBits]
	c.keys = append(c.keys, key)
	c.objects = append(c.objects, obj)
	c.refs = append(c.refs, 0)
	r.n++
	return r.n - 1
}

// Free puts id, a record no key set holds, on the free list and drops its
// Key and object so their memory can go.
func (r *Table) Free(id int32) {
	c, i := r.chunkOf(id)
	if !IsHole(c.objects[i]) {
		r.live--
	}
	c.keys[i], c.objects[i] = Key{}, freeMark
	c.refs[i] = r.freeHead
	r.freeHead = id + 1
}

// Detach turns id, a stored record, into a detached one.
func (r *Table) Detach(id int32) {
	r.SetObject(id, Detached)
	r.live--
}

// Attach gives id, a detached record, the object obj.
func (r *Table) Attach(id int32, obj interface{}) {
	r.SetObject(id, obj)
	r.live++
}

// ObjectOf returns the object of id, nil for a detached record (as
// client-go's index reads give nil for a key they hold that is not stored).
func (r *Table) ObjectOf(id int32) interface{} {
	if obj := r.Object(id); !IsHole(obj) {
		return obj
	}
	return nil
}

// AppendObjects appends every stored object to dst.
func (r *Table) AppendObjects(dst []interface{}) []interface{} {
	for ci := range r.chunks {
		objects := r.chunks[ci].objects
		if r.live == int(r.n) {
			dst = append(dst, objects...) // NB: no holes: one copy.
			continue
		}
		for _, obj := range objects {
			if !IsHole(obj) {
				dst = append(dst, obj)
			}
		}
	}
	return dst
}

// AppendKeys appends every stored key, rendered, to dst: one allocation
// per split key (see Key.String).
func (r *Table) AppendKeys(dst []string) []string {
	for ci := range r.chunks {
		c := &r.chunks[ci]
		for i, obj := range c.objects {
			if !IsHole(obj) {
				dst = append(dst, c.keys[i].String())
			}
		}
	}
	return dst
}

// ForEachStored calls fn with every stored record and its object.
func (r *Table) ForEachStored(fn func(id int32, obj interface{})) {
	for ci := range r.chunks {
		for i, obj := range r.chunks[ci].objects {
			if !IsHole(obj) {
				fn(int32(ci<<ChunkBits+i), obj)
			}
		}
	}
}

// Live returns the number of stored records.
func (r *Table) Live() int { return r.live }

// Len returns the number of records, free and detached ones included: ids
// run from 0 to Len()-1.
func (r *Table) Len() int { return int(r.n) }
