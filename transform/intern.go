package transform

import (
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// internString returns the canonical copy of s (the first copy seen,
// cloned), so equal strings of many objects share one backing array. The
// canonical copies are held weakly (internTable): one nothing references
// any more is collected, so interning never pins memory for good. "" is
// returned as it is.
func internString(s string) string {
	if s == "" {
		return s
	}
	return internedStrings.canonical(s)
}

// internStringMap replaces every key and value of m by its canonical copy,
// in place. NB: assigning to an existing key stores the new key too (the
// runtime updates string keys on assignment), so the map's own key copies
// are dropped without rebuilding the map: no allocation, no second map.
// TestInternStringsRewritesLabelAndAnnotationMapsInPlace pins that.
func internStringMap(m map[string]string) {
	for k, v := range m {
		ck, cv := internString(k), internString(v)
		if !sameStringData(ck, k) || !sameStringData(cv, v) {
			m[ck] = cv
		}
	}
}

// internStringField interns *s in place, writing only when *s is not the
// canonical copy already.
func internStringField(s *string) {
	if c := internString(*s); !sameStringData(c, *s) {
		*s = c
	}
}

// internOwnerReferences interns the API version, kind, name and UID of
// every owner reference, in place.
func internOwnerReferences(refs []metav1.OwnerReference) {
	for i := range refs {
		r := &refs[i]
		internStringField(&r.APIVersion)
		internStringField(&r.Kind)
		internStringField(&r.Name)
		if c := internString(string(r.UID)); !sameStringData(c, string(r.UID)) {
			r.UID = types.UID(c)
		}
	}
}

// internStrings interns every string of ss in place.
func internStrings(ss []string) {
	for i := range ss {
		internStringField(&ss[i])
	}
}

// internMeta is InternStrings's edit of an ObjectMeta.
func internMeta(m *metav1.ObjectMeta) {
	internStringField(&m.Namespace)
	internStringField(&m.GenerateName)
	internStringMap(m.Labels)
	internStringMap(m.Annotations)
	internOwnerReferences(m.OwnerReferences)
	internStrings(m.Finalizers)
}

// internObject is InternStrings's edit through metav1.Object's getters and
// setters; a map or slice a getter returned is set back, for
// implementations whose getters return copies.
func internObject(o metav1.Object) {
	if s := o.GetNamespace(); !sameStringData(internString(s), s) {
		o.SetNamespace(internString(s))
	}
	if s := o.GetGenerateName(); !sameStringData(internString(s), s) {
		o.SetGenerateName(internString(s))
	}
	if l := o.GetLabels(); len(l) > 0 && !stringMapInterned(l) {
		internStringMap(l)
		o.SetLabels(l)
	}
	if a := o.GetAnnotations(); len(a) > 0 && !stringMapInterned(a) {
		internStringMap(a)
		o.SetAnnotations(a)
	}
	if refs := o.GetOwnerReferences(); len(refs) > 0 && !ownerReferencesInterned(refs) {
		internOwnerReferences(refs)
		o.SetOwnerReferences(refs)
	}
	if f := o.GetFinalizers(); len(f) > 0 && !stringsInterned(f) {
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

// InternStrings is a cache.TransformFunc that replaces repeated metadata
// strings by one canonical copy each, held weakly (like Go's unique
// package, but for as long as any object references the copy), so that the
// many objects of a cache that carry the same namespace, labels,
// annotations or owner share their bytes instead of each keeping its own
// copy (a decoded object always has its own). Values nothing references any more are still
// collected: the canonical copies are held through weak pointers.
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
// by assignment, and only where a string is not its canonical copy yet, so
// a second application writes nothing (objects already in the cache passed
// to Replace again are read, never written, while listers read them).
// Tombstones, nil, lists and objects without metadata are handled as by
// StripManagedFields. The error is always nil.
//
// Concurrency: objects interned concurrently must not share maps or slices
// (two objects built from one template, say): interning writes those maps.
// Within one informer or queue transforms run one at a time, and decoded
// objects never share them.
//
// Cost: one lookup in the canonical table (a hash and a read of its
// slots, no lock) per interned string (about 25 for a typical pod), no
// allocation for a string already interned, one copy of a string seen for
// the first time. That is the most expensive of the metadata transforms:
// BenchmarkTransformCost (benchmarks/) measured about 2 µs of CPU per
// typed pod (1.3 µs for a pod already interned) and 7 µs per Unstructured
// pod (whose metadata map keys are interned too), against 0.1–0.4 µs for
// either strip on a typed pod; BenchmarkTransformCostRealisticPods about
// 3 µs per realistic pod, on a 2-core machine.
func InternStrings(obj interface{}) (interface{}, error) {
	return applyMetadataTransform(obj, &internStringsTransform)
}

// sameStringData reports whether a and b share their backing bytes (or are
// both empty), that is whether one is already the other's interned copy.
func sameStringData(a, b string) bool {
	return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b)
}

// stringMapInterned reports whether every key and value of m is its
// canonical copy already (so internObject need not set it back).
func stringMapInterned(m map[string]string) bool {
	for k, v := range m {
		if !sameStringData(internString(k), k) || !sameStringData(internString(v), v) {
			return false
		}
	}
	return true
}

// ownerReferencesInterned reports whether the strings internOwnerReferences
// interns are all canonical copies already.
func ownerReferencesInterned(refs []metav1.OwnerReference) bool {
	for _, r := range refs {
		if !stringsInterned([]string{r.APIVersion, r.Kind, r.Name, string(r.UID)}) {
			return false
		}
	}
	return true
}

// stringsInterned reports whether every string of ss is its canonical copy.
func stringsInterned(ss []string) bool {
	for _, s := range ss {
		if !sameStringData(internString(s), s) {
			return false
		}
	}
	return true
}
