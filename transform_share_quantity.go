package cache

import (
	"reflect"
	"sync"
	"unsafe"

	"k8s.io/apimachinery/pkg/api/resource"
)

// quantityType is the type settleQuantities looks for.
var quantityType = reflect.TypeFor[resource.Quantity]()

// settleQuantities fills in the cached string of every resource.Quantity
// in v (resource.Quantity.String computes it once and keeps it), so that
// the part v will share never has a Quantity whose String, or whose
// protobuf Marshal, writes: a reader marshalling one cached pod would
// otherwise write into a part other pods share while a transform reads it,
// a data race, and the part would then no longer equal the next pod's
// (whose string is not filled in yet). It writes only to v, which the
// transform owns (a part that is not canonical yet), and only a Quantity
// whose string is empty: the content, its JSON and its protobuf form stay
// the same. A Quantity in a map is written back into the map.
func settleQuantities(v reflect.Value) {
	if !mayHoldQuantity(v.Type()) {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			settleQuantities(v.Elem())
		}
	case reflect.Struct:
		if v.Type() == quantityType {
			settleQuantity(v)
			return
		}
		for i := 0; i < v.NumField(); i++ {
			settleQuantities(v.Field(i))
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			settleQuantities(v.Index(i))
		}
	case reflect.Map:
		settleMapQuantities(v)
	}
}

// settleQuantity fills in the string of q, an addressable Quantity.
func settleQuantity(q reflect.Value) {
	if !q.CanAddr() {
		return
	}
	p := (*resource.Quantity)(unsafe.Pointer(q.UnsafeAddr()))
	_ = p.String()
}

// settleMapQuantities settles the values of map m, writing back every
// value it changed.
func settleMapQuantities(m reflect.Value) {
	if m.IsNil() || !mayHoldQuantity(m.Type().Elem()) {
		return
	}
	for it := m.MapRange(); it.Next(); {
		value := reflect.New(m.Type().Elem()).Elem()
		value.Set(it.Value())
		settleQuantities(value)
		if !reflect.DeepEqual(value.Interface(), it.Value().Interface()) {
			m.SetMapIndex(it.Key(), value)
		}
	}
}

// quantityHolders caches mayHoldQuantity by type.
var quantityHolders sync.Map // reflect.Type -> bool

// mayHoldQuantity reports whether a value of type t can contain a
// resource.Quantity, so that settleQuantities skips the parts that cannot.
func mayHoldQuantity(t reflect.Type) bool {
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
