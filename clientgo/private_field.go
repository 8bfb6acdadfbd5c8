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
	field := privateField(ptr, name)
	out := reflect.ValueOf(dst)
	if !field.IsValid() || out.Kind() != reflect.Pointer || out.IsNil() || field.Type() != out.Elem().Type() {
		return false
	}
	out.Elem().Set(field)
	return true
}

// privateField returns field name of the struct ptr points to, addressable
// and usable as any exported value (the zero Value when ptr is not a
// pointer to a struct with that field). It never panics.
func privateField(ptr any, name string) reflect.Value {
	v := reflect.ValueOf(ptr)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}
	}
	field := v.Elem().FieldByName(name)
	if !field.IsValid() {
		return field
	}
	return reflect.NewAt(field.Type(), unsafe.Pointer(field.UnsafeAddr())).Elem()
}
