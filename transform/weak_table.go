package transform

import (
	"math"
	"sync/atomic"
	"unsafe"
	"weak"
)

// weakTable holds the canonical objects of an interning or sharing table:
// an open-addressing hash table (linear probing over a power of two
// slots, at most 3/4 of them used) that holds each object weakly, so an
// object nothing else references is collected and its slot dies. Dead
// slots are dropped when the table is rebuilt: when an insertion finds it
// full (it is then rebuilt at twice its live entries, which also shrinks
// it), and by sweep, which a table's owner calls after garbage
// collections (weakSweeps). Nothing is attached to the objects (no
// cleanup, no finalizer): a live entry costs its slot (16 bytes, 4 more
// with an address index), at a load of 3/8 to 3/4, and the runtime's weak
// handle of its object.
//
// Reads (find, holds) take no lock and may run concurrently with one
// writer (insert, sweep), which the owning table's mutex serialises: a
// slot of a published array is written once, its object before its meta
// word (atomically), and never again; a rebuild fills a new array and
// publishes it atomically. A reader still walking the old array may miss
// what was inserted after; the tables' writers look again under the mutex.
type weakTable struct {
	// slots is the published slot array; nil when the table holds nothing.
	slots atomic.Pointer[weakSlots]
	// used counts the slots that are not empty (live or dead). Guarded by
	// the owner's mutex, as are trackAddrs and sweeps.
	used int
	// trackAddrs says whether the slot arrays keep an address index.
	trackAddrs bool
	// sweeps counts the sweeps, to start each one's sample elsewhere.
	sweeps uint32
}

// weakSlots is one slot array of a weakTable. Slot i is empty while
// meta[i] is 0; otherwise meta[i] is slotMeta of the hash and length of
// the object objs[i] holds weakly (nil once the object was collected: the
// slot is dead).
type weakSlots struct {
	meta []atomic.Uint64
	objs []weak.Pointer[byte]
	// byAddr, in a table that tracks addresses, holds the index+1 of every
	// used slot at the hash of its object's address (0: empty), so that a
	// value can be recognised as canonical from its address alone.
	// NB: an address holds nothing alive, and a collected object's address
	// may be reused by a new object; the slot's weak pointer tells them
	// apart (it gives nil once its object is unreachable), so a new object
	// at a reused address is never taken for a canonical one.
	byAddr []atomic.Uint32
}

// minWeakSlots is the size of a table's first slot array.
const minWeakSlots = 8

// weakHash folds a 64-bit content hash into the 32 bits a slot keeps.
func weakHash(h uint64) uint32 { return uint32(h ^ h>>32) }

// weakLen reports n as a slot length; ok is false for a length a slot
// cannot hold (2 GiB or more), a value the tables then leave alone.
func weakLen(n int) (uint32, bool) { return uint32(n), n >= 0 && n < math.MaxInt32 }

// slotMeta is the meta word of a used slot: never 0.
func slotMeta(h, n uint32) uint64 { return uint64(h)<<32 | 1<<31 | uint64(n) }

// find returns the first live object of hash h and length n for which
// match reports true, or nil. It takes no lock.
func (t *weakTable) find(h, n uint32, match func(obj unsafe.Pointer) bool) unsafe.Pointer {
	s := t.slots.Load()
	if s == nil {
		return nil
	}
	want, mask := slotMeta(h, n), uint32(len(s.meta)-1)
	for i := h & mask; ; i = (i + 1) & mask {
		m := s.meta[i].Load()
		if m == 0 {
			return nil
		}
		if m == want {
			if obj := unsafe.Pointer(s.objs[i].Value()); obj != nil && match(obj) {
				return obj
			}
		}
	}
}

// holds reports whether obj, of length n, is a live object of the table;
// the table tracks addresses. It takes no lock.
func (t *weakTable) holds(obj unsafe.Pointer, n uint32) bool {
	s := t.slots.Load()
	if s == nil || len(s.byAddr) == 0 {
		return false
	}
	mask := uint32(len(s.byAddr) - 1)
	for i := addrHash(obj) & mask; ; i = (i + 1) & mask {
		k := s.byAddr[i].Load()
		if k == 0 {
			return false
		}
		if uint32(s.meta[k-1].Load()) == 1<<31|n && unsafe.Pointer(s.objs[k-1].Value()) == obj {
			return true
		}
	}
}

