package transform

import (
	"encoding/binary"
	"hash/maphash"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"math"
	"reflect"
)

// shareSeed seeds every content hash of the canonical tables: one seed per
// process, so equal contents always hash alike.
var shareSeed = maphash.MakeSeed()

// contentHash is a hash of the content of v that agrees with
// reflect.DeepEqual: values DeepEqual reports equal hash alike (nil and
// empty maps and slices hash differently, and so do a nil and a non-nil
// pointer). Unequal values may collide; the canonical tables confirm
// every match with reflect.DeepEqual. It reads v and writes nothing, not
// even the caches some types keep (resource.Quantity's string, which its
// protobuf Marshal fills in: a write to a cached object, hence not used).
// shareable is false when v holds a resource.Quantity that a reader could
// write (see share_quantity.go): one not inside a map (or behind
// a pointer a map holds), or one in its inf.Dec form.
func contentHash(v reflect.Value) (hash uint64, shareable bool) {
	var h contentHasher
	h.h.SetSeed(shareSeed)
	h.value(v)
	return h.h.Sum64(), !h.writable
}

// contentHasher is the state of one contentHash.
type contentHasher struct {
	h maphash.Hash
	// inMap is true while the value being hashed is a copy for every
	// reader: inside a map, and not behind a pointer.
	inMap bool
	// writable is set once a Quantity a reader could write was found.
	writable bool
}

// value writes the content of v, field by field and element by element;
// map entries are combined in an order-independent way.
func (h *contentHasher) value(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		h.uint(uint64(len(s)))
		h.h.WriteString(s)
	case reflect.Bool:
		h.bool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		h.uint(uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		h.uint(v.Uint())
	case reflect.Float32, reflect.Float64:
		h.uint(math.Float64bits(v.Float()))
	case reflect.Pointer, reflect.Interface:
		h.bool(!v.IsNil())
		if !v.IsNil() {
			inMap := h.inMap
			h.inMap = false
			h.value(v.Elem())
			h.inMap = inMap
		}
	case reflect.Struct:
		if v.Type() == quantityType && (!h.inMap || quantityInDecForm(v)) {
			h.writable = true
		}
		for i := 0; i < v.NumField(); i++ {
			h.value(v.Field(i))
		}
	case reflect.Slice:
		h.bool(!v.IsNil())
		h.elements(v)
	case reflect.Array:
		h.elements(v)
	case reflect.Map:
		h.bool(!v.IsNil())
		if !h.typedMap(v) {
			h.mapEntries(v)
		}
	default: // chan, func, complex: not in API types; DeepEqual decides
		h.uint(uint64(v.Kind()))
	}
}

// elements writes the length and every element of a slice or array.
func (h *contentHasher) elements(v reflect.Value) {
	h.uint(uint64(v.Len()))
	for i := 0; i < v.Len(); i++ {
		h.value(v.Index(i))
	}
}

// mapEntries writes the length of map v and the sum of its entries'
// hashes, which does not depend on the iteration order.
func (h *contentHasher) mapEntries(v reflect.Value) {
	h.uint(uint64(v.Len()))
	var sum uint64
	for it := v.MapRange(); it.Next(); {
		e := contentHasher{inMap: true}
		e.h.SetSeed(shareSeed)
		e.value(it.Key())
		e.value(it.Value())
		sum += e.h.Sum64()
		h.writable = h.writable || e.writable
	}
	h.uint(sum)
}

// typedMap writes what mapEntries would write for a map of strings to
// strings or a resource list (another sum of entry hashes), without
// reflection, and reports false for a map of another type.
func (h *contentHasher) typedMap(v reflect.Value) bool {
	if !v.CanInterface() {
		return false
	}
	var sum uint64
	switch v.Type() {
	case stringMapType:
		for k, e := range v.Interface().(map[string]string) {
			sum += mixPair(maphash.String(shareSeed, k), maphash.String(shareSeed, e))
		}
	case resourceListType:
		if !quantityLayoutOK {
			return false
		}
		for k, q := range v.Interface().(corev1.ResourceList) {
			qh, decForm := quantityHash(&q)
			h.writable = h.writable || decForm
			sum += mixPair(maphash.String(shareSeed, string(k)), qh)
		}
	default:
		return false
	}
	h.uint(uint64(v.Len()))
	h.uint(sum)
	return true
}

// quantityHash hashes the fields of q that reflect.DeepEqual compares
// (but an inf.Dec's content), and reports whether q is in its inf.Dec
// form; quantityLayoutOK is true.
func quantityHash(q *resource.Quantity) (hash uint64, decForm bool) {
	l := asQuantityLayout(q)
	x := mix64(uint64(l.i.value))
	x = mix64(x ^ uint64(uint32(l.i.scale)))
	x = mix64(x ^ maphash.String(shareSeed, l.s))
	return mix64(x ^ maphash.String(shareSeed, l.format)), l.d.dec != nil
}

// mix64 is a 64-bit finaliser (splitmix64's).
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// mixPair combines the hashes of a map entry's key and value.
func mixPair(k, v uint64) uint64 { return mix64(k ^ mix64(v+0x9e3779b97f4a7c15)) }

func (h *contentHasher) uint(u uint64) { hashUint(&h.h, u) }

func (h *contentHasher) bool(b bool) { hashBool(&h.h, b) }

func hashUint(h *maphash.Hash, u uint64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], u)
	_, _ = h.Write(b[:])
}

func hashBool(h *maphash.Hash, b bool) {
	if b {
		_ = h.WriteByte(1)
	} else {
		_ = h.WriteByte(0)
	}
}
