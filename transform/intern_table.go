package transform

import (
	"hash/maphash"
	"strings"
	"sync"
	"unsafe"
	"weak"
)

// internTable holds the canonical copy of every interned string through a
// weak pointer to its bytes (weakTable), so a copy lives exactly as long
// as some object references it, and the table's storage for it is given
// back once it was collected (weakSweeps).
//
// NB: Go's unique package is not enough here: it keeps a canonical string
// alive only as long as a unique.Handle to it is, and cached objects hold
// the string, not the handle, so every garbage collection would start a
// new set of copies. TestInternedStringsStayCanonicalAcrossGarbageCollections
// pins that.
type internTable struct {
	// mu serialises the writers of strs and guards registered; lookups
	// take no lock (weakTable).
	mu sync.Mutex
	// strs are the canonical copies by the hash of their content.
	strs weakTable
	// registered says whether weakSweeps knows the table.
	registered bool
}

// internedStrings is the table behind internString.
var internedStrings internTable

// lookup returns the canonical copy equal to s, if one is alive. It takes
// no lock.
func (t *internTable) lookup(h, n uint32, s string) (string, bool) {
	obj := t.strs.find(h, n, func(obj unsafe.Pointer) bool { return unsafe.String((*byte)(obj), len(s)) == s })
	if obj == nil {
		return "", false
	}
	return unsafe.String((*byte)(obj), len(s)), true
}

// canonical returns the canonical copy of the non-empty string s, making a
// copy of s the canonical one when there is none. A string longer than
// 4 GiB is returned as it is.
func (t *internTable) canonical(s string) string {
	n, ok := weakLen(len(s))
	if !ok {
		return s
	}
	h := weakHash(maphash.String(shareSeed, s))
	if c, ok := t.lookup(h, n, s); ok {
		return c
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if c, ok := t.lookup(h, n, s); ok {
		return c
	}
	c := strings.Clone(s)
	p := unsafe.StringData(c)
	t.strs.insert(h, n, weak.Make(p), unsafe.Pointer(p))
	noteWeakInsert(t, &t.registered)
	return c
}

// sweep drops the entries of collected copies (see weakSweeps).
func (t *internTable) sweep() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.strs.sweep()
}

// size is the number of canonical copies alive (for tests).
func (t *internTable) size() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.strs.size()
}
