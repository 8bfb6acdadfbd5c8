package cache

import "sync"

// queueCore is the state FIFO, DeltaFIFO and RealFIFO share: their lock, the
// condition their consumer waits on, the closed flag and the initial
// population. Each queue embeds it, so Close, IsClosed, HasSynced and Done
// are written once.
//
// Locking: lock guards closed and population's Locked part, and whatever
// the embedding queue says it guards; cond's Locker is &lock.
type queueCore struct {
	// lock is the queue's one mutex.
	lock sync.Mutex
	// cond wakes a consumer waiting for work or for Close.
	cond sync.Cond
	// closed is set by Close.
	closed bool
	// population tracks HasSynced.
	population initialPopulation
}

// setUp prepares a zero queueCore; constructors call it once.
func (c *queueCore) setUp() {
	c.cond.L = &c.lock
	c.population.init()
}

// HasSynced reports whether the initial population has been popped and
// processed: the work the first Replace queued, when a Replace came before
// any Add, Update or Delete; otherwise it is true from the first of those.
// It never takes the queue's lock, so a process function may call it.
func (c *queueCore) HasSynced() bool { return c.population.hasSynced() }

// Done is the DoneChecker channel, closed when HasSynced turns true.
func (c *queueCore) Done() <-chan struct{} { return c.population.doneChan() }

// IsClosed reports whether Close was called.
func (c *queueCore) IsClosed() bool {
	c.lock.Lock()
	defer c.lock.Unlock()
	return c.closed
}

// Close marks the queue closed and wakes its waiting consumer: a Pop (or
// PopBatch) on an empty closed queue returns ErrFIFOClosed. Writes are still
// accepted, and queued work still pops.
func (c *queueCore) Close() {
	c.lock.Lock()
	c.closed = true
	c.lock.Unlock()
	c.cond.Broadcast()
}
