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

// storeRecords holds a store's records in parallel arrays indexed by record
// id: the key, the object and the number of key-set memberships of each.
// Ids are stable: a record keeps its id from its creation until it is
// freed, so indices hold ids and never need rewriting. A freed id goes on a
// free list and is reused, last freed first, by the next new record; the
// arrays never shrink (iteration cost follows the largest size, as with a
// Go map), and Replace starts from fresh records.
//
// A record is in one of three states, told by objects[id]:
//   - stored: any other value (nil included); keys[id] is its key, refs[id]
//     the number of key sets holding id;
//   - detached (detachedRecord): keys[id] is the key, refs[id] > 0;
//   - free (freeRecord): keys[id] is "", no key set holds id, and refs[id]
//     is the next free id plus one (0 ends the list).
//
// Invariant: the three arrays have the same length; live is the number of
// stored records; freeHead is the first free id plus one, 0 when none.
// storeRecords is not safe for concurrent use: the owning store's lock
// guards it.
type storeRecords struct {
	// keys holds each record's storage key; each key is its own
	// allocation, so a key handed to a caller pins only its own bytes.
	keys []string
	// objects holds each record's object, or a record mark.
	objects []interface{}
	// refs counts each record's key-set memberships, or links the free
	// list.
	refs []int32
	// freeHead is the most recently freed id plus one; 0 when none is free.
	freeHead int32
	// live is the number of stored records.
	live int
}

// newStoreRecords returns empty records with room for n.
func newStoreRecords(n int) storeRecords {
	return storeRecords{
		keys:    make([]string, 0, n),
		objects: make([]interface{}, 0, n),
		refs:    make([]int32, 0, n),
	}
}

// add creates a record of key holding obj (an object, or detachedRecord),
// reusing the most recently freed id when there is one, and returns its id.
func (r *storeRecords) add(key string, obj interface{}) int32 {
	if !isHole(obj) {
		r.live++
	}
	if r.freeHead != 0 {
		id := r.freeHead - 1
		r.freeHead = r.refs[id]
		r.keys[id], r.objects[id], r.refs[id] = key, obj, 0
		return id
	}
	r.keys = append(r.keys, key)
	r.objects = append(r.objects, obj)
	r.refs = append(r.refs, 0)
	return int32(len(r.keys) - 1)
}

// free puts id, a record no key set holds, on the free list and drops its
// key and object so their memory can go.
func (r *storeRecords) free(id int32) {
	if !isHole(r.objects[id]) {
		r.live--
	}
	r.keys[id], r.objects[id] = "", freeRecord
	r.refs[id] = r.freeHead
	r.freeHead = id + 1
}

// detach turns id, a stored record, into a detached one.
func (r *storeRecords) detach(id int32) {
	r.objects[id] = detachedRecord
	r.live--
}

// attach gives id, a detached record, the object obj.
func (r *storeRecords) attach(id int32, obj interface{}) {
	r.objects[id] = obj
	r.live++
}

// objectOf returns the object of id, nil for a detached record (as
// client-go's index reads give nil for a key they hold that is not stored).
func (r *storeRecords) objectOf(id int32) interface{} {
	if obj := r.objects[id]; !isHole(obj) {
		return obj
	}
	return nil
}

// appendObjects appends every stored object to dst.
func (r *storeRecords) appendObjects(dst []interface{}) []interface{} {
	if r.live == len(r.objects) {
		return append(dst, r.objects...) // NB: no holes: one copy.
	}
	for _, obj := range r.objects {
		if !isHole(obj) {
			dst = append(dst, obj)
		}
	}
	return dst
}

// appendKeys appends every stored key to dst.
func (r *storeRecords) appendKeys(dst []string) []string {
	if r.live == len(r.keys) {
		return append(dst, r.keys...) // NB: no holes: one copy.
	}
	for id, obj := range r.objects {
		if !isHole(obj) {
			dst = append(dst, r.keys[id])
		}
	}
	return dst
}
