package cache

import (
	"reflect"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// keyFuncKind says whether a store's KeyFunc is one of this package's own,
// whose keys the store can then compute itself: "namespace/name" (or
// "name") of the object's metadata. It is decided once, when the store is
// made, by comparing function pointers.
type keyFuncKind uint8

const (
	// keyFuncOther is any KeyFunc the store only calls.
	keyFuncOther keyFuncKind = iota
	// keyFuncMetaNamespace is MetaNamespaceKeyFunc.
	keyFuncMetaNamespace
	// keyFuncDeletionHandling is DeletionHandlingMetaNamespaceKeyFunc.
	keyFuncDeletionHandling
)

// Code pointers of the recognised functions, computed once.
var (
	metaNamespaceKeyFuncPC    = reflect.ValueOf(MetaNamespaceKeyFunc).Pointer()
	deletionHandlingKeyFuncPC = reflect.ValueOf(DeletionHandlingMetaNamespaceKeyFunc).Pointer()
	metaNamespaceIndexFuncPC  = reflect.ValueOf(MetaNamespaceIndexFunc).Pointer()
)

// keyFuncKindOf recognises fn.
func keyFuncKindOf(fn KeyFunc) keyFuncKind {
	if fn == nil {
		return keyFuncOther
	}
	switch reflect.ValueOf(fn).Pointer() {
	case metaNamespaceKeyFuncPC:
		return keyFuncMetaNamespace
	case deletionHandlingKeyFuncPC:
		return keyFuncDeletionHandling
	}
	return keyFuncOther
}

// isMetaNamespaceIndexFunc reports whether fn is MetaNamespaceIndexFunc.
func isMetaNamespaceIndexFunc(fn IndexFunc) bool {
	return fn != nil && reflect.ValueOf(fn).Pointer() == metaNamespaceIndexFuncPC
}

// namedMeta returns obj's metadata when the store may key obj itself: its
// KeyFunc is one of this package's, it has no transformer, and obj is an
// object with metadata (not an ExplicitKey nor a tombstone, which keep the
// KeyFunc's own path, errors included). The key is then exactly what the
// KeyFunc would return, namespacedKey of the metadata's namespace and name,
// and the store keeps it as namedKey of those two strings.
func (c *cache) namedMeta(obj interface{}) (metav1.Object, bool) {
	if c.keyKind == keyFuncOther || c.transformer != nil {
		return nil, false
	}
	switch obj.(type) {
	case ExplicitKey, DeletedFinalStateUnknown:
		return nil, false
	}
	if c.keyKind == keyFuncDeletionHandling {
		if _, _, ok := foreignTombstoneParts(obj); ok {
			return nil, false
		}
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, false
	}
	return m, true
}

// namedRecordLocked returns the id of the record stored under
// namespacedKey(namespace, name), or -1, without building that string. The
// caller holds m.lock.
func (m *threadSafeMap) namedRecordLocked(namespace, name string) int32 {
	return m.table.find(namedKey(namespace, name), &m.recs)
}

// updateNamed is Update of obj under namespacedKey(namespace, name), with
// obj's resource version rv already read. The key is kept as headers of
// namespace and name, obj's own metadata strings (see recordKey): no key
// string is built, for a new key nor a stored one, and a stored record's
// headers move to obj's strings.
func (m *threadSafeMap) updateNamed(namespace, name string, obj interface{}, rv string) {
	m.lock.Lock()
	defer m.lock.Unlock()
	m.putKeyLocked(namedKey(namespace, name), obj)
	m.setResourceVersionLocked(rv)
}

// deleteNamed is DeleteWithObject of namespacedKey(namespace, name), with
// the deleted object's resource version rv already read.
func (m *threadSafeMap) deleteNamed(namespace, name, rv string) {
	m.lock.Lock()
	defer m.lock.Unlock()
	m.deleteKeyLocked(namedKey(namespace, name))
	m.setResourceVersionLocked(rv)
}

// getNamed is Get of namespacedKey(namespace, name).
func (m *threadSafeMap) getNamed(namespace, name string) (interface{}, bool) {
	m.lock.RLock()
	defer m.lock.RUnlock()
	return m.storedLocked(m.namedRecordLocked(namespace, name))
}
