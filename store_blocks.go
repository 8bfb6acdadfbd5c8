package cache

import "unsafe"

// Blocks: the store allocates its small per-key and per-value records
// (entries, key sets, the keys it builds itself) in blocks rather than one
// by one, so adding an object costs a fraction of an allocation for each.
//
// NB: a block stays allocated while any record in it is in use, as a Go map
// keeps its buckets after deletes: a store that shrank keeps up to a
// block's worth of dead records per live one, never more than it held at
// its largest. Replace starts from fresh blocks.

// entryBlockSize is how many entries newEntryLocked allocates at a time.
const entryBlockSize = 32

// keySetBlockSize is how many key sets newKeySet allocates at a time.
const keySetBlockSize = 16

// keyBlockSize is the size of the blocks namedKeyLocked writes keys to;
// keys longer than keyBlockMax get their own allocation.
const (
	keyBlockSize = 4096
	keyBlockMax  = 256
)

// newEntryLocked returns a new entry for key, from m's current block. The
// caller holds m.lock for writing.
func (m *threadSafeMap) newEntryLocked(key string) *storeEntry {
	if len(m.spare) == 0 {
		m.spare = make([]storeEntry, entryBlockSize)
	}
	e := &m.spare[0]
	m.spare = m.spare[1:]
	e.key = key
	return e
}

// namedKeyLocked returns namespacedKey(namespace, name), written to m's
// current key block. The block's bytes are never written again once a key
// is in them, so the string stays immutable. The caller holds m.lock for
// writing.
func (m *threadSafeMap) namedKeyLocked(namespace, name string) string {
	n := len(name)
	if namespace != "" {
		n += len(namespace) + 1
	}
	if n == 0 || n > keyBlockMax {
		return namespacedKey(namespace, name)
	}
	if cap(m.keyBytes)-len(m.keyBytes) < n {
		m.keyBytes = make([]byte, 0, keyBlockSize)
	}
	start := len(m.keyBytes)
	if namespace != "" {
		m.keyBytes = append(append(m.keyBytes, namespace...), '/')
	}
	m.keyBytes = append(m.keyBytes, name...)
	key := m.keyBytes[start:]
	m.keyBytes = m.keyBytes[len(m.keyBytes):]
	return unsafe.String(&key[0], len(key))
}

// newKeySet returns an empty key set from vi's current block. The caller
// holds the owning map's lock for writing.
func (vi *valueIndex) newKeySet() *keySet {
	if len(vi.spare) == 0 {
		vi.spare = make([]keySet, keySetBlockSize)
	}
	ks := &vi.spare[0]
	vi.spare = vi.spare[1:]
	return ks
}
