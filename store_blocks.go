package cache

// Blocks: the store allocates its small internal records (entries and key
// sets) in blocks rather than one by one, so adding an object costs a
// fraction of an allocation for each.
//
// NB: a block stays allocated while any record in it is in use, as a Go map
// keeps its buckets after deletes: a store that shrank keeps up to a
// block's worth of dead records per live one, never more than it held at
// its largest; a deleted entry drops its key, so only the record's own
// bytes stay. Replace starts from fresh blocks. Keys are never put in
// blocks: a key is handed to callers (ListKeys, IndexKeys), who may keep it
// long after the store dropped it, and it must then pin only its own bytes.

// entryBlockSize is how many entries newEntryLocked allocates at a time.
const entryBlockSize = 32

// keySetBlockSize is how many key sets newKeySet allocates at a time.
const keySetBlockSize = 16

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
