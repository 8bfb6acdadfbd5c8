package clientgo

import (
	"reflect"
	"strings"

	clientgocache "k8s.io/client-go/tools/cache"
)

// sharedIndexInformerType is the interface type client-go's typed wrapper
// embeds.
var sharedIndexInformerType = reflect.TypeFor[clientgocache.SharedIndexInformer]()

// clientGoTypedWrapper recognises client-go v0.37's typed informer
// wrapper: what cache.NewTypedSharedIndexInformer returns, and so what
// v0.37's typed constructors (coreinformers.NewPodInformer, …) return. It
// is a pointer to a struct of client-go's tools/cache named
// typedSharedIndexInformer[…] whose one field is the SharedIndexInformer it
// wraps, embedded. It returns that wrapped informer and rewrap, which puts
// another informer in a new wrapper of the same type (so it still
// satisfies cache.TypedSharedIndexInformer[T] of the same T); ok is false
// for anything else.
//
// NB: this package is compiled against client-go v0.36, which has no such
// type, so the wrapper is recognised by its shape and rebuilt by
// reflection (setting its one exported field); it never reads or writes an
// unexported field.
func clientGoTypedWrapper(inf any) (wrapped clientgocache.SharedIndexInformer, rewrap func(clientgocache.SharedIndexInformer) clientgocache.SharedIndexInformer, ok bool) {
	t := reflect.TypeOf(inf)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil, nil, false
	}
	st := t.Elem()
	if st.PkgPath() != sharedIndexInformerType.PkgPath() || !strings.HasPrefix(st.Name(), "typedSharedIndexInformer[") ||
		st.NumField() != 1 || !st.Field(0).Anonymous || st.Field(0).Type != sharedIndexInformerType {
		return nil, nil, false
	}
	v := reflect.ValueOf(inf)
	if v.IsNil() {
		return nil, nil, false
	}
	wrapped, _ = v.Elem().Field(0).Interface().(clientgocache.SharedIndexInformer)
	if wrapped == nil {
		return nil, nil, false
	}
	rewrap = func(other clientgocache.SharedIndexInformer) clientgocache.SharedIndexInformer {
		out := reflect.New(st)
		out.Elem().Field(0).Set(reflect.ValueOf(&other).Elem())
		return out.Interface().(clientgocache.SharedIndexInformer)
	}
	return wrapped, rewrap, true
}
