package cache

// storedObjectsLister is implemented by this package's stores (every Store
// and Indexer built on threadSafeMap). A queue whose KnownObjects is one of
// them reads what its Replace and Resync need through storedExcept, in one
// pass under the store's read lock, instead of ListKeys and a GetByKey per
// key: no key the queue only looks up is built as a string, and every
// object comes from one consistent snapshot. Any other KnownObjects is read
// with ListKeys and GetByKey, as client-go reads it.
type storedObjectsLister interface {
	storedExcept(skip func(key []byte) bool, withKeys bool) []storedEntry
}

// storedEntry is a stored object and, when asked for, its storage key.
type storedEntry struct {
	// key is the storage key, or "" when it was not asked for.
	key string
	// obj is the stored object.
	obj interface{}
}

// storedExcept returns, in ListKeys' order, every stored object for whose
// key skip reports false (every object when skip is nil), with its key when
// withKeys is set. It takes the read lock. skip is called under it with the
// key rendered into a buffer that the next key overwrites: skip must not
// keep the slice, and must not call the store.
func (m *threadSafeMap) storedExcept(skip func(key []byte) bool, withKeys bool) []storedEntry {
	m.lock.RLock()
	defer m.lock.RUnlock()
	var out []storedEntry
	if skip == nil {
		out = make([]storedEntry, 0, m.recs.Live())
	}
	var rendered []byte
	m.recs.ForEachStored(func(id int32, obj interface{}) {
		key := m.recs.Key(id)
		if skip != nil {
			rendered = key.AppendTo(rendered[:0])
			if skip(rendered) {
				return
			}
		}
		e := storedEntry{obj: obj}
		if withKeys {
			e.key = key.String()
		}
		out = append(out, e)
	})
	return out
}
