package cache

import (
	"unique"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// internString returns the canonical copy of s held by Go's unique package
// (the first copy seen, cloned), so equal strings of many objects share one
// backing array. The unique package drops a canonical copy once nothing
// references it, so interning never pins memory for good. "" is returned
// as it is.
func internString(s string) string {
	if s == "" {
		return s
	}
	return unique.Make(s).Value()
}

// internStringMap replaces every key and value of m by its canonical copy,
// in place. NB: assigning to an existing key stores the new key too (the
// runtime updates string keys on assignment), so the map's own key copies
// are dropped without rebuilding the map: no allocation, no second map.
// TestInternStringsRewritesLabelAndAnnotationMapsInPlace pins that.
func internStringMap(m map[string]string) {
	for k, v := range m {
		m[internString(k)] = internString(v)
	}
}

// internOwnerReferences interns the API version, kind, name and UID of
// every owner reference, in place.
func internOwnerReferences(refs []metav1.OwnerReference) {
	for i := range refs {
		r := &refs[i]
		r.APIVersion = internString(r.APIVersion)
		r.Kind = internString(r.Kind)
		r.Name = internString(r.Name)
		r.UID = types.UID(internString(string(r.UID)))
	}
}

// internStrings interns every string of ss in place.
func internStrings(ss []string) {
	for i, s := range ss {
		ss[i] = internString(s)
	}
}

// internMeta is InternStrings's edit of an ObjectMeta.
func internMeta(m *metav1.ObjectMeta) {
	m.Namespace = internString(m.Namespace)
	m.GenerateName = internString(m.GenerateName)
	internStringMap(m.Labels)
	internStringMap(m.Annotations)
	internOwnerReferences(m.OwnerReferences)
	internStrings(m.Finalizers)
}

// internObject is InternStrings's edit through metav1.Object's getters and
// setters; a map or slice a getter returned is set back, for
// implementations whose getters return copies.
func internObject(o metav1.Object) {
	o.SetNamespace(internString(o.GetNamespace()))
	o.SetGenerateName(internString(o.GetGenerateName()))
	if l := o.GetLabels(); len(l) > 0 {
		internStringMap(l)
		o.SetLabels(l)
	}
	if a := o.GetAnnotations(); len(a) > 0 {
		internStringMap(a)
		o.SetAnnotations(a)
	}
	if refs := o.GetOwnerReferences(); len(refs) > 0 {
		internOwnerReferences(refs)
		o.SetOwnerReferences(refs)
	}
	if f := o.GetFinalizers(); len(f) > 0 {
		internStrings(f)
		o.SetFinalizers(f)
	}
}

// internStringsTransform is InternStrings's edit per metadata representation.
var internStringsTransform = metadataTransform{
	meta:         internMeta,
	object:       internObject,
	unstructured: internUnstructuredMetadata,
}

// InternStrings is a TransformFunc that replaces repeated metadata strings
// by one canonical copy each, through Go's unique package, so that the many
// objects of a cache that carry the same namespace, labels, annotations or
// owner share their bytes instead of each keeping its own copy (a decoded
// object always has its own). Values nothing references any more are still
// collected: the unique package holds its canonical copies weakly.
//
// Exactly these strings are interned, and nothing else is touched:
// metadata.namespace, metadata.generateName, every key and value of
// metadata.labels and metadata.annotations, the apiVersion, kind, name and
// uid of every metadata.ownerReferences entry, and every metadata.finalizers
// entry. For an *unstructured.Unstructured the same fields are interned
// inside its nested maps, and so are the keys of the metadata map and of
// each owner reference map; values that are not strings (a malformed
// object) are left as they are, and every value keeps its type. Names,
// UIDs and resource versions of the object itself are unique per object
// and are not interned.
//
// The content of the object never changes (every string stays equal to
// itself), so InternStrings is idempotent, commutes with every other
// transform, and leaves nil maps and slices nil and empty ones empty. It
// edits in place: maps keep their identity, with keys and values replaced
// by assignment. Tombstones, nil, lists and objects without metadata are
// handled as by StripManagedFields. The error is always nil.
//
// Cost: one lookup in the unique package's map per interned string (about
// 25 for a typical pod), no allocation for a string already interned, one
// copy of a string seen for the first time. That is the most expensive of
// the package's transforms by far: BenchmarkTransformCost (benchmarks/)
// measured about 3–5 µs of CPU per typed pod, 10–25 µs per Unstructured
// pod (whose metadata map keys are interned too), against 0.1–0.2 µs for
// either strip, on a shared 2-core machine.
func InternStrings(obj interface{}) (interface{}, error) {
	return applyMetadataTransform(obj, &internStringsTransform)
}

// sameStringData reports whether a and b share their backing bytes (or are
// both empty), that is whether one is already the other's interned copy.
func sameStringData(a, b string) bool {
	return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b)
}
