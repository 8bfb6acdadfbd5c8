package cache

import (
	"math"
	"unsafe"
	"weak"
)

// weakSlot is one slot of a weakTable: empty (obj is the zero pointer), or
// a canonical object held weakly with 32 bits of its content hash and its
// length (a string's bytes, a slice's elements; 0 for other values). A
// slot whose object was collected is dead: its obj gives nil until the
// table is rebuilt without it.
type weakSlot struct {
	obj  weak.Pointer[byte]
	hash uint32
	n    uint32
}

// weakTable holds the canonical objects of an interning or sharing table:
// an open-addressing hash table (linear probing over a power of two
// slots, at most 3/4 of them used) that holds each object weakly, so an
// object nothing else references is collected and its slot dies. Dead
// slots are dropped when the table is rebuilt: when an insertion finds it
// full (it is then rebuilt at twice its live entries, which also shrinks
// it), and by sweep, which a table's owner calls after garbage
// collections (weakSweeper). Nothing is attached to the objects (no
// cleanup, no finalizer): a live entry costs its slot (16 bytes, 4 more
// with byAddr), at a load of 3/8 to 3/4, and the runtime's weak handle of
// its object.
//
// Not safe for concurrent use: the owning table's mutex guards it.
type weakTable struct {
	// slots are the entries by hash; nil when the table holds nothing.
	slots []weakSlot
	// used counts the slots that are not empty (live or dead).
	used int
	// byAddr, for a table made with trackAddrs, holds the index+1 of every
	// used slot at the hash of its object's address (0: empty), so that a
	// value can be recognised as canonical from its address alone.
	// NB: an address holds nothing alive, and a collected object's address
	// may be reused by a new object; the slot's weak pointer tells them
	// apart (it gives nil once its object is unreachable), so a new object
	// at a reused address is never taken for a canonical one.
	byAddr []uint32
	// trackAddrs says whether byAddr is kept.
	trackAddrs bool
	// sweeps counts the sweeps, to start each one's sample elsewhere.
	sweeps uint32
}

// minWeakSlots is the size of a table's first slot array.
const minWeakSlots = 8

// weakHash folds a 64-bit content hash into the 32 bits a slot keeps.
func weakHash(h uint64) uint32 { return uint32(h ^ h>>32) }

// weakLen reports n as a slot length; ok is false for a length a slot
// cannot hold (over 4 GiB), a value the tables then leave alone.
func weakLen(n int) (uint32, bool) { return uint32(n), n >= 0 && n <= math.MaxUint32 }

// find returns the first live object of hash h and length n for which
// match reports true, or nil.
func (t *weakTable) find(h, n uint32, match func(obj unsafe.Pointer) bool) unsafe.Pointer {
	if len(t.slots) == 0 {
		return nil
	}
	mask := uint32(len(t.slots) - 1)
	for i := h & mask; t.slots[i].obj != (weak.Pointer[byte]{}); i = (i + 1) & mask {
		if s := &t.slots[i]; s.hash == h && s.n == n {
			if obj := unsafe.Pointer(s.obj.Value()); obj != nil && match(obj) {
				return obj
			}
		}
	}
	return nil
}

// holds reports whether obj, of length n, is a live object of the table;
// the table tracks addresses.
func (t *weakTable) holds(obj unsafe.Pointer, n uint32) bool {
	if len(t.byAddr) == 0 {
		return false
	}
	mask := uint32(len(t.byAddr) - 1)
	for i := addrHash(obj) & mask; t.byAddr[i] != 0; i = (i + 1) & mask {
		s := &t.slots[t.byAddr[i]-1]
		if s.n == n && unsafe.Pointer(s.obj.Value()) == obj {
			return true
		}
	}
	return false
}

// addrHash spreads an object's address over 32 bits.
func addrHash(obj unsafe.Pointer) uint32 {
	a := uint64(uintptr(obj)) * 0x9e3779b97f4a7c15
	return uint32(a >> 32)
}

// insert adds obj (held by wp), of hash h and length n, which the table
// does not hold; the table is rebuilt first when it is full.
func (t *weakTable) insert(h, n uint32, wp weak.Pointer[byte], obj unsafe.Pointer) {
	if (t.used+1)*4 > len(t.slots)*3 {
		t.rebuild(1)
	}
	t.place(weakSlot{obj: wp, hash: h, n: n}, obj)
}

// place puts s, whose object is obj, into the first empty slot of its
// hash, and indexes its address.
func (t *weakTable) place(s weakSlot, obj unsafe.Pointer) {
	mask := uint32(len(t.slots) - 1)
	i := s.hash & mask
	for t.slots[i].obj != (weak.Pointer[byte]{}) {
		i = (i + 1) & mask
	}
	t.slots[i] = s
	t.used++
	if t.trackAddrs {
		j := addrHash(obj) & mask
		for t.byAddr[j] != 0 {
			j = (j + 1) & mask
		}
		t.byAddr[j] = i + 1
	}
}

// live counts the slots whose object is alive.
func (t *weakTable) live() int {
	n := 0
	for i := range t.slots {
		if t.slots[i].obj.Value() != nil {
			n++
		}
	}
	return n
}

// rebuild moves the live slots into new arrays sized for them and extra
// more entries at half load (nil when that is none), dropping the dead
// ones.
func (t *weakTable) rebuild(extra int) {
	old := t.slots
	want := 2 * (t.live() + extra)
	t.slots, t.byAddr, t.used = nil, nil, 0
	if want == 0 {
		return
	}
	size := minWeakSlots
	for size < want {
		size *= 2
	}
	t.slots = make([]weakSlot, size)
	if t.trackAddrs {
		t.byAddr = make([]uint32, size)
	}
	for _, s := range old {
		if obj := s.obj.Value(); obj != nil {
			t.place(s, unsafe.Pointer(obj))
		}
	}
}

// sweepSample is how many slots sweep looks at before deciding to
// rebuild a table.
const sweepSample = 64

// sweep rebuilds the table without its dead slots when a sample of its
// slots finds at least half of the used ones dead, and reports whether
// the table still holds an entry. It reads at most sweepSample slots
// unless it rebuilds, so that sweeping after every collection costs the
// same for a table of any size; a rebuild costs what the deaths it
// follows made due.
func (t *weakTable) sweep() bool {
	if t.used == 0 {
		return false
	}
	used, dead := 0, 0
	mask := uint32(len(t.slots) - 1)
	t.sweeps++
	// NB: an odd step visits distinct slots of a power-of-two table.
	i, step := (t.sweeps*0x9e3779b9)&mask, uint32(len(t.slots)/sweepSample)|1
	for k := 0; k < min(sweepSample, len(t.slots)); k, i = k+1, (i+step)&mask {
		if s := &t.slots[i]; s.obj != (weak.Pointer[byte]{}) {
			used++
			if s.obj.Value() == nil {
				dead++
			}
		}
	}
	if 2*dead >= used && dead > 0 {
		t.rebuild(0)
	}
	return t.used > 0
}

// size is the number of live entries (for tests).
func (t *weakTable) size() int { return t.live() }
