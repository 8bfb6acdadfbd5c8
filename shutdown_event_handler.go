package cache

// ShutDownEventHandler removes the handler of handle from informer, like
// informer.RemoveEventHandler, and then blocks until the handler's
// delivery goroutine has returned: when it returns, the handler is not
// running and will never be called again. Notifications not yet delivered
// are dropped.
//
// It is safe for concurrent use and may be called more than once. It must
// not be called from inside the handler's own callbacks: that deadlocks.
// It returns RemoveEventHandler's error without waiting. It returns at once
// when the handler was never started (removed before the informer ran),
// and, unlike client-go (which then blocks until that informer stops the
// handler), when handle is a registration of another informer, which
// RemoveEventHandler leaves running, while informer has not stopped.
//
// Once informer IsStopped, RemoveEventHandler does nothing, but informer
// may still be stopping its handlers: ShutDownEventHandler then waits until
// the processor that handle belongs to has stopped all of its handlers
// (for a registration of another informer: until that one stops, forever
// if it never runs, as client-go does).
func ShutDownEventHandler(informer SharedInformer, handle ResourceEventHandlerRegistration) error {
	if err := informer.RemoveEventHandler(handle); err != nil {
		return err
	}
	l, ok := handle.(*processorListener)
	if !ok {
		return nil
	}
	// NB: IsStopped is read after RemoveEventHandler: when it is false
	// here, RemoveEventHandler ran before the informer stopped, and so
	// either removed l (stopping it) or found it was not registered.
	if informer.IsStopped() && l.owner != nil {
		l.owner.waitFinished()
		return nil
	}
	l.waitStopped()
	return nil
}

// waitStopped blocks until the delivery goroutine has returned, if it was
// started and asked to stop; otherwise it returns at once. It takes l.mu
// only to read stopping, never while waiting.
//
// NB: launched is written under the processor's lock before the listener
// can be removed, and removal (which sets stopping) takes that lock too, so
// a listener that was removed after it was started is seen as launched.
func (l *processorListener) waitStopped() {
	l.mu.Lock()
	stopping := l.stopping
	l.mu.Unlock()
	if stopping && l.launched.Load() {
		<-l.exited
	}
}
