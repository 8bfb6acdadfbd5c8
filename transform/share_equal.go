package transform

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// partsEqual reports what reflect.DeepEqual reports for a and b, two
// values of one type (the parts ShareIdenticalPodParts compares), without
// allocating for the API types' kinds: pointers, structs, slices, arrays,
// strings, numbers, booleans, and maps of strings to strings or resource
// names to Quantities. Other maps, interfaces holding those and the kinds
// API types do not use are compared by reflect.DeepEqual itself. API
// values have no cycles, so no visited set is kept.
func partsEqual(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.String:
		return a.String() == b.String()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		return a.Float() == b.Float()
	case reflect.Pointer:
		if a.UnsafePointer() == b.UnsafePointer() {
			return true
		}
		return !a.IsNil() && !b.IsNil() && partsEqual(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !partsEqual(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		if a.UnsafePointer() == b.UnsafePointer() {
			return true
		}
		return elementsEqual(a, b)
	case reflect.Array:
		return elementsEqual(a, b)
	case reflect.Map:
		return mapsEqual(a, b)
	}
	// NB: a value read through an unexported field cannot be handed to
	// reflect.DeepEqual; none of the API types has one of these kinds
	// there, and unequal is the safe answer (the part gets a canonical
	// copy of its own).
	return a.CanInterface() && b.CanInterface() && reflect.DeepEqual(a.Interface(), b.Interface())
}

// elementsEqual compares the elements of two slices or arrays of one length.
func elementsEqual(a, b reflect.Value) bool {
	for i := 0; i < a.Len(); i++ {
		if !partsEqual(a.Index(i), b.Index(i)) {
			return false
		}
	}
	return true
}

// Map types partsEqual and the content hash handle without reflection.
var (
	stringMapType    = reflect.TypeFor[map[string]string]()
	resourceListType = reflect.TypeFor[corev1.ResourceList]()
)

// mapsEqual is partsEqual for two maps of one type.
func mapsEqual(a, b reflect.Value) bool {
	if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
		return false
	}
	if a.UnsafePointer() == b.UnsafePointer() {
		return true
	}
	if !a.CanInterface() || !b.CanInterface() {
		return false // NB: see partsEqual
	}
	switch a.Type() {
	case stringMapType:
		return stringMapsEqual(a.Interface().(map[string]string), b.Interface().(map[string]string))
	case resourceListType:
		return resourceListsEqual(a.Interface().(corev1.ResourceList), b.Interface().(corev1.ResourceList))
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}

// stringMapsEqual compares two maps of one length.
func stringMapsEqual(a, b map[string]string) bool {
	for k, va := range a {
		if vb, ok := b[k]; !ok || va != vb {
			return false
		}
	}
	return true
}

// resourceListsEqual compares two resource lists of one length.
func resourceListsEqual(a, b corev1.ResourceList) bool {
	for k, qa := range a {
		qb, ok := b[k]
		if !ok || !quantitiesEqual(&qa, &qb) {
			return false
		}
	}
	return true
}

// quantitiesEqual is reflect.DeepEqual for two Quantities.
func quantitiesEqual(a, b *resource.Quantity) bool {
	la, lb := asQuantityLayout(a), asQuantityLayout(b)
	if la == nil || la.d.dec != nil || lb.d.dec != nil {
		return reflect.DeepEqual(*a, *b)
	}
	return la.i == lb.i && lb.d.dec == nil && la.s == lb.s && la.format == lb.format
}
