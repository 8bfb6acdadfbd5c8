package transform

import (
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kcache-go/cache"
)

// metadataTransform is one in-place edit of object metadata, written once per
// representation of that metadata. applyMetadataTransform picks the one that
// fits the object. Every field is set; each must be idempotent.
type metadataTransform struct {
	// meta edits the ObjectMeta of a typed object or PartialObjectMetadata.
	meta func(*metav1.ObjectMeta)
	// object edits any other metav1.Object through its getters and setters.
	object func(metav1.Object)
	// unstructured edits the "metadata" map of an Unstructured object.
	unstructured func(map[string]interface{})
}

// applyMetadataTransform applies t to obj in place and returns obj. It
// handles, in this order: nil and typed nil pointers (returned unchanged);
// kcache's DeletedFinalStateUnknown (its Obj is transformed in place and
// the tombstone itself returned); *unstructured.Unstructured (its
// "metadata" map, when that is a map); objects whose GetObjectMeta returns
// a *metav1.ObjectMeta (every typed API object, PartialObjectMetadata);
// other metav1.Object implementations. Anything else (no object metadata,
// lists, client-go's own tombstone type) is returned unchanged.
// It never returns an error and never allocates for the dispatch itself.
func applyMetadataTransform(obj interface{}, t *metadataTransform) (interface{}, error) {
	switch o := obj.(type) {
	case nil:
		return nil, nil
	case cache.DeletedFinalStateUnknown:
		// NB: the inner object is edited in place and every edit returns
		// its input, so the tombstone that came in is already the result;
		// returning it avoids boxing a new one.
		_, _ = applyMetadataTransform(o.Obj, t)
		return obj, nil
	case *unstructured.Unstructured:
		if o != nil {
			if md, ok := o.Object["metadata"].(map[string]interface{}); ok {
				t.unstructured(md)
			}
		}
		return obj, nil
	}
	if isNilPointer(obj) {
		return obj, nil
	}
	switch o := obj.(type) {
	case metav1.ObjectMetaAccessor:
		switch m := o.GetObjectMeta().(type) {
		case *metav1.ObjectMeta:
			if m != nil {
				t.meta(m)
			}
		case nil:
		default:
			if !isNilPointer(m) {
				t.object(m)
			}
		}
	case metav1.Object:
		t.object(o)
	}
	return obj, nil
}

// isNilPointer reports whether obj is a nil pointer of some type (a typed
// nil in an interface), which must not have its methods called.
func isNilPointer(obj interface{}) bool {
	v := reflect.ValueOf(obj)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
