package cache

import (
	"github.com/kcache-go/cache/internal/records"
)

// The threadSafeMap's writes and reads of a key the Store computed from an
// object's metadata (see cache.namedMeta in store.go): the key is kept as
// records.Named of the namespace and name, and its string is never built.

// namedRecordLocked returns the id of the record stored under
// namespacedKey(namespace, name), or -1, without building that string. The
// caller holds m.lock.
func (m *threadSafeMap) namedRecordLocked(namespace, name string) int32 {
	return m.table.Find(records.Named(namespace, name), &m.recs)
}

// updateNamed is Update of obj under namespacedKey(namespace, name), with
// obj's resource version rv already read. The key is kept as headers of
// namespace and name, obj's own metadata strings (see records.Key): no key
// string is built, for a new key nor a stored one, and a stored record's
// headers move to obj's strings.
func (m *threadSafeMap) updateNamed(namespace, name string, obj interface{}, rv string) {
	m.lock.Lock()
	defer m.lock.Unlock()
	m.putKeyLocked(records.Named(namespace, name), obj)
	m.setResourceVersionLocked(rv)
}

// deleteNamed is DeleteWithObject of namespacedKey(namespace, name), with
// the deleted object's resource version rv already read.
func (m *threadSafeMap) deleteNamed(namespace, name, rv string) {
	m.lock.Lock()
	defer m.lock.Unlock()
	m.deleteKeyLocked(records.Named(namespace, name))
	m.setResourceVersionLocked(rv)
}

// getNamed is Get of namespacedKey(namespace, name).
func (m *threadSafeMap) getNamed(namespace, name string) (interface{}, bool) {
	m.lock.RLock()
	defer m.lock.RUnlock()
	return m.storedLocked(m.namedRecordLocked(namespace, name))
}
