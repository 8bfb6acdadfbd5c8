package keyset

import (
	"math/bits"

	"github.com/kcache-go/cache/internal/records"
)

// ListMax is the largest set kept as a plain list. Past it the set
// becomes a hash set, and stays one (like a Go map, it keeps its size when
// emptied; an emptied set is dropped from its index altogether).
//
// NB: members are 4-byte ids, so a list of 64 is scanned within a few cache
// lines.
const ListMax = 64

// Set is the set of record ids (see records.Table) that share one indexed
// value of one index.
//
// Most indexed values (a node, an app label, an owner) are shared by a few
// objects. For those a list is several times smaller than a map and as fast
// to update, so a Set starts as a list and only becomes a hash set when it
// grows past ListMax ids. The hash set is an open-addressing table of
// int32 slots in the same array (0 empty, id+1 otherwise; linear probing,
// backward-shift deletion, doubled past 3/4 load): 4 bytes per slot, where
// a map[int32]struct{} takes 9. Neither form holds a pointer, so the garbage
// collector never scans a key set's members.
//
// Invariant: a list (len(ids) at most ListMax) holds the members
// without duplicates and n is 0; a hash set (len(ids) a power of two, at
// least hashedMin) holds n members each reachable from its home slot
// without crossing an empty slot, and n is at most 3/4 of len(ids). Set
// is not safe for concurrent use; its owner's lock guards it.
//
// A set of an index lives in its index's Blocks and is never copied:
// its first list is its own inline array (see reset). It takes 64 bytes, one
// cache line, so a lookup of a small set reads one line.
type Set struct {
	// ids is the member list, or the hash set's slots.
	ids []int32
	// n is the number of members of a hash set.
	n int32
	// num is the set's number in its index (see Blocks).
	num int32
	// inline is the first list's storage: a set of up to inlineCap
	// members needs no allocation, and its members sit next to its header.
	inline [inlineCap]int32
}

// inlineCap is the capacity of a set's inline first list: most indexed
// values have a few members, and 8 fill the set's line to 64 bytes.
const inlineCap = 8

// reset empties s, in place, as the set numbered num, its list back on its
// inline array (a list it grew is dropped).
func (s *Set) reset(num int32) {
	*s = Set{num: num}
	s.ids = s.inline[:0:inlineCap]
}

// Num returns the number of s in its Blocks.
func (s *Set) Num() int32 { return s.num }

// hashedMin is the number of slots a list becomes a hash set with.
// It exceeds ListMax, so the length of ids tells the two forms apart.
const hashedMin = 4 * ListMax

// hashed reports whether s is a hash set (else a list).
func (s *Set) hashed() bool { return len(s.ids) > ListMax }

// Len returns the number of ids in s.
func (s *Set) Len() int {
	if s.hashed() {
		return int(s.n)
	}
	return len(s.ids)
}

// Insert adds id to s and reports whether it was absent; adding an id
// already present does nothing.
func (s *Set) Insert(id int32) bool {
	if s.hashed() {
		return s.insertHashed(id)
	}
	for _, member := range s.ids {
		if member == id {
			return false
		}
	}
	if len(s.ids) < ListMax {
		if s.ids == nil {
			// NB: most sets hold a few ids; starting at
			// inlineCap spares the 1, 2, 4 growth steps (only
			// a set made outside a Blocks has no list yet).
			s.ids = make([]int32, 0, inlineCap)
		}
		s.ids = append(s.ids, id)
		return true
	}
	list := s.ids
	s.ids, s.n = make([]int32, hashedMin), 0
	for _, member := range list {
		s.insertHashed(member)
	}
	return s.insertHashed(id)
}

// home returns the slot where id's probe run starts in a hash set.
func (s *Set) home(id int32) int {
	shift := 32 - bits.TrailingZeros(uint(len(s.ids)))
	return int((uint32(id) * 0x9e3779b1) >> shift)
}

