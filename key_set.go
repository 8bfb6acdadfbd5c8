package cache

// keySetListMax is the largest set kept as a slice. Past it the set becomes a
// map, and stays one (like any Go map, it keeps its size when emptied; an
// emptied set is dropped from its index altogether).
//
// NB: members are 4-byte ids, so a list of 64 is scanned within a few cache
// lines and costs 4 bytes per member, about half of what a map costs.
const keySetListMax = 64

// keySetListMin is the capacity a set's list starts with.
const keySetListMin = 4

// keySet is the set of record ids (see storeRecords) that share one indexed
// value of one index.
//
// Most indexed values (a node, an app label, an owner) are shared by a few
// objects. For those a slice is several times smaller than a map and as fast
// to update, so a keySet starts as a slice and only becomes a map when it
// grows past keySetListMax ids. Neither form holds a pointer, so the garbage
// collector never scans a key set's members.
//
// Invariant: at most one of list and set is non-empty; list holds no
// duplicates. keySet is not safe for concurrent use; its owner's lock
// guards it.
type keySet struct {
	// list holds the ids while the set is small.
	list []int32
	// set holds the ids once the set has grown past keySetListMax; nil
	// before.
	set map[int32]struct{}
}

// len returns the number of ids in s.
func (s *keySet) len() int {
	if s.set != nil {
		return len(s.set)
	}
	return len(s.list)
}

// insert adds id to s and reports whether it was absent; adding an id
// already present does nothing.
func (s *keySet) insert(id int32) bool {
	if s.set != nil {
		if _, dup := s.set[id]; dup {
			return false
		}
		s.set[id] = struct{}{}
		return true
	}
	for _, member := range s.list {
		if member == id {
			return false
		}
	}
	if len(s.list) < keySetListMax {
		if s.list == nil {
			// NB: most sets hold a few ids; starting at
			// keySetListMin spares the 1, 2, 4 growth steps.
			s.list = make([]int32, 0, keySetListMin)
		}
		s.list = append(s.list, id)
		return true
	}
	s.set = make(map[int32]struct{}, 2*keySetListMax)
	for _, member := range s.list {
		s.set[member] = struct{}{}
	}
	s.set[id] = struct{}{}
	s.list = nil
	return true
}

// remove deletes id from s and reports whether it was present; removing an
// absent id does nothing.
func (s *keySet) remove(id int32) bool {
	if s.set != nil {
		if _, ok := s.set[id]; !ok {
			return false
		}
		delete(s.set, id)
		return true
	}
	last := len(s.list) - 1
	for i, member := range s.list {
		if member == id {
			s.list[i] = s.list[last]
			s.list = s.list[:last]
			return true
		}
	}
	return false
}

// has reports whether id is in s.
func (s *keySet) has(id int32) bool {
	if s.set != nil {
		_, ok := s.set[id]
		return ok
	}
	for _, member := range s.list {
		if member == id {
			return true
		}
	}
	return false
}

// appendKeys appends the key of every id of s, read from keys (the owning
// store's record keys), to dst, in no particular order.
func (s *keySet) appendKeys(dst []string, keys []string) []string {
	if s.set == nil {
		for _, id := range s.list {
			dst = append(dst, keys[id])
		}
		return dst
	}
	for id := range s.set {
		dst = append(dst, keys[id])
	}
	return dst
}

// appendObjects appends the object of every id of s, read from r, to dst;
// nil for a detached record (see storeRecords.objectOf).
func (s *keySet) appendObjects(dst []interface{}, r *storeRecords) []interface{} {
	if s.set == nil {
		for _, id := range s.list {
			dst = append(dst, r.objectOf(id))
		}
		return dst
	}
	for id := range s.set {
		dst = append(dst, r.objectOf(id))
	}
	return dst
}

// forEach calls fn with every id of s.
func (s *keySet) forEach(fn func(id int32)) {
	if s.set == nil {
		for _, id := range s.list {
			fn(id)
		}
		return
	}
	for id := range s.set {
		fn(id)
	}
}
