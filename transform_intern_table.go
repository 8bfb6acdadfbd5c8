package cache

import (
	"hash/maphash"
	"runtime"
	"strings"
	"sync"
	"unsafe"
	"weak"
)

// internTable holds the canonical copy of every interned string through a
// weak pointer to its bytes, so a copy lives exactly as long as some
// object references it, and a cleanup attached to the bytes removes its
// entry once they are collected.
//
// NB: Go's unique package is not enough here: it keeps a canonical string
// alive only as long as a unique.Handle to it is, and cached objects hold
// the string, not the handle, so every garbage collection would start a
// new set of copies. TestInternedStringsStayCanonicalAcrossGarbageCollections
// pins that.
type internTable struct {
	// mu guards entries.
	mu sync.RWMutex
	// entries are the canonical copies by hash of their content.
	entries weakEntries
}

// internKey names an entry for the cleanup that removes it.
type internKey struct {
	hash uint64
	data weak.Pointer[byte]
}

// internedStrings is the table behind internString.
var internedStrings internTable

// lookupLocked returns the canonical copy equal to s, if one is alive;
// t.mu is held (read or write).
func (t *internTable) lookupLocked(h uint64, s string) (string, bool) {
	for _, e := range t.entries[h] {
		if p := e.obj.Value(); p != nil && e.n == len(s) {
			if c := unsafe.String(p, e.n); c == s {
				return c, true
			}
		}
	}
	return "", false
}

// canonical returns the canonical copy of the non-empty string s, making a
// copy of s the canonical one when there is none.
func (t *internTable) canonical(s string) string {
	h := maphash.String(shareSeed, s)
	t.mu.RLock()
	c, ok := t.lookupLocked(h, s)
	t.mu.RUnlock()
	if ok {
		return c
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if c, ok := t.lookupLocked(h, s); ok {
		return c
	}
	c = strings.Clone(s)
	p := unsafe.StringData(c)
	wp := weak.Make(p)
	if t.entries == nil {
		t.entries = make(weakEntries)
	}
	t.entries[h] = append(t.entries[h], weakEntry{obj: wp, n: len(c)})
	runtime.AddCleanup(p, t.forget, internKey{hash: h, data: wp})
	return c
}

// forget removes the entry of a collected canonical copy.
func (t *internTable) forget(k internKey) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.entries.forget(k.hash, k.data)
}
