package cache

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
)

// ExplicitKey is a key standing in for an object: MetaNamespaceKeyFunc
// returns it unchanged. Use it to address an object whose key you have but
// whose body you do not.
type ExplicitKey string

// DeletedFinalStateUnknown is the tombstone of an object whose deletion was
// not observed (the watch was down when it happened) and was inferred from a
// relist. Obj is the last state known before the deletion and may be stale.
type DeletedFinalStateUnknown struct {
	Key string
	Obj interface{}
}

// KeyFunc computes the storage key of an object. It must be deterministic:
// the same object always gets the same key.
type KeyFunc func(obj interface{}) (string, error)

// KeyError is the error stores return when their KeyFunc fails: the object
// that had no key and the reason.
type KeyError struct {
	Obj interface{}
	Err error
}

// MetaNamespaceKeyFunc is the usual KeyFunc for API objects: "namespace/name"
// for namespaced objects, "name" for cluster-scoped ones (empty namespace).
// An ExplicitKey is its own key, kcache's or client-go's (from client-go
// code in the same program); anything else without object metadata is an
// error. ObjectToName gives the same name in structured form.
func MetaNamespaceKeyFunc(obj interface{}) (string, error) {
	if key, ok := obj.(ExplicitKey); ok {
		return string(key), nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		// NB: asked only here, so objects with metadata never pay for it.
		if key, ok := foreignExplicitKey(obj); ok {
			return key, nil
		}
		return "", fmt.Errorf("object has no meta: %v", err)
	}
	return namespacedKey(m.GetNamespace(), m.GetName()), nil
}

// DeletionHandlingMetaNamespaceKeyFunc checks for DeletedFinalStateUnknown
// objects before calling MetaNamespaceKeyFunc: a tombstone's key is the key
// it carries. client-go's DeletedFinalStateUnknown (from a client-go
// informer in the same program) is recognised too, as is client-go's
// ExplicitKey (see MetaNamespaceKeyFunc).
func DeletionHandlingMetaNamespaceKeyFunc(obj interface{}) (string, error) {
	if tombstone, ok := obj.(DeletedFinalStateUnknown); ok {
		return tombstone.Key, nil
	}
	// NB: foreignTombstoneParts returns at once, without allocating, for
	// anything that is not a struct value (objects are pointers), and asking
	// it first spares a client-go tombstone MetaNamespaceKeyFunc's error.
	if foreignKey, _, ok := foreignTombstoneParts(obj); ok {
		return foreignKey, nil
	}
	return MetaNamespaceKeyFunc(obj)
}

// SplitMetaNamespaceKey is the inverse of MetaNamespaceKeyFunc: it
// returns the namespace and name in key. A key without "/" is a
// cluster-scoped name; a key with more than one "/" is an error.
func SplitMetaNamespaceKey(key string) (namespace, name string, err error) {
	slash := strings.IndexByte(key, '/')
	if slash < 0 {
		return "", key, nil
	}
	namespace, name = key[:slash], key[slash+1:]
	if strings.IndexByte(name, '/') >= 0 {
		return "", "", fmt.Errorf("unexpected key format: %q", key)
	}
	return namespace, name, nil
}

// namespacedKey joins namespace and name the way MetaNamespaceKeyFunc does.
func namespacedKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// Error describes the failure, naming the object.
func (k KeyError) Error() string {
	return fmt.Sprintf("couldn't create key for object %+v: %v", k.Obj, k.Err)
}

// Unwrap gives the KeyFunc's own error, for errors.Is and errors.As.
func (k KeyError) Unwrap() error { return k.Err }
