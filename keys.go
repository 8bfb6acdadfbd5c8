package cache

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
)

// KeyFunc knows how to make a key from an object. Implementations should be
// deterministic.
type KeyFunc func(obj interface{}) (string, error)

// KeyError will be returned any time a KeyFunc gives an error; it includes the
// object at fault.
type KeyError struct {
	Obj interface{}
	Err error
}

// Error gives a human-readable description of the error.
func (k KeyError) Error() string {
	return fmt.Sprintf("couldn't create key for object %+v: %v", k.Obj, k.Err)
}

// Unwrap implements errors.Unwrap
func (k KeyError) Unwrap() error {
	return k.Err
}

// ExplicitKey can be passed to MetaNamespaceKeyFunc if you have the key for
// the object but not the object itself.
type ExplicitKey string

// DeletedFinalStateUnknown is placed into a DeltaFIFO in the case where an
// object was deleted but the watch deletion event was missed while
// disconnected from apiserver. In this case we don't know the final "resting"
// state of the object, so there's a chance the included `Obj` is stale.
type DeletedFinalStateUnknown struct {
	Key string
	Obj interface{}
}

// MetaNamespaceKeyFunc is a convenient default KeyFunc which knows how to make
// keys for API objects which implement meta.Interface. The key uses the
// format <namespace>/<name> unless <namespace> is empty, then it's just
// <name>. An ExplicitKey is returned as it is.
//
// Clients that want a structured alternative can use ObjectToName or
// MetaObjectToName.
func MetaNamespaceKeyFunc(obj interface{}) (string, error) {
	if key, ok := obj.(ExplicitKey); ok {
		return string(key), nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return "", fmt.Errorf("object has no meta: %v", err)
	}
	return namespacedKey(m.GetNamespace(), m.GetName()), nil
}

// DeletionHandlingMetaNamespaceKeyFunc checks for DeletedFinalStateUnknown
// objects before calling MetaNamespaceKeyFunc: a tombstone's key is the key
// it carries.
func DeletionHandlingMetaNamespaceKeyFunc(obj interface{}) (string, error) {
	if tombstone, ok := obj.(DeletedFinalStateUnknown); ok {
		return tombstone.Key, nil
	}
	return MetaNamespaceKeyFunc(obj)
}

// SplitMetaNamespaceKey returns the namespace and name that
// MetaNamespaceKeyFunc encoded into key. A key without "/" is a
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
