package cache

import (
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/klog/v2"
)

// listenerDrainBatch is how many notifications the delivery goroutine takes
// from the ring per lock acquisition.
const listenerDrainBatch = 64

// processorListener relays the notifications of one shared informer to one
// ResourceEventHandler. It is also that handler's
// ResourceEventHandlerRegistration.
//
// The distributor calls add, which only appends to an unbounded ring under a
// short lock and never waits for the handler. One goroutine (run) takes the
// notifications out in order and calls the handler, so the handler sees
// every notification, one at a time, in the order they were added; a slow
// handler only grows its own ring.
//
// Sync tracking: every add with isInInitialList=true counts as outstanding
// until the handler returned from it. The registration has synced once the
// informer has synced (upstream) and nothing initial is outstanding; from then
// on it stays synced, because no later notification is initial.
//
// mu guards pending and stopping. The remaining fields are set at
// construction or are atomics/channels (resync is lock-free).
type processorListener struct {
	// handler receives the notifications.
	handler ResourceEventHandler
	// name identifies the handler in checker names, logs and metrics.
	name string
	// logger is used for messages about this handler.
	logger klog.Logger

	// mu guards pending and stopping.
	mu sync.Mutex
	// pending holds the notifications not yet taken by run.
	pending notificationRing
	// stopping is set by stop; run then exits without delivering the rest.
	stopping bool
	// wake has room for one signal: "pending may be non-empty or stop was
	// requested".
	wake chan struct{}
	// launched is set (under the processor's lock) when the delivery
	// goroutine is started; exited is closed when it has returned.
	launched atomic.Bool
	exited   chan struct{}
	// owner is the processor the listener was added to (set once, by
	// addListener, before the listener is handed out).
	owner *sharedProcessor
	// inFlight is how many notifications run took out of pending and has
	// not finished delivering yet.
	inFlight atomic.Int64
	// backlog reports pending+inFlight; never nil; set before registration.
	backlog GaugeMetric

	// upstream is the informer's sync checker; its channel wakes run.
	upstream DoneChecker
	// upstreamHasSynced is the informer's HasSynced, consulted by HasSynced.
	upstreamHasSynced func() bool
	// initialOutstanding counts initial-list adds not yet delivered.
	initialOutstanding atomic.Int64
	// synced is closed once upstream is done and initialOutstanding is zero.
	synced chan struct{}
	// syncedOnce guards closing synced.
	syncedOnce sync.Once
	// checkerName is the name of the DoneChecker that HasSyncedChecker returns.
	checkerName string

	// requestedResyncPeriod is what the handler asked for; zero means never.
	requestedResyncPeriod time.Duration
	// resync says when this listener is next due for a resync.
	resync resyncSchedule
}

// resyncSchedule is a listener's resync period in effect and its next due
// time. Both are atomics: the informer's resync check reads and advances
// them while handlers are being added, and a listener's schedule is only
// ever advanced by that one check.
type resyncSchedule struct {
	// period is the time.Duration in effect; zero means never.
	period atomic.Int64
	// due is the next due time, in Unix nanoseconds.
	due atomic.Int64
}

// newProcessListener creates a listener for handler. The listener is inert
// until run is started; notifications added before are kept.
//
// upstreamHasSynced may be nil, in which case upstream's channel decides.
// The backlog gauge starts as a no-op; the owner may replace it before the
// listener is registered.
func newProcessListener(logger klog.Logger, handler ResourceEventHandler, requestedResyncPeriod, resyncPeriod time.Duration, now time.Time, upstream DoneChecker, upstreamHasSynced func() bool) *processorListener {
	name := handlerName(handler)
	if upstreamHasSynced == nil {
		upstreamHasSynced = func() bool { return IsDone(upstream) }
	}
	l := &processorListener{
		handler:               handler,
		name:                  name,
		logger:                logger,
		wake:                  make(chan struct{}, 1),
		exited:                make(chan struct{}),
		backlog:               noopMetric{},
		upstream:              upstream,
		upstreamHasSynced:     upstreamHasSynced,
		synced:                make(chan struct{}),
		checkerName:           upstream.Name() + " + event handler " + name,
		requestedResyncPeriod: requestedResyncPeriod,
	}
	l.resync.period.Store(int64(resyncPeriod))
	l.determineNextResync(now)
	return l
}