// insertHashed is insert into a hash set.
func (s *Set) insertHashed(id int32) bool {
	mask := len(s.ids) - 1
	i := s.home(id)
	for ; s.ids[i] != 0; i = (i + 1) & mask {
		if s.ids[i] == id+1 {
			return false
		}
	}
	if (int(s.n)+1)*4 > len(s.ids)*3 {
		s.growHashed()
		return s.insertHashed(id)
	}
	s.ids[i] = id + 1
	s.n++
	return true
}

// growHashed doubles a hash set's slots.
func (s *Set) growHashed() {
	old := s.ids
	s.ids, s.n = make([]int32, 2*len(old)), 0
	for _, slot := range old {
		if slot != 0 {
			s.insertHashed(slot - 1)
		}
	}
}

// slotOf returns the slot of id in a hash set, or -1.
func (s *Set) slotOf(id int32) int {
	mask := len(s.ids) - 1
	for i := s.home(id); s.ids[i] != 0; i = (i + 1) & mask {
		if s.ids[i] == id+1 {
			return i
		}
	}
	return -1
}

// Remove deletes id from s and reports whether it was present; removing an
// absent id does nothing.
func (s *Set) Remove(id int32) bool {
	if s.hashed() {
		i := s.slotOf(id)
		if i < 0 {
			return false
		}
		s.shiftBack(i)
		s.n--
		return true
	}
	last := len(s.ids) - 1
	for i, member := range s.ids {
		if member == id {
			s.ids[i] = s.ids[last]
			s.ids = s.ids[:last]
			return true
		}
	}
	return false
}

// shiftBack empties slot hole of a hash set and moves back each later member
// of its probe run that may sit there (as keytable.Table does).
func (s *Set) shiftBack(hole int) {
	mask := len(s.ids) - 1
	for j := (hole + 1) & mask; s.ids[j] != 0; j = (j + 1) & mask {
		if (j-s.home(s.ids[j]-1))&mask >= (j-hole)&mask {
			s.ids[hole] = s.ids[j]
			hole = j
		}
	}
	s.ids[hole] = 0
}

// Has reports whether id is in s.
func (s *Set) Has(id int32) bool {
	if s.hashed() {
		return s.slotOf(id) >= 0
	}
	for _, member := range s.ids {
		if member == id {
			return true
		}
	}
	return false
}

// ForEach calls fn with every id of s, in no particular order.
func (s *Set) ForEach(fn func(id int32)) {
	if !s.hashed() {
		for _, id := range s.ids {
			fn(id)
		}
		return
	}
	for _, slot := range s.ids {
		if slot != 0 {
			fn(slot - 1)
		}
	}
}

// AppendKeys appends the key of every id of s, read from r (the owning
// store's records) and rendered (see records.Key.String), to dst, in no
// particular order.
func (s *Set) AppendKeys(dst []string, r *records.Table) []string {
	if !s.hashed() {
		for _, id := range s.ids {
			dst = append(dst, r.Key(id).String())
		}
		return dst
	}
	for _, slot := range s.ids {
		if slot != 0 {
			dst = append(dst, r.Key(slot-1).String())
		}
	}
	return dst
}

// AppendObjects appends the object of every id of s, read from r, to dst;
// nil for a detached record (see records.Table.ObjectOf).
func (s *Set) AppendObjects(dst []interface{}, r *records.Table) []interface{} {
	if !s.hashed() {
		for _, id := range s.ids {
			dst = append(dst, r.ObjectOf(id))
		}
		return dst
	}
	for _, slot := range s.ids {
		if slot != 0 {
			dst = append(dst, r.ObjectOf(slot-1))
		}
	}
	return dst
}

// FirstSlot returns the slot a lookup of id in s reads first: the home slot
// of a hash set, the first member of a list (0 when empty).
func (s *Set) FirstSlot(id int32) int {
	if s.hashed() {
		return int(s.ids[s.home(id)])
	}
	if len(s.ids) == 0 {
		return 0
	}
	return int(s.ids[0])
}
