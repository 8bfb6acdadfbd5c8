package clientgo

import (
	"context"

	clientgocache "k8s.io/client-go/tools/cache"

	kcache "github.com/kcache-go/cache"
)

// registrationView is the client-go face of a kcache handler registration
// reg, made by informer inf; RemoveEventHandler of a view unwraps it.
// Immutable, comparable.
type registrationView struct {
	reg kcache.ResourceEventHandlerRegistration
	inf kcache.SharedIndexInformer
}

// wrapRegistration wraps what the kcache informer's AddEventHandler*
// returned; a nil registration (the error case) stays a nil interface.
func (v *informerView) wrapRegistration(reg kcache.ResourceEventHandlerRegistration, err error) (clientgocache.ResourceEventHandlerRegistration, error) {
	if reg == nil {
		return nil, err
	}
	return registrationView{reg: reg, inf: v.inf}, err
}

// HasSynced forwards.
func (r registrationView) HasSynced() bool { return r.reg.HasSynced() }

// HasSyncedChecker forwards; kcache's DoneChecker has client-go's method set.
func (r registrationView) HasSyncedChecker() clientgocache.DoneChecker {
	return r.reg.HasSyncedChecker()
}

// controllerView is the client-go face of a kcache Controller. Immutable.
type controllerView struct {
	c kcache.Controller
}

// Run forwards.
func (c controllerView) Run(stopCh <-chan struct{}) { c.c.Run(stopCh) }

// RunWithContext forwards.
func (c controllerView) RunWithContext(ctx context.Context) { c.c.RunWithContext(ctx) }

// HasSynced forwards.
func (c controllerView) HasSynced() bool { return c.c.HasSynced() }

// HasSyncedChecker forwards.
func (c controllerView) HasSyncedChecker() clientgocache.DoneChecker { return c.c.HasSyncedChecker() }

// LastSyncResourceVersion forwards.
func (c controllerView) LastSyncResourceVersion() string { return c.c.LastSyncResourceVersion() }

// ControllerView returns a kcache Controller (from kcache.New or
// kcache.NewInformer) as client-go's cache.Controller. A nil c gives nil.
func ControllerView(c kcache.Controller) clientgocache.Controller {
	if c == nil {
		return nil
	}
	return controllerView{c}
}
