package synctrack

import (
	"sync"
	"sync/atomic"
)

// negativeCounterPanic is the panic value of SingleFileTracker.Finished when
// it is called more often than Start.
const negativeCounterPanic = "synctrack: negative counter; this logic error means HasSynced may return incorrect value"

// SingleFileTracker tracks the sync state of a consumer that processes the
// items of the initial list one at a time, in order. It only needs a counter
// of items started but not yet finished.
//
// Invariants: done is closed at most once, exactly when upstreamSynced is set
// and inFlight is zero at the moment one of them changes; once closed, the
// tracker reports synced forever, whatever Start and Finished do afterwards.
// No mutex: inFlight and upstreamSynced are atomics and closeDone is a
// sync.Once, so concurrent Finished and UpstreamHasSynced calls can both see
// the final state and at least one of them closes done.
type SingleFileTracker struct {
	// name identifies the tracker in logs and sync reports.
	name string
	// inFlight counts Start calls not yet matched by Finished.
	inFlight atomic.Int64
	// upstreamSynced records that UpstreamHasSynced was called.
	upstreamSynced atomic.Bool
	// closeDone closes done exactly once.
	closeDone sync.Once
	// done is closed when the tracker becomes synced; nil in a tracker made
	// without NewSingleFileTracker.
	done *doneSignal
}

// NewSingleFileTracker returns a tracker named name that is not synced yet.
func NewSingleFileTracker(name string) *SingleFileTracker {
	return &SingleFileTracker{name: name, done: newDoneSignal()}
}

// Name returns the name given to NewSingleFileTracker.
func (t *SingleFileTracker) Name() string { return t.name }

// Start records that one item of the initial list is about to be processed.
// It never marks the tracker synced.
func (t *SingleFileTracker) Start() { t.inFlight.Add(1) }

// Finished records that one item passed to Start has been processed. When
// that was the last outstanding item and the upstream is synced, the tracker
// becomes synced. Calling it more often than Start is a logic error: the
// counter goes negative and Finished panics (the counter stays negative).
func (t *SingleFileTracker) Finished() {
	remaining := t.inFlight.Add(-1)
	if remaining < 0 {
		panic(negativeCounterPanic)
	}
	if remaining == 0 && t.upstreamSynced.Load() {
		t.markSynced()
	}
}

// UpstreamHasSynced records that the source delivered its whole initial list
// (every item of it already passed to Start). The tracker becomes synced now
// if nothing is outstanding, else at the Finished call that drains it.
// Calling it again is harmless.
func (t *SingleFileTracker) UpstreamHasSynced() {
	t.upstreamSynced.Store(true)
	if t.inFlight.Load() == 0 {
		t.markSynced()
	}
}

// HasSynced reports whether the tracker became synced. It never blocks.
func (t *SingleFileTracker) HasSynced() bool { return t.done.isClosed() }

// Done returns a channel that is closed once the tracker becomes synced. The
// same channel is returned on every call.
func (t *SingleFileTracker) Done() <-chan struct{} { return t.done.ch }

// markSynced closes done, once.
func (t *SingleFileTracker) markSynced() {
	ch := t.done.ch // NB: outside the Once, so a tracker without constructor panics every time
	t.closeDone.Do(func() { close(ch) })
}
