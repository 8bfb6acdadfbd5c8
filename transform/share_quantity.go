package transform

import (
	"reflect"
	"strings"
	"sync"
	"unsafe"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Shared parts and resource.Quantity. Reading a Quantity is not always
// read-only: AsDec and ToDec convert the Quantity they are called on to
// its inf.Dec form (so does Cmp, through AsDec, when either side is in that
// form), String and protobuf Marshal fill in its cached string. Called on
// a Quantity of a part other pods share, these are writes into every one
// of those pods (a data race between two readers, and reflect.DeepEqual
// then sees them differ from what was decoded).
//
// A Quantity inside a map (resources.limits and requests, overhead,
// allocatedResources) cannot be written that way: a map's values are not
// addressable, so every reader works on its own copy, and a copy of a
// Quantity in its int64 form shares nothing with the original. Such
// Quantities are shared. Every other Quantity of a part (an emptyDir's
// sizeLimit, the divisor of a resourceFieldRef in env, downwardAPI or
// projected items), and any Quantity in its inf.Dec form (whose copies
// share the inf.Dec), keeps its part the pod's own.
// TestReadingQuantitiesOfTwoSharedPodsFromTwoGoroutinesIsNoDataRace pins
// both.

// quantityType is the type pinsQuantity and the content hash look for.
var quantityType = reflect.TypeFor[resource.Quantity]()

// quantityDecIndex is the index path in a Quantity of its *inf.Dec, nil
// unless the Quantity is in its inf.Dec form; nil if the type has no such
// field (a later apimachinery), and every Quantity is then taken for one
// in that form (never shared).
var quantityDecIndex = func() []int {
	d, ok := quantityType.FieldByName("d")
	if !ok || d.Type.Kind() != reflect.Struct {
		return nil
	}
	dec, ok := d.Type.FieldByName("Dec")
	if !ok || dec.Type.Kind() != reflect.Pointer {
		return nil
	}
	return append(d.Index, dec.Index...)
}()

// quantityInDecForm reports whether the Quantity q is (or may be) in its
// inf.Dec form.
func quantityInDecForm(q reflect.Value) bool {
	return quantityDecIndex == nil || !q.FieldByIndex(quantityDecIndex).IsNil()
}

// pinsQuantity reports whether v holds a resource.Quantity outside any map
// (one a reader can call AsDec on in place), which keeps the part v the
// pod's own. It follows only the fields, elements and pointers whose type
// can hold a Quantity, and no map.
func pinsQuantity(v reflect.Value) bool {
	if !mayHoldQuantity(v.Type()) {
		return false
	}
	switch v.Kind() {
	case reflect.Pointer:
		return !v.IsNil() && pinsQuantity(v.Elem())
	case reflect.Struct:
		if v.Type() == quantityType {
			return true
		}
		for i := 0; i < v.NumField(); i++ {
			if pinsQuantity(v.Field(i)) {
				return true
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if pinsQuantity(v.Index(i)) {
				return true
			}
		}
	}
	return false
}

// quantityHolders caches mayHoldQuantity by type.
var quantityHolders sync.Map // reflect.Type -> bool

// mayHoldQuantity reports whether a value of type t can contain a
// resource.Quantity.
func mayHoldQuantity(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Struct, reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
	default:
		return false
	}
	if known, ok := quantityHolders.Load(t); ok {
		return known.(bool)
	}
	quantityHolders.Store(t, false) // NB: breaks cycles of recursive types
	holds := typeHoldsQuantity(t)
	quantityHolders.Store(t, holds)
	return holds
}

// typeHoldsQuantity is mayHoldQuantity, uncached.
func typeHoldsQuantity(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Struct:
		if t == quantityType {
			return true
		}
		for i := 0; i < t.NumField(); i++ {
			if mayHoldQuantity(t.Field(i).Type) {
				return true
			}
		}
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return mayHoldQuantity(t.Elem())
	case reflect.Map:
		return mayHoldQuantity(t.Key()) || mayHoldQuantity(t.Elem())
	}
	return false
}

// internPartStrings interns, in place, the strings of a part that stays
// the pod's own because it pins a Quantity (pinsQuantity): every settable
// string field at any depth through pointers, structs, slices and arrays,
// except inside a Quantity; maps are left alone. It writes a string only
// when it is not its canonical copy already.
func internPartStrings(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if s := v.String(); v.CanSet() {
			if c := internString(s); !sameStringData(c, s) {
				v.SetString(c)
			}
		}
	case reflect.Pointer:
		if !v.IsNil() {
			internPartStrings(v.Elem())
		}
	case reflect.Struct:
		if v.Type() == quantityType {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			internPartStrings(v.Field(i))
		}
	case reflect.Slice, reflect.Array:
		switch v.Type().Elem().Kind() {
		case reflect.String, reflect.Pointer, reflect.Struct, reflect.Slice, reflect.Array:
			for i := 0; i < v.Len(); i++ {
				internPartStrings(v.Index(i))
			}
		}
	}
}

// quantityLayout mirrors the fields of resource.Quantity (its int64
// amount, its *inf.Dec, its cached string, its format), so that the
// sharing tables read a Quantity of a resource list without reflection
// and without copying it to the heap. asQuantityLayout gives nil, and
// the callers fall back to reflection, unless checkQuantityLayout found
// resource.Quantity laid out exactly so.
type quantityLayout struct {
	i struct {
		value int64
		scale int32
	}
	d struct {
		dec unsafe.Pointer
	}
	s      string
	format string
}

// quantityLayoutOK says whether resource.Quantity is laid out as
// quantityLayout.
var quantityLayoutOK = checkQuantityLayout(quantityType, reflect.TypeFor[quantityLayout]())

// asQuantityLayout reads q through quantityLayout, or gives nil.
func asQuantityLayout(q *resource.Quantity) *quantityLayout {
	if !quantityLayoutOK {
		return nil
	}
	return (*quantityLayout)(unsafe.Pointer(q))
}

// checkQuantityLayout reports whether real has the fields of mirror, by
// name (case aside) where mirror is quantityLayout itself, with the same
// kinds (any pointer for an unsafe.Pointer), sizes and offsets at every
// depth.
func checkQuantityLayout(real, mirror reflect.Type) bool {
	if real.Size() != mirror.Size() {
		return false
	}
	if mirror.Kind() == reflect.UnsafePointer {
		return real.Kind() == reflect.Pointer
	}
	if real.Kind() != mirror.Kind() {
		return false
	}
	if real.Kind() != reflect.Struct {
		return true
	}
	if real.NumField() != mirror.NumField() {
		return false
	}
	for i := 0; i < real.NumField(); i++ {
		r, m := real.Field(i), mirror.Field(i)
		if r.Offset != m.Offset || !checkQuantityLayout(r.Type, m.Type) {
			return false
		}
		if mirror.Name() == "quantityLayout" && !strings.EqualFold(r.Name, m.Name) {
			return false
		}
	}
	return true
}
