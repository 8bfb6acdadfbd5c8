package keytable

import (
	"hash/maphash"

	"github.com/kcache-go/cache/internal/records"
)

// minSlots is the size of a key table's first slot array.
const minSlots = 8

// A key table grows once more than loadNum/loadDen of its
// slots would be used.
//
// NB: 13/16 rather than the usual 3/4, because a probe past a member of
// another key costs a tag compare within the same cache line, not a key
// read: at the limit a hit visits 3.2 slots and a miss 14.7
// (BenchmarkTableFind), and a table between doublings is 41–81% full,
// rather than 38–75%, at 8 bytes a slot.
const (
	loadNum = 13
	loadDen = 16
)

// Table maps storage keys (records.Keys, compared and hashed by their
// rendering) to record ids. It is an open-addressing hash table with linear
// probing. A slot is a uint64: 0 when empty; otherwise the member's id+1 in
// its low 32 bits and its tag, the low 32 bits of its key's hash, in the
// high 32. The key of an id is read from the records the caller passes (the
// store's records.Table), so the table keeps 8 bytes per slot and no pointer
// the garbage collector has to scan.
//
// The tag is what keeps the table off the records: a member's home slot is
// its tag masked to the table size, so growing and deleting never read a
// key or hash one again, and a lookup reads the key of a member only when
// that member's tag is the key's own (a member of another key passes that
// test with a chance of at most len(slots)/2^32).
//
// Deletion shifts the following members of the probe run back (no
// tombstones), so a lookup stops at the first empty slot, however many
// deletions came before. The table doubles once more than 13/16 of its
// slots are used; it never shrinks (a Go map does not either), and the
// store makes a fresh one on Replace.
//
// Invariant: len(slots) is 0 or a power of two, at most 2^32; count is the
// number of non-zero slots, at most 13/16 of len(slots); every member's tag is
// the low 32 bits of HashOf(r.Key(id)); every member sits in the probe run
// that starts at its home slot, with no empty slot between its home and
// itself; no two members have the same key. Table is not safe for
// concurrent use: the owning store's lock guards it.
type Table struct {
	// slots holds each member's tag and id+1, 0 for an empty slot.
	slots []uint64
	// count is the number of members.
	count int
	// seed keys the hash; chosen when the table is made.
	seed maphash.Seed
}

// New returns an empty table with room for n keys before it grows.
func New(n int) Table {
	t := Table{seed: maphash.MakeSeed()}
	if n > 0 {
		t.slots = make([]uint64, slotsFor(n))
	}
	return t
}

// slotsFor returns the smallest power of two that holds n keys
// within the load limit.
func slotsFor(n int) int {
	size := minSlots
	for size*loadNum < n*loadDen {
		size *= 2
	}
	return size
}

// packSlot packs a member: its tag tag and its id.
func packSlot(id int32, tag uint32) uint64 { return uint64(tag)<<32 | uint64(uint32(id+1)) }

// slotID returns the id of the member in slot s, a non-empty slot.
func slotID(s uint64) int32 { return int32(uint32(s)) - 1 }

// slotTag returns the tag of the member in slot s, a non-empty slot.
func slotTag(s uint64) uint32 { return uint32(s >> 32) }

// Len returns the number of keys in t.
func (t *Table) Len() int { return t.count }

// Slots returns the size of t's slot array: it holds up to 13/16 as many
// keys before it doubles.
func (t *Table) Slots() int { return len(t.slots) }

// HashOf returns the tag of key: the low 32 bits of its hash under t's
// seed, which depends only on key's rendering (see records.Key.Hash).
func (t *Table) HashOf(key records.Key) uint32 { return uint32(key.Hash(t.seed)) }

// home returns the slot where the probe run of a member tagged tag starts.
func (t *Table) home(tag uint32) int { return int(tag) & (len(t.slots) - 1) }

// Find returns the id stored under key (compared by rendering, see
// records.Key.Equal), or -1; r are the records the ids name. It does not
// allocate.
func (t *Table) Find(key records.Key, r *records.Table) int32 {
	_, id, _ := t.Lookup(key, t.HashOf(key), r)
	return id
}

// Lookup returns the slot, the id and the object slot (see
// records.Table.Object) of key, whose tag is tag, or -1, -1 and nil. The
// slot stays key's until t is next changed.
func (t *Table) Lookup(key records.Key, tag uint32, r *records.Table) (int, int32, interface{}) {
	if t.count == 0 {
		return -1, -1, nil
	}
	mask := len(t.slots) - 1
	for i := t.home(tag); ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return -1, -1, nil
		}
		if slotTag(s) != tag {
			continue
		}
		// NB: the object is read with the key, before they are
		// compared, so that its cache miss overlaps the key's: every
		// write that finds its key goes on to the old object.
		if k, obj := r.Entry(slotID(s)); k.Equal(key) {
			return i, slotID(s), obj
		}
	}
}

// Insert adds id, whose key is not in t yet and has the tag tag (see
// HashOf), growing t first when it is full.
func (t *Table) Insert(id int32, tag uint32) {
	if (t.count+1)*loadDen > len(t.slots)*loadNum {
		t.grow()
	}
	t.place(packSlot(id, tag))
	t.count++
}

// place puts the member s in the first empty slot of its probe run; the
// caller ensures there is one and keeps count.
func (t *Table) place(s uint64) {
	mask := len(t.slots) - 1
	i := t.home(slotTag(s))
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = s
}

// grow moves every member to a slot array twice as large (or the first
// one). It reads no key: each member's home comes from its tag.
func (t *Table) grow() {
	old := t.slots
	t.slots = make([]uint64, max(2*len(old), minSlots))
	for _, s := range old {
		if s != 0 {
			t.place(s)
		}
	}
}

// RemoveAt deletes the member in slot, a slot lookup returned since t last
// changed.
func (t *Table) RemoveAt(slot int) {
	t.shiftBack(slot)
	t.count--
}

// shiftBack empties slot hole and moves back each later member of its probe
// run whose home does not lie cyclically in (hole, its slot], so that every
// member stays reachable from its home without crossing an empty slot.
func (t *Table) shiftBack(hole int) {
	mask := len(t.slots) - 1
	for j := (hole + 1) & mask; ; j = (j + 1) & mask {
		s := t.slots[j]
		if s == 0 {
			break
		}
		// NB: distances are taken modulo the table size, so the test
		// holds across the wrap-around from the last slot to the first.
		if (j-t.home(slotTag(s)))&mask >= (j-hole)&mask {
			t.slots[hole] = s
			hole = j
		}
	}
	t.slots[hole] = 0
}
