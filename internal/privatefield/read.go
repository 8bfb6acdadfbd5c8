package privatefield

import (
	"reflect"
	"sync"
	"unsafe"
)

// Read returns a copy of the field of the struct ptr points to found by
// following path, exported or not, when it has exactly type T; false
// otherwise (see the package documentation), and T's zero value.
func Read[T any](ptr any, path ...string) (T, bool) {
	var zero T
	field, ok := locate(ptr, path)
	if !ok || field.Type() != reflect.TypeFor[T]() {
		return zero, false
	}
	return *(*T)(unsafe.Pointer(field.UnsafeAddr())), true
}

// Value returns a copy of the field of the struct ptr points to found by
// following path, as a reflect.Value that can be read (Interface, Len,
// MapRange, Elem); false when there is none. It is for fields whose type
// is unexported (a map or a pointer of client-go's own types), which Read
// cannot name. Setting the copy changes nothing of ptr's, but a map or a
// pointer copied still refers to client-go's: only read through it.
func Value(ptr any, path ...string) (reflect.Value, bool) {
	field, ok := locate(ptr, path)
	if !ok {
		return reflect.Value{}, false
	}
	readable := reflect.NewAt(field.Type(), unsafe.Pointer(field.UnsafeAddr())).Elem()
	out := reflect.New(field.Type()).Elem()
	out.Set(readable)
	return out, true
}

// RWMutex returns the sync.RWMutex that is the field of the struct ptr
// points to found by following path; false when there is none, or the
// field is of another type. It is only to be read-locked (RLock, RUnlock)
// around reading the fields it guards.
func RWMutex(ptr any, path ...string) (*sync.RWMutex, bool) {
	field, ok := locate(ptr, path)
	if !ok || field.Type() != reflect.TypeFor[sync.RWMutex]() {
		return nil, false
	}
	return (*sync.RWMutex)(unsafe.Pointer(field.UnsafeAddr())), true
}

// locate returns the addressable field found by following path from the
// struct ptr points to; false when ptr is not a non-nil pointer to a
// struct, path is empty, or a step of it fails (see step).
func locate(ptr any, path []string) (reflect.Value, bool) {
	v := reflect.ValueOf(ptr)
	if len(path) == 0 {
		return reflect.Value{}, false
	}
	for _, name := range path {
		var ok bool
		if v, ok = step(v, name); !ok {
			return reflect.Value{}, false
		}
	}
	return v, true
}

// step returns the field name of the struct v is or v points to (a non-nil
// pointer); false when there is no such field, it is ambiguous, or it is
// promoted through a nil embedded pointer.
func step(v reflect.Value, name string) (reflect.Value, bool) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return reflect.Value{}, false
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct || !v.CanAddr() {
		return reflect.Value{}, false
	}
	field, ok := v.Type().FieldByName(name)
	if !ok {
		return reflect.Value{}, false
	}
	found, err := v.FieldByIndexErr(field.Index)
	if err != nil {
		return reflect.Value{}, false
	}
	return found, true
}
