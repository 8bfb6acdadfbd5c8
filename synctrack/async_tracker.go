package synctrack

import "sync"

// AsyncTracker tracks the sync state of a consumer whose workers process the
// items of the initial list concurrently and in any order. It remembers the
// set of keys started and not yet finished; a key started several times is
// one entry, cleared by one Finished.
//
// Invariants: done is closed at most once, when upstreamSynced is true and
// pending is empty; once closed the tracker stays synced, so keys started
// afterwards are not remembered at all. mu guards pending, upstreamSynced,
// synced and the closing of done.
type AsyncTracker[T comparable] struct {
	// name identifies the tracker in logs and sync reports.
	name string
	// mu guards pending, upstreamSynced and synced and serialises closing
	// done.
	mu sync.Mutex
	// pending holds the keys started and not finished yet (made on first
	// use).
	pending map[T]struct{}
	// upstreamSynced records that UpstreamHasSynced was called.
	upstreamSynced bool
	// synced records that done was closed.
	synced bool
	// done is closed when the tracker becomes synced; nil in a tracker made
	// without NewAsyncTracker.
	done *doneSignal
}

// NewAsyncTracker returns a tracker named name that is not synced yet.
func NewAsyncTracker[T comparable](name string) *AsyncTracker[T] {
	return &AsyncTracker[T]{name: name, pending: map[T]struct{}{}, done: newDoneSignal()}
}

// Name returns the name given to NewAsyncTracker.
func (t *AsyncTracker[T]) Name() string { return t.name }

// Start records that key, part of the initial list, is about to be
// processed. It never marks the tracker synced.
func (t *AsyncTracker[T]) Start(key T) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.synced {
		return
	}
	if t.pending == nil {
		t.pending = map[T]struct{}{}
	}
	t.pending[key] = struct{}{}
}

// Finished records that key has been processed. A key that was never started
// is ignored. When the upstream is synced and no key is left, the tracker
// becomes synced.
func (t *AsyncTracker[T]) Finished(key T) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.pending, key)
	t.maybeSyncLocked()
}

// UpstreamHasSynced records that the source delivered its whole initial list
// (every key of it already passed to Start). The tracker becomes synced now
// if no key is pending, else when the last pending key finishes. Calling it
// again is harmless.
func (t *AsyncTracker[T]) UpstreamHasSynced() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.upstreamSynced = true
	t.maybeSyncLocked()
}

// HasSynced reports whether the tracker became synced. It never blocks.
func (t *AsyncTracker[T]) HasSynced() bool { return t.done.isClosed() }

// Done returns a channel that is closed once the tracker becomes synced. The
// same channel is returned on every call.
func (t *AsyncTracker[T]) Done() <-chan struct{} { return t.done.ch }

// maybeSyncLocked closes done when the upstream is synced and nothing is
// pending. t.mu must be held.
func (t *AsyncTracker[T]) maybeSyncLocked() {
	if !t.upstreamSynced || len(t.pending) != 0 || t.synced {
		return
	}
	close(t.done.ch)
	t.synced = true // NB: after the close, so a tracker without constructor panics every time
}
