package transform

import "maps"

// The canonical tables keep deep copies: a canonical value shares nothing
// with the decoded object it was first seen in, and every slice in it, at
// any depth, has its length as capacity, so an append to a slice read from
// one cached pod never writes into what another pod's slice shows. The API
// types' generated DeepCopy methods give exactly that (they allocate every
// nested slice at its length); a type without one is copied by value (the
// string slices and string maps, whose elements are immutable).

// deepCopyPointer returns a deep copy of *v in a new allocation.
func deepCopyPointer[T any](v *T) *T {
	if dc, ok := any(v).(interface{ DeepCopy() *T }); ok {
		return dc.DeepCopy()
	}
	n := new(T)
	*n = *v
	return n
}

// deepCopySlice returns a deep copy of the non-empty v, its capacity its
// length.
func deepCopySlice[S ~[]E, E any](v S) S {
	n := make(S, len(v))
	for i := range v {
		if dc, ok := any(&v[i]).(interface{ DeepCopyInto(*E) }); ok {
			dc.DeepCopyInto(&n[i])
		} else {
			n[i] = v[i]
		}
	}
	return n
}

// deepCopyMap returns a deep copy of the non-nil v.
func deepCopyMap[M ~map[K]V, K comparable, V any](v M) M {
	if dc, ok := any(v).(interface{ DeepCopy() M }); ok {
		return dc.DeepCopy()
	}
	return maps.Clone(v)
}
