package cache

import (
	"sync"
	"sync/atomic"
	"time"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"

	"github.com/kcache-go/cache/internal/ring"
)

// listenerDrainBatch is how many notifications the delivery goroutine takes
// from the ring per lock acquisition.
const listenerDrainBatch = 64

// listenerPanicPause is how long a listener waits after a handler panic
// was recovered (utilruntime.ReallyCrash false) before it delivers again.
const listenerPanicPause = time.Second

// processorListener relays the notifications of one shared informer to one
// ResourceEventHandler. It is also that handler's
// ResourceEventHandlerRegistration.
//
// The distributor calls add, which only appends to an unbounded ring under a
// short lock and never waits for the handler. One goroutine (run) takes the
// notifications out in order and calls the handler, so the handler sees
// every notification, one at a time, in the order they were added; a slow
// handler only grows its own ring, which gives the memory back once drained
// (see ring.Backlog). run takes up to listenerDrainBatch
// notifications per lock acquisition but checks for stop before each
// delivery: once stop returned, at most the one notification already being
// delivered reaches the handler.
//
// Panics: each delivery runs under utilruntime.HandleCrashWithLogger with
// the listener's logger ("Observed a panic", every utilruntime.PanicHandlers
// entry). With utilruntime.ReallyCrash true the panic is re-raised; otherwise
// the notification is lost and run delivers the next one listenerPanicPause
// after it arrived. A lost initial notification keeps the registration
// unsynced.
//
// Sync tracking: every add with isInInitialList=true counts as outstanding
// until the handler returned from it. The registration has synced once the
// informer has synced (upstream) and nothing initial is outstanding; from then
// on it stays synced, because no later notification is initial. The moment
// is noticed by run after every delivery and while idle, and by the
// processor when the informer syncs, so a backlog never delays it.
// Every initial notification must be added before upstream can report
// synced for it: the informer's HasSynced waits for startedMu, which a
// registration holds while it adds its initial list, so a late
// registration's listener cannot sync before its list is in.
//
// mu guards pending, stopping and stopCh's closing. batch, next and end are
// only touched by run's goroutine. The remaining fields are set at
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
	pending ring.Backlog[notification]
	// stopping is set by stop; run then exits without delivering the rest.
	stopping bool
	// stopCh is closed by stop (under mu, when stopping is first set).
	stopCh chan struct{}
	// stopped is set with stopping, for run's lock-free check before every
	// delivery.
	stopped atomic.Bool
	// wake has room for one signal: "pending may be non-empty".
	wake chan struct{}
	// queued counts the notifications added and not yet finished: in
	// pending, in batch, or being delivered.
	queued atomic.Int64
	// batch holds the notifications run took out of pending;
	// batch[next:end] are still to be delivered.
	batch [listenerDrainBatch]notification
	// next and end delimit the undelivered part of batch.
	next, end int
	// launched is set (under the processor's lock) when the delivery
	// goroutine is started; exited is closed when it has returned.
	launched atomic.Bool
	exited   chan struct{}
	// owner is the processor the listener was added to (set once, by
	// addListener, before the listener is handed out); nil before that.
	owner listenerOwner
	// backlog reports queued; never nil; set before registration.
	backlog GaugeMetric
	// stats count deliveries (see listenerStats).
	stats listenerStats

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

// listenerOwner is what a listener knows of the processor it was added
// to: ShutDownEventHandler waits on it, once the informer has stopped,
// until every listener of that processor has stopped. *sharedProcessor is
// the only implementation; the listener never calls it itself.
type listenerOwner interface {
	// waitFinished blocks until the processor's run has stopped every
	// listener and waited for its goroutine (forever, for a processor that
	// never runs).
	waitFinished()
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
		stopCh:                make(chan struct{}),
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
	l.mu.Lock()
	if l.stopping {
		l.mu.Unlock()
		return
	}
	if n.initial {
		l.initialOutstanding.Add(1)
	}
	l.pending.Push(n)
	l.mu.Unlock()
	l.publishBacklog(l.queued.Add(1))
	l.signal()
}

// signal wakes run without ever blocking.
func (l *processorListener) signal() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// stop asks run to return; notifications still pending are dropped (and
// leave the backlog when run returns), later adds are ignored. It does not
// wait for run and may be called more than once.
func (l *processorListener) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.stopping {
		l.stopping = true
		l.stopped.Store(true)
		close(l.stopCh)
	}
}

// KcachePendingNotifications returns how many notifications this handler
// has not finished processing yet: those queued plus the one being
// delivered. It is the backlog that the pending-notifications metric
// reports. It is kcache's (client-go's registrations have no such method),
// hence the prefix: no client-go release can add a method of that name.
//
// It is lock-free.
func (l *processorListener) KcachePendingNotifications() int {
	return int(l.queued.Load())
}

