package clientgo

import (
	"reflect"
	"unsafe"
)

// readPrivateField copies field name of the struct ptr points to into the
// variable dst points to, when the field exists and has exactly dst's
// element type; it reports whether it did. It reads, never writes, the
// struct, and never panics.
//
// NB: client-go's informer factories take their settings as
// SharedInformerOption, a function of an unexported struct, and hand
// informers a ListerWatcher only inside the client-go informer they build;
// neither is reachable through an exported API. The factories of this
// package apply the options to a client-go factory (and call the typed
// informer constructors) exactly as client-go would, then read the
// resulting settings here. Tests pin every field read, so a client-go
// release that renames one fails them instead of silently losing a setting.
func readPrivateField(ptr any, name string, dst any) bool {
	field, ok := privateField(ptr, name)
	out := reflect.ValueOf(dst)
	if !ok || out.Kind() != reflect.Pointer || out.IsNil() || field.Type() != out.Elem().Type() {
		return false
	}
	out.Elem().Set(field)
	return true
}

// privateField returns field name of the struct ptr points to, readable
// (Interface, MapRange) although unexported; ok is false when ptr is not a
// non-nil pointer to a struct with such a field. The value must only be
// read (see readPrivateField).
func privateField(ptr any, name string) (reflect.Value, bool) {
	v := reflect.ValueOf(ptr)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	field := v.Elem().FieldByName(name)
	if !field.IsValid() {
		return reflect.Value{}, false
	}
	return reflect.NewAt(field.Type(), unsafe.Pointer(field.UnsafeAddr())).Elem(), true
}