// addrHash spreads an object's address over 32 bits.
func addrHash(obj unsafe.Pointer) uint32 {
	a := uint64(uintptr(obj)) * 0x9e3779b97f4a7c15
	return uint32(a >> 32)
}

// insert adds obj (held by wp), of hash h and length n, which the table
// does not hold; the table is rebuilt first when it is full. The owner's
// mutex is held.
func (t *weakTable) insert(h, n uint32, wp weak.Pointer[byte], obj unsafe.Pointer) {
	s := t.slots.Load()
	if s == nil || (t.used+1)*4 > len(s.meta)*3 {
		s = t.rebuild(1)
	}
	s.place(slotMeta(h, n), wp, obj)
	t.used++
}

// place puts the object obj, held by wp, with meta word m into the first
// empty slot of its hash, then indexes its address: each written before it
// is published by an atomic store.
func (s *weakSlots) place(m uint64, wp weak.Pointer[byte], obj unsafe.Pointer) {
	mask := uint32(len(s.meta) - 1)
	i := uint32(m>>32) & mask
	for s.meta[i].Load() != 0 {
		i = (i + 1) & mask
	}
	s.objs[i] = wp
	s.meta[i].Store(m)
	if s.byAddr != nil {
		j := addrHash(obj) & mask
		for s.byAddr[j].Load() != 0 {
			j = (j + 1) & mask
		}
		s.byAddr[j].Store(i + 1)
	}
}

// live counts the slots whose object is alive.
func (t *weakTable) live() int {
	s := t.slots.Load()
	if s == nil {
		return 0
	}
	n := 0
	for i := range s.objs {
		if s.meta[i].Load() != 0 && s.objs[i].Value() != nil {
			n++
		}
	}
	return n
}

// rebuild publishes a new slot array holding the live slots, sized for
// them and extra more entries at half load (nil when that is none),
// without the dead ones, and returns it. The owner's mutex is held.
func (t *weakTable) rebuild(extra int) *weakSlots {
	old := t.slots.Load()
	want := 2 * (t.live() + extra)
	t.used = 0
	if want == 0 {
		t.slots.Store(nil)
		return nil
	}
	size := minWeakSlots
	for size < want {
		size *= 2
	}
	s := &weakSlots{meta: make([]atomic.Uint64, size), objs: make([]weak.Pointer[byte], size)}
	if t.trackAddrs {
		s.byAddr = make([]atomic.Uint32, size)
	}
	if old != nil {
		for i := range old.objs {
			if m := old.meta[i].Load(); m != 0 {
				if obj := old.objs[i].Value(); obj != nil {
					s.place(m, old.objs[i], unsafe.Pointer(obj))
					t.used++
				}
			}
		}
	}
	t.slots.Store(s)
	return s
}

// sweepSample is how many slots sweep looks at before deciding to
// rebuild a table.
const sweepSample = 64

// sweep rebuilds the table without its dead slots when a sample of its
// slots finds at least half of the used ones dead, and reports whether
// the table still holds an entry. It reads at most sweepSample slots
// unless it rebuilds, so that sweeping after every collection costs the
// same for a table of any size; a rebuild costs what the deaths it
// follows made due. The owner's mutex is held.
func (t *weakTable) sweep() bool {
	s := t.slots.Load()
	if s == nil || t.used == 0 {
		return false
	}
	used, dead := 0, 0
	mask := uint32(len(s.meta) - 1)
	t.sweeps++
	// NB: an odd step visits distinct slots of a power-of-two table.
	i, step := (t.sweeps*0x9e3779b9)&mask, uint32(len(s.meta)/sweepSample)|1
	for k := 0; k < min(sweepSample, len(s.meta)); k, i = k+1, (i+step)&mask {
		if s.meta[i].Load() != 0 {
			used++
			if s.objs[i].Value() == nil {
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
