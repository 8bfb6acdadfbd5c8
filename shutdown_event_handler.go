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
// RemoveEventHandler leaves running.
func ShutDownEventHandler(informer SharedInformer, handle ResourceEventHandlerRegistration) error {
	if err := informer.RemoveEventHandler(handle); err != nil {
		return err
	}
	if l, ok := handle.(*processorListener); ok {
		l.waitStopped()
	}
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
