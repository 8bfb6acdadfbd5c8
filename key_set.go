package cache

// storeEntry is one stored key and where its object lives. The
// threadSafeMap owns it; indices refer to it by pointer, so an index read
// reaches the object without looking its key up again, and an update that
// keeps an object's indexed values touches no index.
//
// Invariant: refs is the number of key sets (over all indices) that hold the
// entry; slot is -1 exactly when the key is not stored (an entry that only
// given Indices name, or that an index still holds after its key was
// deleted, because its object was changed in place and so no longer gave
// the values it was indexed under).
type storeEntry struct {
	// key is the storage key; it never changes.
	key string
	// slot is the position of the object in the map's dense object array,
	// or -1 when the key has no object.
	slot int32
	// refs counts the key sets holding the entry.
	refs int32
}

// keySetListMax is the largest set kept as a slice. Past it the set becomes a
// map, and stays one (like any Go map, it keeps its size when emptied; an
// emptied set is dropped from its index altogether).
const keySetListMax = 32

// keySetListMin is the capacity a set's list starts with.
const keySetListMin = 4

// keySet is the set of stored entries that share one indexed value of one
// index.
//
// Most indexed values (a node, an app label, an owner) are shared by a few
// objects. For those a slice is several times smaller than a map and as fast
// to update, so a keySet starts as a slice and only becomes a map when it
// grows past keySetListMax entries. Members are compared by pointer.
//
// Invariant: at most one of list and set is non-empty; list holds no
// duplicates. keySet is not safe for concurrent use; its owner's lock
// guards it.
type keySet struct {
	// list holds the entries while the set is small.
	list []*storeEntry
	// set holds the entries once the set has grown past keySetListMax; nil
	// before.
	set map[*storeEntry]struct{}
}

// len returns the number of entries in s.
func (s *keySet) len() int {
	if s.set != nil {
		return len(s.set)
	}
	return len(s.list)
}

// insert adds e to s and reports whether it was absent; adding an entry
// already present does nothing.
func (s *keySet) insert(e *storeEntry) bool {
	if s.set != nil {
		if _, dup := s.set[e]; dup {
			return false
		}
		s.set[e] = struct{}{}
		return true
	}
	for _, member := range s.list {
		if member == e {
			return false
		}
	}
	if len(s.list) < keySetListMax {
		if s.list == nil {
			// NB: most sets hold a few entries; starting at
			// keySetListMin spares the 1, 2, 4 growth steps.
			s.list = make([]*storeEntry, 0, keySetListMin)
		}
		s.list = append(s.list, e)
		return true
	}
	s.set = make(map[*storeEntry]struct{}, 2*keySetListMax)
	for _, member := range s.list {
		s.set[member] = struct{}{}
	}
	s.set[e] = struct{}{}
	s.list = nil
	return true
}

// remove deletes e from s and reports whether it was present; removing an
// absent entry does nothing.
func (s *keySet) remove(e *storeEntry) bool {
	if s.set != nil {
		if _, ok := s.set[e]; !ok {
			return false
		}
		delete(s.set, e)
		return true
	}
	last := len(s.list) - 1
	for i, member := range s.list {
		if member == e {
			s.list[i] = s.list[last]
			s.list[last] = nil
			s.list = s.list[:last]
			return true
		}
	}
	return false
}

// has reports whether e is in s.
func (s *keySet) has(e *storeEntry) bool {
	if s.set != nil {
		_, ok := s.set[e]
		return ok
	}
	for _, member := range s.list {
		if member == e {
			return true
		}
	}
	return false
}

// appendKeys appends the key of every entry of s to dst, in no particular
// order.
func (s *keySet) appendKeys(dst []string) []string {
	if s.set == nil {
		for _, e := range s.list {
			dst = append(dst, e.key)
		}
		return dst
	}
	for e := range s.set {
		dst = append(dst, e.key)
	}
	return dst
}

// appendObjects appends the object of every entry of s, read from objects
// (the owning map's object array), to dst.
func (s *keySet) appendObjects(dst []interface{}, objects []interface{}) []interface{} {
	if s.set == nil {
		for _, e := range s.list {
			dst = append(dst, e.objectIn(objects))
		}
		return dst
	}
	for e := range s.set {
		dst = append(dst, e.objectIn(objects))
	}
	return dst
}

// objectIn returns e's object from objects; nil for an entry without one
// (as client-go's index reads give nil for a key they hold that is not
// stored).
func (e *storeEntry) objectIn(objects []interface{}) interface{} {
	if e.slot < 0 {
		return nil
	}
	return objects[e.slot]
}

// forEach calls fn with every entry of s.
func (s *keySet) forEach(fn func(*storeEntry)) {
	if s.set == nil {
		for _, e := range s.list {
			fn(e)
		}
		return
	}
	for e := range s.set {
		fn(e)
	}
}
