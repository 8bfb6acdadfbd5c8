package transform

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// lastAppliedConfigAnnotation is the annotation in which `kubectl apply`
// (client-side apply) keeps the whole last applied manifest of an object;
// StripLastAppliedConfiguration removes it.
const lastAppliedConfigAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// stripManagedFields is StripManagedFields's edit per metadata representation.
var stripManagedFields = metadataTransform{
	meta: func(m *metav1.ObjectMeta) {
		if m.ManagedFields != nil {
			m.ManagedFields = nil
		}
	},
	object: func(o metav1.Object) {
		if o.GetManagedFields() != nil {
			o.SetManagedFields(nil)
		}
	},
	unstructured: func(md map[string]interface{}) {
		if _, ok := md["managedFields"]; ok {
			delete(md, "managedFields")
		}
	},
}

// StripManagedFields is a cache.TransformFunc that drops
// metadata.managedFields, the server-side-apply field ownership records
// that are often 20–40% of a cached object. Use it as
// informer.SetTransform(transform.StripManagedFields) or as the Transformer
// of cache.RealFIFOOptions / cache.DeltaFIFOOptions, alone or in Chain.
//
// Effect: a typed object (*v1.Pod, …) or *metav1.PartialObjectMetadata gets
// ObjectMeta.ManagedFields = nil; an *unstructured.Unstructured loses the
// "managedFields" key of its "metadata" map; any other metav1.Object gets
// SetManagedFields(nil). Nothing else is changed.
//
// On every well-formed object this is what controller-runtime's
// TransformStripManagedFields does (a differential test in
// examples/controller-runtime runs both on the same objects); on three
// inputs kcache deliberately differs: it strips the object inside kcache's
// cache.DeletedFinalStateUnknown (controller-runtime does not know that type),
// returns a typed nil pointer unchanged (controller-runtime panics), and
// removes an Unstructured's "managedFields" whatever its value
// (controller-runtime keeps a value that does not parse as managed fields).
//
// It edits the object in place (allowed since Kubernetes 1.27: a transform
// sees the object before anyone else) and returns the same object. It is
// idempotent and writes only what it removes, so objects already in the
// cache passed to Replace again are only read, never written while listers
// read them; it commutes with the other transforms of this package.
// kcache's cache.DeletedFinalStateUnknown is returned with the same Key and
// its Obj stripped. nil, a typed nil pointer, lists (UnstructuredList,
// PodList: an informer never stores a list; transform the items),
// client-go's tombstone type (this package, like the root package, does
// not handle client-go types) and anything without object metadata are
// returned unchanged. The error is always nil, so an informer never
// drops an object because of it.
func StripManagedFields(obj interface{}) (interface{}, error) {
	return applyMetadataTransform(obj, &stripManagedFields)
}

// stripLastApplied is StripLastAppliedConfiguration's edit per metadata
// representation.
var stripLastApplied = metadataTransform{
	meta: func(m *metav1.ObjectMeta) {
		if _, ok := m.Annotations[lastAppliedConfigAnnotation]; ok {
			m.Annotations = withoutLastApplied(m.Annotations)
		}
	},
	object: func(o metav1.Object) {
		if a := o.GetAnnotations(); a != nil {
			if _, ok := a[lastAppliedConfigAnnotation]; ok {
				o.SetAnnotations(withoutLastApplied(a))
			}
		}
	},
	unstructured: stripLastAppliedUnstructured,
}

// withoutLastApplied deletes the last-applied annotation from a (in place)
// and returns a, or nil when that left a empty (so an object whose only
// annotation it was keeps no empty map). A map without the annotation is
// returned as it is, empty or not.
func withoutLastApplied(a map[string]string) map[string]string {
	if _, ok := a[lastAppliedConfigAnnotation]; !ok {
		return a
	}
	delete(a, lastAppliedConfigAnnotation)
	if len(a) == 0 {
		return nil
	}
	return a
}

// stripLastAppliedUnstructured is withoutLastApplied for an Unstructured
// "metadata" map: the "annotations" key goes when the annotation was its
// last entry. Annotations that are not a map are left alone.
func stripLastAppliedUnstructured(md map[string]interface{}) {
	a, ok := md["annotations"].(map[string]interface{})
	if !ok {
		return
	}
	if _, ok := a[lastAppliedConfigAnnotation]; !ok {
		return
	}
	delete(a, lastAppliedConfigAnnotation)
	if len(a) == 0 {
		delete(md, "annotations")
	}
}

// StripLastAppliedConfiguration is a cache.TransformFunc that drops the
// kubectl.kubernetes.io/last-applied-configuration annotation, in which
// client-side `kubectl apply` keeps a full copy of the applied manifest
// (often as large as the rest of the object). Use it like
// StripManagedFields.
//
// Effect: the annotation is deleted from the annotations map in place; when
// it was the only annotation, the map goes too (ObjectMeta.Annotations =
// nil; the "annotations" key of an Unstructured's metadata is removed), so
// no empty map is kept. Other annotations, and objects without the
// annotation, are never changed, not even written (an empty annotations
// map stays as it was).
//
// In place, idempotent, commutes with the other transforms of this package;
// tombstones, nil, lists and objects without metadata are handled as by
// StripManagedFields. The error is always nil.
func StripLastAppliedConfiguration(obj interface{}) (interface{}, error) {
	return applyMetadataTransform(obj, &stripLastApplied)
}
