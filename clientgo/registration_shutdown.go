package clientgo

import (
	kcache "github.com/kcache-go/cache"
)

// ShutdownChan returns a channel that is closed once the handler of r is
// not running and will never be called again. It is what client-go
// v0.37's cache.ShutDownEventHandler asks of a registration: that function
// removes the handler through the informer it is given, then waits on this
// channel, so the call is expected after the removal.
//
// The channel closes when kcache.ShutDownEventHandler, after that removal,
// would return: at once for a handler that never started or was not
// removed (a registration of another informer, while that one runs; client-go
// waits until its informer stops it), once the handler's delivery goroutine
// returned otherwise, and, when the informer has stopped, once it stopped
// all of its handlers. A goroutine waits for that and closes the channel;
// it lives as long as the wait (forever only where client-go waits forever).
//
// NB: defined for client-go v0.37; client-go v0.36 has no such call and
// never uses it. Its result type is a plain channel, so this compiles
// against both.
func (r registrationView) ShutdownChan() <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = kcache.ShutDownEventHandler(alreadyRemoved{r.inf}, r.reg)
	}()
	return done
}

// alreadyRemoved is an informer whose handler the caller has already
// removed: RemoveEventHandler does nothing, everything else (IsStopped,
// which kcache.ShutDownEventHandler reads after removing) is the
// informer's. Immutable.
type alreadyRemoved struct {
	kcache.SharedIndexInformer
}

// RemoveEventHandler does nothing: the handler was removed before.
func (alreadyRemoved) RemoveEventHandler(kcache.ResourceEventHandlerRegistration) error { return nil }