// add queues n for delivery. It holds the listener's lock only to append and
// never blocks on the handler.
func (l *processorListener) add(n notification) {
	if n.initial {
		l.initialOutstanding.Add(1)
	}
	l.mu.Lock()
	l.pending.push(n)
	depth := l.pending.len()
	l.mu.Unlock()
	l.backlog.Set(float64(depth + int(l.inFlight.Load())))
	l.signal()
}

// signal wakes run without ever blocking.
func (l *processorListener) signal() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// stop asks run to return; notifications still pending are dropped. It does
// not wait for run and may be called more than once.
func (l *processorListener) stop() {
	l.mu.Lock()
	l.stopping = true
	l.mu.Unlock()
	l.signal()
}

// PendingNotifications returns how many notifications this handler has not
// finished processing yet: those queued plus the one being delivered. It is
// the backlog that the pending-notifications metric reports.
func (l *processorListener) PendingNotifications() int {
	l.mu.Lock()
	depth := l.pending.len()
	l.mu.Unlock()
	return depth + int(l.inFlight.Load())
}

// run delivers notifications until stop is called. It must run in exactly
// one goroutine per listener.
func (l *processorListener) run() {
	var batch [listenerDrainBatch]notification
	upstreamDone := l.upstream.Done()
	for {
		n, stopping := l.take(batch[:])
		if stopping {
			return
		}
		if n == 0 {
			select {
			case <-l.wake:
			case <-upstreamDone:
				upstreamDone = nil
				l.markSyncedIfDone()
			}
			continue
		}
		l.deliver(batch[:n])
	}
}

// take moves up to len(dst) pending notifications into dst under the lock
// and reports whether the listener is stopping.
func (l *processorListener) take(dst []notification) (int, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopping {
		return 0, true
	}
	n := l.pending.popInto(dst)
	l.inFlight.Add(int64(n))
	return n, false
}

// deliver calls the handler for each notification in order, clearing each
// slot afterwards, and keeps the sync tracking and backlog figures current.
func (l *processorListener) deliver(batch []notification) {
	for i := range batch {
		n := &batch[i]
		n.deliverTo(l.handler)
		if n.initial && l.initialOutstanding.Add(-1) == 0 {
			l.markSyncedIfDone()
		}
		*n = notification{}
		l.inFlight.Add(-1)
	}
	l.backlog.Set(float64(l.PendingNotifications()))
}

// HasSynced reports if both the parent has synced and all pre-sync
// events have been delivered. The listener's goroutine records that moment,
// so a listener that never ran (e.g. removed before the informer started)
// never reports synced.
func (l *processorListener) HasSynced() bool {
	select {
	case <-l.synced:
		return true
	default:
		return false
	}
}

// HasSyncedChecker reports if both the parent has synced and all pre-sync
// events have been delivered. Its channel is the one HasSynced reads.
func (l *processorListener) HasSyncedChecker() DoneChecker {
	return listenerSyncChecker{l}
}

// markSyncedIfDone closes the synced channel once the informer has synced
// and no initial notification is outstanding. Only run calls it.
func (l *processorListener) markSyncedIfDone() {
	if l.upstreamHasSynced() && l.initialOutstanding.Load() == 0 {
		l.syncedOnce.Do(func() { close(l.synced) })
	}
}

// listenerSyncChecker is the DoneChecker view of a listener's sync state.
type listenerSyncChecker struct {
	// l is the listener whose sync state is reported.
	l *processorListener
}

// Name names the informer and the handler.
func (c listenerSyncChecker) Name() string { return c.l.checkerName }

// Done is closed once the listener has synced.
func (c listenerSyncChecker) Done() <-chan struct{} { return c.l.synced }

// shouldResync reports whether the listener is due for a resync at now.
func (l *processorListener) shouldResync(now time.Time) bool {
	if l.resync.period.Load() == 0 {
		return false
	}
	return now.UnixNano() >= l.resync.due.Load()
}

// determineNextResync schedules the next resync one period after now.
func (l *processorListener) determineNextResync(now time.Time) {
	period := time.Duration(l.resync.period.Load())
	l.resync.due.Store(now.Add(period).UnixNano())
}

// setResyncPeriod changes the period in effect; the next due time is not
// moved.
func (l *processorListener) setResyncPeriod(resyncPeriod time.Duration) {
	l.resync.period.Store(int64(resyncPeriod))
}

// requestedPeriod returns the resync period the handler asked for; it never
// changes.
func (l *processorListener) requestedPeriod() time.Duration { return l.requestedResyncPeriod }
