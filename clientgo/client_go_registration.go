package clientgo

import (
	"reflect"
	"sync"

	corev1 "k8s.io/api/core/v1"
	clientgocache "k8s.io/client-go/tools/cache"
)

// clientGoRegistrationType is the dynamic type of the registrations
// client-go's informers return from AddEventHandler*, learnt once from a
// handler added to an informer built (never run) for that purpose.
var clientGoRegistrationType = sync.OnceValue(func() reflect.Type {
	inf := clientgocache.NewSharedIndexInformer(&clientgocache.ListWatch{}, &corev1.Pod{}, 0, nil)
	reg, err := inf.AddEventHandler(clientgocache.ResourceEventHandlerFuncs{})
	if err != nil {
		panic("clientgo: client-go refused a handler on an informer never run: " + err.Error())
	}
	return reflect.TypeOf(reg)
})

// isClientGoRegistration reports whether handle is a registration a
// client-go informer returned (non-nil).
func isClientGoRegistration(handle clientgocache.ResourceEventHandlerRegistration) bool {
	return handle != nil && reflect.TypeOf(handle) == clientGoRegistrationType()
}
