package cache

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// ObjectName names an object of a kind known from context: its namespace
// (empty for cluster-scoped kinds) and its name.
type ObjectName struct {
	Namespace string
	Name      string
}

// String encodes the name the way MetaNamespaceKeyFunc makes keys:
// "namespace/name", or "name" alone without a namespace. (NamespacedName's
// String always puts the slash.)
func (objName ObjectName) String() string {
	return namespacedKey(objName.Namespace, objName.Name)
}

// Parts splits the name into namespace and name, undoing NewObjectName.
func (objName ObjectName) Parts() (namespace, name string) {
	return objName.Namespace, objName.Name
}

// NewObjectName returns the ObjectName of namespace and name.
func NewObjectName(namespace, name string) ObjectName {
	return ObjectName{Namespace: namespace, Name: name}
}

// ParseObjectName decodes what String encodes; more than one "/" is an
// error.
func ParseObjectName(str string) (ObjectName, error) {
	namespace, name, err := SplitMetaNamespaceKey(str)
	if err != nil {
		return ObjectName{}, err
	}
	return ObjectName{Namespace: namespace, Name: name}, nil
}

// NamespacedNameAsObjectName converts a NamespacedName field by field.
func NamespacedNameAsObjectName(nn types.NamespacedName) ObjectName {
	return ObjectName{Namespace: nn.Namespace, Name: nn.Name}
}

// AsNamespacedName converts to a NamespacedName field by field.
func (objName ObjectName) AsNamespacedName() types.NamespacedName {
	return types.NamespacedName{Namespace: objName.Namespace, Name: objName.Name}
}

// MetaObjectToName reads the name out of an object's metadata.
func MetaObjectToName(obj metav1.Object) ObjectName {
	return ObjectName{Namespace: obj.GetNamespace(), Name: obj.GetName()}
}

// ObjectToName reads the name of any object that has object metadata; other
// values are an error.
func ObjectToName(obj interface{}) (ObjectName, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return ObjectName{}, fmt.Errorf("object has no meta: %v", err)
	}
	return MetaObjectToName(m), nil
}

// DeletionHandlingObjectToName is ObjectToName that also accepts tombstones
// (DeletedFinalStateUnknown, kcache's or client-go's), whose name is
// parsed from their key.
func DeletionHandlingObjectToName(obj interface{}) (ObjectName, error) {
	if tombstone, ok := obj.(DeletedFinalStateUnknown); ok {
		return ParseObjectName(tombstone.Key)
	}
	// NB: cheap for objects, see DeletionHandlingMetaNamespaceKeyFunc.
	if key, _, ok := foreignTombstoneParts(obj); ok {
		return ParseObjectName(key)
	}
	return ObjectToName(obj)
}
