package cache

import (
	"encoding/binary"
	"hash/maphash"
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
func contentHash(v reflect.Value) uint64 {
	var h maphash.Hash
	h.SetSeed(shareSeed)
	hashValue(&h, v)
	return h.Sum64()
}

// hashValue writes the content of v to h, field by field and element by
// element; map entries are combined in an order-independent way.
func hashValue(h *maphash.Hash, v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		hashUint(h, uint64(len(s)))
		h.WriteString(s)
	case reflect.Bool:
		hashBool(h, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		hashUint(h, uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		hashUint(h, v.Uint())
	case reflect.Float32, reflect.Float64:
		hashUint(h, math.Float64bits(v.Float()))
	case reflect.Pointer, reflect.Interface:
		hashBool(h, !v.IsNil())
		if !v.IsNil() {
			hashValue(h, v.Elem())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			hashValue(h, v.Field(i))
		}
	case reflect.Slice:
		hashBool(h, !v.IsNil())
		hashElements(h, v)
	case reflect.Array:
		hashElements(h, v)
	case reflect.Map:
		hashBool(h, !v.IsNil())
		hashMap(h, v)
	default: // chan, func, complex: not in API types; DeepEqual decides
		hashUint(h, uint64(v.Kind()))
	}
}

// hashElements writes the length and every element of a slice or array.
func hashElements(h *maphash.Hash, v reflect.Value) {
	hashUint(h, uint64(v.Len()))
	for i := 0; i < v.Len(); i++ {
		hashValue(h, v.Index(i))
	}
}

// hashMap writes the length of map v and the sum of its entries' hashes,
// which does not depend on the iteration order.
func hashMap(h *maphash.Hash, v reflect.Value) {
	hashUint(h, uint64(v.Len()))
	var sum uint64
	for it := v.MapRange(); it.Next(); {
		var e maphash.Hash
		e.SetSeed(shareSeed)
		hashValue(&e, it.Key())
		hashValue(&e, it.Value())
		sum += e.Sum64()
	}
	hashUint(h, sum)
}

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
