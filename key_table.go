package cache

import "hash/maphash"

// keyTableMinSlots is the size of a key table's first slot array.
const keyTableMinSlots = 8

// A key table grows once more than keyTableLoadNum/keyTableLoadDen of its
// slots would be used.
const (
	keyTableLoadNum = 3
	keyTableLoadDen = 4
)

// keyTable maps storage keys (recordKeys, compared and hashed by their
// rendering) to record ids. It is an open-addressing hash
// table of int32 slots with linear probing: a slot holds 0 when empty and
// id+1 otherwise, and the key of id is read from the records the caller
// passes (the store's storeRecords), so the table itself keeps 4 bytes per slot
// and no pointer the garbage collector has to scan.
//
// Deletion shifts the following members of the probe run back (no
// tombstones), so a lookup stops at the first empty slot, however many
// deletions came before. The table doubles once more than 3/4 of its slots
// are used; it never shrinks (a Go map does not either), and the store makes
// a fresh one on Replace.
//
// Invariant: len(slots) is 0 or a power of two; count is the number of
// non-zero slots, at most 3/4 of len(slots); every member id sits in the
// probe run that starts at the home slot of r.key(id), with no empty slot
// between its home and itself; no two members have the same key. keyTable
// is not safe for concurrent use: the owning store's lock guards it.
type keyTable struct {
	// slots holds id+1 of each member, 0 for an empty slot.
	slots []int32
	// count is the number of members.
	count int
	// seed keys the hash; chosen when the table is made.
	seed maphash.Seed
}

// newKeyTable returns an empty table with room for n keys before it grows.
func newKeyTable(n int) keyTable {
	t := keyTable{seed: maphash.MakeSeed()}
	if n > 0 {
		t.slots = make([]int32, keyTableSlotsFor(n))
	}
	return t
}

// keyTableSlotsFor returns the smallest power of two that holds n keys
// within the 3/4 load limit.
func keyTableSlotsFor(n int) int {
	size := keyTableMinSlots
	for size*keyTableLoadNum < n*keyTableLoadDen {
		size *= 2
	}
	return size
}

// len returns the number of keys in t.
func (t *keyTable) len() int { return t.count }

// home returns the slot where the probe run of key starts. A key hashes
// by its rendering (see recordKey.hash), so every split of a key has the
// same home.
func (t *keyTable) home(key recordKey) int {
	return int(key.hash(t.seed) & uint64(len(t.slots)-1))
}

// find returns the id stored under key (compared by rendering, see
// recordKey.equal), or -1; r are the records the ids name. It does not
// allocate.
func (t *keyTable) find(key recordKey, r *storeRecords) int32 {
	if t.count == 0 {
		return -1
	}
	mask := len(t.slots) - 1
	for i := t.home(key); ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return -1
		}
		if r.key(s - 1).equal(key) {
			return s - 1
		}
	}
}

// insert adds id, whose key r.key(id) is not in t yet, growing t first when
// it is full.
func (t *keyTable) insert(id int32, r *storeRecords) {
	if (t.count+1)*keyTableLoadDen > len(t.slots)*keyTableLoadNum {
		t.grow(r)
	}
	t.place(id, r)
	t.count++
}

// place puts id in the first empty slot of its probe run; the caller
// ensures there is one and keeps count.
func (t *keyTable) place(id int32, r *storeRecords) {
	mask := len(t.slots) - 1
	i := t.home(r.key(id))
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = id + 1
}

// grow moves every member to a slot array twice as large (or the first
// one).
func (t *keyTable) grow(r *storeRecords) {
	old := t.slots
	t.slots = make([]int32, max(2*len(old), keyTableMinSlots))
	for _, s := range old {
		if s != 0 {
			t.place(s-1, r)
		}
	}
}

// remove deletes key, if present, and returns its id or -1. The record must
// still have its key while remove runs.
func (t *keyTable) remove(key recordKey, r *storeRecords) int32 {
	if t.count == 0 {
		return -1
	}
	mask := len(t.slots) - 1
	i := t.home(key)
	for {
		s := t.slots[i]
		if s == 0 {
			return -1
		}
		if r.key(s - 1).equal(key) {
			break
		}
		i = (i + 1) & mask
	}
	id := t.slots[i] - 1
	t.shiftBack(i, r)
	t.count--
	return id
}

// shiftBack empties slot hole and moves back each later member of its probe
// run whose home does not lie cyclically in (hole, its slot], so that every
// member stays reachable from its home without crossing an empty slot.
func (t *keyTable) shiftBack(hole int, r *storeRecords) {
	mask := len(t.slots) - 1
	for j := (hole + 1) & mask; ; j = (j + 1) & mask {
		s := t.slots[j]
		if s == 0 {
			break
		}
		h := t.home(r.key(s - 1))
		// NB: distances are taken modulo the table size, so the test
		// holds across the wrap-around from the last slot to the first.
		if (j-h)&mask >= (j-hole)&mask {
			t.slots[hole] = s
			hole = j
		}
	}
	t.slots[hole] = 0
}
