package cache

import "sync/atomic"

// initialPopulation tracks whether a queue has synced: true once the objects
// of the first Replace have all been popped and processed, or at once when an
// Add, Update or Delete comes before any Replace.
//
// Locking: populated and remaining are guarded by the owning queue's lock
// (every method ending in Locked needs it held); synced and done may be read
// without it, which is why HasSynced never blocks on a busy queue.
type initialPopulation struct {
	// populated is set by the first Add/Update/Delete or successful Replace.
	populated bool
	// remaining counts the items of the first Replace not yet processed.
	remaining int
	// synced mirrors populated && remaining == 0, readable without the lock.
	synced atomic.Bool
	// done is closed when synced becomes true.
	done chan struct{}
}

// init prepares p for use; the zero value needs it before first use.
func (p *initialPopulation) init() {
	p.done = make(chan struct{})
}

// hasSynced reports whether the queue has synced. Lock-free.
func (p *initialPopulation) hasSynced() bool { return p.synced.Load() }

// doneChan returns the channel closed when the queue has synced.
func (p *initialPopulation) doneChan() <-chan struct{} { return p.done }

// markPopulatedLocked records an Add, Update or Delete: a queue that was not
// populated yet is populated with nothing pending, so it is synced.
func (p *initialPopulation) markPopulatedLocked() {
	if !p.populated {
		p.populated = true
		p.settleLocked()
	}
}

// startLocked records a successful Replace that left count items in the
// queue. Only the first population counts; later calls do nothing.
func (p *initialPopulation) startLocked(count int) {
	if !p.populated {
		p.populated = true
		p.remaining = count
		p.settleLocked()
	}
}

// pendingLocked returns how many items of the initial population are still
// queued or being processed: zero once synced or before population.
func (p *initialPopulation) pendingLocked() int { return p.remaining }

// countLocked returns how many of n items being popped from the head belong
// to the initial population. The caller passes that number to
// processedLocked once they are processed; counting at pop time keeps a
// population that starts while a consumer runs unlocked from being credited
// with items popped before it.
func (p *initialPopulation) countLocked(n int) int {
	return min(n, p.remaining)
}

// processedLocked records that n popped items of the initial population
// have been processed.
func (p *initialPopulation) processedLocked(n int) {
	if p.remaining == 0 {
		return
	}
	p.remaining -= min(n, p.remaining)
	p.settleLocked()
}

// settleLocked publishes synced and closes done once the population is
// complete. It is idempotent.
func (p *initialPopulation) settleLocked() {
	if p.populated && p.remaining == 0 && !p.synced.Load() {
		p.synced.Store(true)
		close(p.done)
	}
}
