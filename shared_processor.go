package cache

import (
	"context"
	"slices"
	"sync"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// listenerEntry is one registered listener and its resync membership.
type listenerEntry struct {
	// listener receives the notifications.
	listener *processorListener
	// syncing is true when the listener receives resync notifications: from
	// registration until the next resync check, and afterwards whenever the
	// last check found it due.
	syncing bool
}

// sharedProcessor fans notifications out to the listeners of one shared
// informer and decides which of them take part in a resync.
//
// mu guards listeners, started and finished. The listener goroutines are
// tracked by wg.
type sharedProcessor struct {
	// clock decides when listeners are due for resync.
	clock clock.Clock

	// mu guards listeners and started; distribute takes it for reading.
	mu sync.RWMutex
	// listeners holds the registered listeners in registration order.
	listeners []listenerEntry
	// started is true once run has started the listener goroutines.
	started bool
	// finished is closed when run has stopped every listener and waited for
	// its goroutine; made on first use by finishedLocked.
	finished chan struct{}
	// wg counts running listener goroutines.
	wg sync.WaitGroup
}

// addListener registers l, as a member of the next resync, and starts its
// goroutine if the processor runs.
func (p *sharedProcessor) addListener(l *processorListener) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l.owner = p
	p.listeners = append(p.listeners, listenerEntry{listener: l, syncing: true})
	if p.started {
		p.startLocked(l)
	}
}

// removeListener unregisters l and stops its goroutine; pending
// notifications of l are dropped. It reports whether l was registered.
func (p *sharedProcessor) removeListener(l *processorListener) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := slices.IndexFunc(p.listeners, func(e listenerEntry) bool { return e.listener == l })
	if i < 0 {
		return false
	}
	p.listeners = slices.Delete(p.listeners, i, i+1)
	if p.started {
		l.stop()
	}
	return true
}

// startLocked starts the delivery goroutine of l. p.mu must be held.
func (p *sharedProcessor) startLocked(l *processorListener) {
	p.wg.Add(1)
	l.launched.Store(true)
	go func() {
		defer p.wg.Done()
		defer close(l.exited)
		l.run()
	}()
}

// distribute hands n to every listener, or, when isSync is true, only to the
// listeners taking part in the current resync. It never waits for a handler.
func (p *sharedProcessor) distribute(n notification, isSync bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	for i := range p.listeners {
		if !isSync || p.listeners[i].syncing {
			p.listeners[i].listener.add(n)
		}
	}
}

// run starts every listener and blocks until ctx ends; it then stops all
// listeners and waits for their goroutines to return.
func (p *sharedProcessor) run(ctx context.Context) {
	p.mu.Lock()
	for _, e := range p.listeners {
		p.startLocked(e.listener)
	}
	p.started = true
	p.mu.Unlock()

	<-ctx.Done()

	p.mu.Lock()
	for _, e := range p.listeners {
		e.listener.stop()
	}
	p.mu.Unlock()
	p.wg.Wait()

	p.mu.Lock()
	close(p.finishedLocked())
	p.mu.Unlock()
}

// finishedLocked returns the channel run closes once every listener
// goroutine it started has returned, making it if needed. p.mu must be held.
func (p *sharedProcessor) finishedLocked() chan struct{} {
	if p.finished == nil {
		p.finished = make(chan struct{})
	}
	return p.finished
}

// waitFinished blocks until run has stopped every listener and waited for
// its goroutine. It never returns for a processor that never runs.
func (p *sharedProcessor) waitFinished() {
	p.mu.Lock()
	finished := p.finishedLocked()
	p.mu.Unlock()
	<-finished
}

// shouldResync recomputes which listeners take part in a resync now: those
// whose next resync time has come, each then rescheduled. It reports whether
// any listener is due.
func (p *sharedProcessor) shouldResync() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.clock.Now()
	due := false
	for i := range p.listeners {
		l := p.listeners[i].listener
		p.listeners[i].syncing = l.shouldResync(now)
		if p.listeners[i].syncing {
			due = true
			l.determineNextResync(now)
		}
	}
	return due
}

// resyncCheckPeriodChanged recomputes every listener's resync period for a
// new informer check period, warning through logger (that of the handler
// whose request changed the check period, as in client-go) when a
// (negative) request is raised to the check period.
func (p *sharedProcessor) resyncCheckPeriodChanged(logger klog.Logger, checkPeriod time.Duration) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	for _, e := range p.listeners {
		requested := e.listener.requestedPeriod()
		if requested != 0 && requested < checkPeriod {
			logger.Info("Warning: the specified resyncPeriod is being increased to the minimum resyncCheckPeriod", "desired", requested, "resyncCheckPeriod", checkPeriod)
		}
		e.listener.setResyncPeriod(determineResyncPeriod(requested, checkPeriod))
	}
}

// upstreamSynced tells every listener that the informer has synced, so that
// a listener whose handler is busy with a backlog syncs at once.
//
// NB: the listeners are asked after p.mu is released: markSyncedIfDone asks
// the informer whether it synced, which takes the informer's lock, and
// AddEventHandler holds that lock while it takes p.mu.
func (p *sharedProcessor) upstreamSynced() {
	p.mu.RLock()
	var listeners []*processorListener
	if p.started {
		listeners = make([]*processorListener, len(p.listeners))
		for i, e := range p.listeners {
			listeners[i] = e.listener
		}
	}
	p.mu.RUnlock()
	for _, l := range listeners {
		l.markSyncedIfDone()
	}
}

// isRegistered reports whether l is one of the processor's listeners.
func (p *sharedProcessor) isRegistered(l *processorListener) bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return slices.ContainsFunc(p.listeners, func(e listenerEntry) bool { return e.listener == l })
}

// determineResyncPeriod returns the period a listener that asked for desired
// resyncs at when the informer checks every checkPeriod: never if either is
// zero, otherwise the longer of the two.
func determineResyncPeriod(desired, checkPeriod time.Duration) time.Duration {
	if desired == 0 || checkPeriod == 0 {
		return 0
	}
	return max(desired, checkPeriod)
}
