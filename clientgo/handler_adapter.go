package clientgo

import (
	"fmt"

	clientgocache "k8s.io/client-go/tools/cache"

	kcache "github.com/kcache-go/cache"
)

// handlerAdapter is a kcache ResourceEventHandler that forwards to a
// client-go one, converting kcache tombstones into client-go's on delivery.
// It is immutable.
type handlerAdapter struct {
	h clientgocache.ResourceEventHandler
}

var _ kcache.ResourceEventHandler = handlerAdapter{}

// OnAdd forwards unchanged.
func (a handlerAdapter) OnAdd(obj interface{}, isInInitialList bool) {
	a.h.OnAdd(obj, isInInitialList)
}

// OnUpdate forwards unchanged.
func (a handlerAdapter) OnUpdate(oldObj, newObj interface{}) { a.h.OnUpdate(oldObj, newObj) }

// OnDelete forwards obj, a kcache DeletedFinalStateUnknown converted field
// by field into client-go's.
func (a handlerAdapter) OnDelete(obj interface{}) { a.h.OnDelete(ToClientGoTombstone(obj)) }

// adaptHandler returns the kcache handler that delivers to h. A client-go
// ResourceEventHandlerFuncs becomes kcache's ResourceEventHandlerFuncs with
// the same AddFunc and UpdateFunc (and a DeleteFunc converting tombstones),
// so that kcache names the handler after the user's functions, as client-go
// does, in registration DoneChecker names, logs and metrics. Any other
// handler is wrapped in a handlerAdapter; nil stays nil, so kcache names it
// "<nil>" as client-go does (and calls it as client-go would).
func adaptHandler(h clientgocache.ResourceEventHandler) kcache.ResourceEventHandler {
	if h == nil {
		return nil
	}
	funcs, ok := h.(clientgocache.ResourceEventHandlerFuncs)
	if !ok {
		return handlerAdapter{h}
	}
	out := kcache.ResourceEventHandlerFuncs{AddFunc: funcs.AddFunc, UpdateFunc: funcs.UpdateFunc}
	if deleteFunc := funcs.DeleteFunc; deleteFunc != nil {
		out.DeleteFunc = func(obj interface{}) { deleteFunc(ToClientGoTombstone(obj)) }
	}
	return out
}

// Format formats the adapter as the handler it wraps, so kcache's messages
// that name a handler ("handler %v was not added ...") read as client-go's.
func (a handlerAdapter) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, fmt.FormatString(f, verb), a.h)
}

// ToClientGoTombstone returns obj with a kcache DeletedFinalStateUnknown
// converted into client-go's (same Key and Obj); any other value is
// returned unchanged. It allocates only for tombstones.
func ToClientGoTombstone(obj interface{}) interface{} {
	if t, ok := obj.(kcache.DeletedFinalStateUnknown); ok {
		return clientgocache.DeletedFinalStateUnknown{Key: t.Key, Obj: t.Obj}
	}
	return obj
}

// FromClientGoTombstone is the inverse of ToClientGoTombstone: client-go's
// DeletedFinalStateUnknown becomes kcache's, anything else is unchanged.
func FromClientGoTombstone(obj interface{}) interface{} {
	if t, ok := obj.(clientgocache.DeletedFinalStateUnknown); ok {
		return kcache.DeletedFinalStateUnknown{Key: t.Key, Obj: t.Obj}
	}
	return obj
}
