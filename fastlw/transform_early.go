package fastlw

import (
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// earlyTransform applies Config.Transform on a decode worker (see its doc):
// nil means no early pass.
type earlyTransform func(obj interface{}) (interface{}, error)

// event returns the object a watch event of type t carries after the early
// pass: obj itself for bookmarks, ERROR events, a nil transform, an error or
// a result of another type than obj's.
func (t earlyTransform) event(eventType watch.EventType, obj runtime.Object) runtime.Object {
	if t == nil || obj == nil {
		return obj
	}
	switch eventType {
	case watch.Added, watch.Modified, watch.Deleted:
	default:
		return obj
	}
	out, err := t(obj)
	if err != nil {
		return obj
	}
	if o, ok := out.(runtime.Object); ok && o != nil && reflect.TypeOf(o) == reflect.TypeOf(obj) {
		return o
	}
	return obj
}

// items applies the early pass to every element of items, a slice of list
// items (structs, as in a typed list's Items, or pointers). A result of the
// element's type (or a pointer to it) replaces the element; any other
// result, and an error, leave the element as the transform left it.
func (t earlyTransform) items(items reflect.Value) {
	if t == nil {
		return
	}
	for i := range items.Len() {
		elem := items.Index(i)
		arg := elem
		if elem.Kind() != reflect.Pointer {
			arg = elem.Addr()
		}
		out, err := t(arg.Interface())
		if err != nil || out == nil {
			continue
		}
		v := reflect.ValueOf(out)
		switch {
		case v.Type() == arg.Type() && v.Pointer() == arg.Pointer():
		case v.Type() == elem.Type():
			elem.Set(v)
		case v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Type() == elem.Type():
			elem.Set(v.Elem())
		}
	}
}
