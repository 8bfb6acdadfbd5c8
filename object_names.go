package cache

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// ObjectName is a reference to an object of some implicit kind
type ObjectName struct {
	Namespace string
	Name      string
}

// NewObjectName constructs a new one
func NewObjectName(namespace, name string) ObjectName {
	return ObjectName{Namespace: namespace, Name: name}
}

// Parts is the inverse of the constructor
func (objName ObjectName) Parts() (namespace, name string) {
	return objName.Namespace, objName.Name
}

// String returns the standard string encoding, which is designed to match
// the historical behavior of MetaNamespaceKeyFunc: "namespace/name", or just
// "name" when the namespace is empty. Note this behavior is different from
// the String method of types.NamespacedName.
func (objName ObjectName) String() string {
	return namespacedKey(objName.Namespace, objName.Name)
}

// ParseObjectName tries to parse the standard encoding; it rejects strings
// with more than one "/".
func ParseObjectName(str string) (ObjectName, error) {
	namespace, name, err := SplitMetaNamespaceKey(str)
	if err != nil {
		return ObjectName{}, err
	}
	return ObjectName{Namespace: namespace, Name: name}, nil
}

// NamespacedNameAsObjectName rebrands the given NamespacedName as an
// ObjectName
func NamespacedNameAsObjectName(nn types.NamespacedName) ObjectName {
	return ObjectName{Namespace: nn.Namespace, Name: nn.Name}
}

// AsNamespacedName rebrands as a NamespacedName
func (objName ObjectName) AsNamespacedName() types.NamespacedName {
	return types.NamespacedName{Namespace: objName.Namespace, Name: objName.Name}
}

// MetaObjectToName returns the structured name for the given object
func MetaObjectToName(obj metav1.Object) ObjectName {
	return ObjectName{Namespace: obj.GetNamespace(), Name: obj.GetName()}
}

// ObjectToName returns the structured name for the given object, if indeed it
// can be viewed as a metav1.Object.
func ObjectToName(obj interface{}) (ObjectName, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return ObjectName{}, fmt.Errorf("object has no meta: %v", err)
	}
	return MetaObjectToName(m), nil
}

// DeletionHandlingObjectToName checks for DeletedFinalStateUnknown objects
// before calling ObjectToName: a tombstone's name is parsed from its key.
func DeletionHandlingObjectToName(obj interface{}) (ObjectName, error) {
	if tombstone, ok := obj.(DeletedFinalStateUnknown); ok {
		return ParseObjectName(tombstone.Key)
	}
	return ObjectToName(obj)
}
