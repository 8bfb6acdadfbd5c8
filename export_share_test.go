package cache

import "reflect"

// WithSettledQuantities returns obj after filling in the cached string of
// every resource.Quantity in it (resource.Quantity.String computes it once
// and keeps it), for tests that compare objects ShareIdenticalPodParts
// transformed: the shared parts' Quantities are settled, and otherwise
// their content is exactly the pod's. obj must be a pointer.
func WithSettledQuantities[T any](obj *T) *T {
	settleQuantities(reflect.ValueOf(obj).Elem())
	return obj
}