// run delivers notifications until stop is called. It must run in exactly
// one goroutine per listener.
func (l *processorListener) run() {
	defer l.dropUndelivered()
	for !l.deliverUntilStopped() {
		if !l.pauseAfterPanic() {
			return
		}
	}
}

// deliverUntilStopped delivers notifications in order until stop was called
// (it then returns true) or a handler panic was recovered (false). A
// notification is consumed before its delivery starts, so after a panic
// delivery goes on with the next one.
func (l *processorListener) deliverUntilStopped() (stopped bool) {
	defer utilruntime.HandleCrashWithLogger(l.logger)
	upstreamDone := l.upstream.Done()
	for {
		if l.next == l.end && !l.refill() {
			return true
		}
		if l.next == l.end {
			select {
			case <-l.wake:
			case <-l.stopCh:
			case <-upstreamDone:
				upstreamDone = nil
				l.markSyncedIfDone()
			}
			continue
		}
		if l.stopped.Load() {
			return true
		}
		l.next++
		l.deliver(&l.batch[l.next-1])
		if upstreamDone != nil && IsDone(l.upstream) {
			upstreamDone = nil
			l.markSyncedIfDone()
		}
	}
}

// refill moves up to listenerDrainBatch pending notifications into batch
// under the lock. It returns false, taking nothing, once stop was called.
func (l *processorListener) refill() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopping {
		return false
	}
	l.next, l.end = 0, l.pending.PopInto(l.batch[:])
	return true
}

// dropUndelivered runs when run returns (after stop): it clears the
// undelivered part of batch and the pending ring, and takes what they held
// out of the backlog, so that KcachePendingNotifications and the gauge of a
// removed or stopped handler read zero.
func (l *processorListener) dropUndelivered() {
	dropped := l.end - l.next
	clear(l.batch[l.next:l.end])
	l.next, l.end = 0, 0
	l.mu.Lock()
	dropped += l.pending.Len()
	l.pending = ring.Backlog[notification]{}
	l.mu.Unlock()
	l.publishBacklog(l.queued.Add(-int64(dropped)))
}

// pauseAfterPanic runs after a recovered handler panic: it waits until a
// notification is pending and then listenerPanicPause more, as client-go's
// listener does (its pause starts when the next notification arrives). It
// reports false when the listener was stopped meanwhile.
func (l *processorListener) pauseAfterPanic() bool {
	for l.queued.Load() == 0 {
		select {
		case <-l.wake:
		case <-l.stopCh:
			return false
		}
	}
	timer := time.NewTimer(listenerPanicPause)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-l.stopCh:
		return false
	}
}

// deliver calls the handler for the notification in slot, clearing the
// slot first, and keeps the sync tracking and backlog figures current. A
// panicking handler still finishes the notification for the backlog, but
// not for sync tracking: a lost initial notification is never delivered.
func (l *processorListener) deliver(slot *notification) {
	n := *slot
	*slot = notification{}
	defer l.finished()
	start := time.Now()
	n.deliverTo(l.handler)
	l.stats.observe(start)
	if n.initial && l.initialOutstanding.Add(-1) == 0 {
		l.markSyncedIfDone()
	}
}

// finished records that one notification left the backlog.
func (l *processorListener) finished() {
	l.publishBacklog(l.queued.Add(-1))
}

// publishBacklog sets the backlog gauge to n, the count an Add on queued
// just returned, and again to queued's current value while that moved
// meanwhile.
//
// NB: the adder (distributing goroutine) and the listener's goroutine both
// publish; without the re-check, an adder preempted between its Add and
// its Set could publish its count after the listener had published a later
// one, and the gauge would keep a stale backlog (say 1 once drained) until
// the next notification. The last Set is always of a value read after it,
// so the gauge ends at the final count. Lock-free: one more atomic load.
func (l *processorListener) publishBacklog(n int64) {
	for {
		l.backlog.Set(float64(n))
		now := l.queued.Load()
		if now == n {
			return
		}
		n = now
	}
}

// HasSynced reports whether the informer has synced and this handler has
// been given every notification of the initial list. The listener's goroutine (or the processor,
// when the informer syncs) records that moment, so a listener that never
// ran (e.g. removed before the informer started) never reports synced.
func (l *processorListener) HasSynced() bool {
	select {
	case <-l.synced:
		return true
	default:
		return false
	}
}

// HasSyncedChecker is HasSynced as a DoneChecker. Its channel is the one HasSynced reads.
func (l *processorListener) HasSyncedChecker() DoneChecker {
	return listenerSyncChecker{l}
}

// markSyncedIfDone closes the synced channel once the informer has synced
// and no initial notification is outstanding. run calls it, and the
// processor when the informer synced; it is idempotent.
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
