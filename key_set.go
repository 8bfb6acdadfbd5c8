package cache

// keySetListMax is the largest set kept as a slice. Past it the set becomes a
// map; it turns back into a slice when it shrinks to half of this.
const keySetListMax = 32

// keySet is the set of storage keys that share one indexed value of one
// index.
//
// Most indexed values (a node, an app label, an owner) are shared by a few
// objects. For those a slice is several times smaller than a map and as fast
// to update, so a keySet starts as a slice and only becomes a map when it
// grows past keySetListMax keys.
//
// Invariant: at most one of list and set is non-empty; list holds no
// duplicates. keySet is not safe for concurrent use; its owner's lock
// guards it.
type keySet struct {
	// list holds the keys while the set is small.
	list []string
	// set holds the keys once the set has grown past keySetListMax; nil before.
	set map[string]struct{}
}

// len returns the number of keys in s.
func (s *keySet) len() int {
	if s.set != nil {
		return len(s.set)
	}
	return len(s.list)
}

// insert adds key to s; adding a key already present does nothing.
func (s *keySet) insert(key string) {
	if s.set != nil {
		s.set[key] = struct{}{}
		return
	}
	for _, k := range s.list {
		if k == key {
			return
		}
	}
	if len(s.list) < keySetListMax {
		s.list = append(s.list, key)
		return
	}
	s.set = make(map[string]struct{}, 2*keySetListMax)
	for _, k := range s.list {
		s.set[k] = struct{}{}
	}
	s.set[key] = struct{}{}
	s.list = nil
}

// remove deletes key from s; removing an absent key does nothing.
func (s *keySet) remove(key string) {
	if s.set != nil {
		delete(s.set, key)
		if len(s.set) <= keySetListMax/2 {
			s.shrinkToList()
		}
		return
	}
	last := len(s.list) - 1
	for i, k := range s.list {
		if k == key {
			s.list[i] = s.list[last]
			s.list[last] = ""
			s.list = s.list[:last]
			return
		}
	}
}

// shrinkToList turns a map-backed set back into a slice.
func (s *keySet) shrinkToList() {
	list := make([]string, 0, keySetListMax)
	for k := range s.set {
		list = append(list, k)
	}
	s.list, s.set = list, nil
}

// has reports whether key is in s.
func (s *keySet) has(key string) bool {
	if s.set != nil {
		_, ok := s.set[key]
		return ok
	}
	for _, k := range s.list {
		if k == key {
			return true
		}
	}
	return false
}

// appendTo appends every key of s to dst, in no particular order.
func (s *keySet) appendTo(dst []string) []string {
	if s.set == nil {
		return append(dst, s.list...)
	}
	for k := range s.set {
		dst = append(dst, k)
	}
	return dst
}

// appendObjects appends, for every key of s, the object items holds under it.
func (s *keySet) appendObjects(dst []interface{}, items map[string]interface{}) []interface{} {
	if s.set == nil {
		for _, k := range s.list {
			dst = append(dst, items[k])
		}
		return dst
	}
	for k := range s.set {
		dst = append(dst, items[k])
	}
	return dst
}
