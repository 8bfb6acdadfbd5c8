package cache

import (
	"errors"
	"slices"
	"sync"
)

// PopProcessFunc is passed to Pop() method of Queue interface. It is supposed
// to process the accumulator popped from the queue.
type PopProcessFunc func(obj interface{}, isInInitialList bool) error

// ProcessBatchFunc processes multiple objects in batch. The deltas must not
// contain multiple entries for the same object.
type ProcessBatchFunc func(deltas []Delta, isInInitialList bool) error

// ErrFIFOClosed used when FIFO is closed
var ErrFIFOClosed = errors.New("DeltaFIFO: manipulating with closed queue")

// Queue extends ReflectorStore with a collection of Store keys to "process".
// Every Add, Update, or Delete may put the object's key in that collection.
// A Queue has a way to derive the corresponding key given an accumulator.
// A Queue can be accessed concurrently from multiple goroutines.
// A Queue can be "closed", after which Pop operations return an error.
type Queue interface {
	ReflectorStore

	// Pop blocks until there is at least one key to process or the
	// Queue is closed.  In the latter case Pop returns with an error.
	// In the former case Pop atomically picks one key to process,
	// removes that (key, accumulator) association from the Store, and
	// processes the accumulator.  Pop returns the accumulator that
	// was processed and the result of processing.  The PopProcessFunc
	// may return an ErrRequeue{inner} and in this case Pop will (a)
	// return that (key, accumulator) association to the Queue as part
	// of the atomic processing and (b) return the inner error from
	// Pop. It is expected that the caller of Pop will be a single
	// threaded consumer since otherwise it is possible for multiple
	// PopProcessFuncs to be running simultaneously.
	Pop(PopProcessFunc) (interface{}, error)

	// HasSynced returns true if the first batch of keys have all been
	// popped.  The first batch of keys are those of the first Replace
	// operation if that happened before any Add, AddIfNotPresent,
	// Update, or Delete; otherwise the first batch is empty.
	HasSynced() bool

	// HasSyncedChecker is done once the first batch of keys have all been
	// popped.  The first batch of keys are those of the first Replace
	// operation if that happened before any Add, AddIfNotPresent,
	// Update, or Delete; otherwise the first batch is empty.
	HasSyncedChecker() DoneChecker

	// Close the queue
	Close()
}

// QueueWithBatch extends the Queue interface with support for batch
// processing.
//
// In addition to the standard single-item Pop method, QueueWithBatch provides
// PopBatch, which allows multiple items to be popped and processed together
// as a batch. This can be used to improve processing efficiency when it is
// beneficial to handle multiple queued keys or accumulators in a single
// operation. TODO: Consider merging this interface into Queue after feature
// gate GA
type QueueWithBatch interface {
	Queue

	// PopBatch behaves similarly to Queue#Pop, but processes multiple keys
	// as a batch. The implementation determines the batching strategy,
	// such as the number of keys to include per batch. The ProcessBatchFunc
	// is called when a batch is ready to be processed. The PopProcessFunc
	// is called when a singleton item is ready to be processed. The
	// ProcessBatchFunc and PopProcessFunc must do the same processing to
	// ensure consistent behavior. It is expected that the caller of PopBatch
	// will be a single threaded consumer since otherwise it is possible for
	// multiple ProcessBatchFuncs/PopProcessFuncs to be running simultaneously.
	PopBatch(processBatch ProcessBatchFunc, processSingle PopProcessFunc) error
}

// FIFO is a Queue in which (a) each accumulator is simply the most recently
// provided object and (b) the collection of keys to process is a FIFO. The
// accumulators all start out empty, and deleting an object from its
// accumulator empties the accumulator. The Resync operation is a no-op.
//
// Thus: if multiple adds/updates of a single object happen while that
// object's key is in the queue before it has been processed then it will only
// be processed once, and when it is processed the most recent version will be
// processed. This can't be done with a channel.
//
// FIFO solves this use case:
//   - You want to process every object (exactly) once.
//   - You want to process the most recent version of the object when you
//     process it.
//   - You do not want to process deleted objects, they should be removed from
//     the queue.
//   - You do not want to periodically reprocess objects.
//
// Compare with DeltaFIFO for other use cases.
//
// Invariants: every key of items is in order (possibly more than once: a key
// deleted and added again while queued appears twice, and Pop skips entries
// whose key has no item any more).
//
// Locking: lock guards items, order, closed and the Locked part of
// population; cond (on lock) wakes Pop when an item arrives or the queue
// closes.
type FIFO struct {
	// lock guards every field below except keyFunc.
	lock sync.Mutex
	// cond signals waiting Pop calls; its Locker is &lock.
	cond sync.Cond
	// items maps a key to the latest object added under it.
	items map[string]interface{}
	// order holds the keys to process, oldest first.
	order queueRing[string]
	// population tracks HasSynced.
	population initialPopulation
	// closed is set by Close.
	closed bool
	// keyFunc computes an object's key; immutable.
	keyFunc KeyFunc
}

var (
	_ Queue       = &FIFO{}
	_ DoneChecker = &FIFO{}
)

// NewFIFO returns a Store which can be used to queue up items to process.
func NewFIFO(keyFunc KeyFunc) *FIFO {
	f := &FIFO{items: map[string]interface{}{}, keyFunc: keyFunc}
	f.cond.L = &f.lock
	f.population.init()
	return f
}

// keyOf computes obj's key, wrapping a failure in a KeyError.
func (f *FIFO) keyOf(obj interface{}) (string, error) {
	key, err := f.keyFunc(obj)
	if err != nil {
		return "", KeyError{Obj: obj, Err: err}
	}
	return key, nil
}

// HasSynced returns true if an Add/Update/Delete/AddIfNotPresent are called
// first, or the first batch of items inserted by Replace() has been popped.
func (f *FIFO) HasSynced() bool { return f.population.hasSynced() }

// HasSyncedChecker is done if an Add/Update/Delete/AddIfNotPresent are called
// first, or the first batch of items inserted by Replace() has been popped.
func (f *FIFO) HasSyncedChecker() DoneChecker { return f }

// Name implements DoneChecker.Name
func (f *FIFO) Name() string { return "FIFO" }

// Done implements DoneChecker.Done
func (f *FIFO) Done() <-chan struct{} { return f.population.doneChan() }

// Add inserts an item, and puts it in the queue. The item is only enqueued if
// it doesn't already exist in the set.
func (f *FIFO) Add(obj interface{}) error {
	key, err := f.keyOf(obj)
	if err != nil {
		return err
	}
	f.lock.Lock()
	defer f.lock.Unlock()
	f.population.markPopulatedLocked()
	f.putLocked(key, obj)
	f.cond.Broadcast()
	return nil
}

// putLocked stores obj under key and queues key unless it already has an
// item (and so is queued).
func (f *FIFO) putLocked(key string, obj interface{}) {
	if _, queued := f.items[key]; !queued {
		f.order.push(key)
	}
	f.items[key] = obj
}

// Update is the same as Add in this implementation.
func (f *FIFO) Update(obj interface{}) error { return f.Add(obj) }

// Delete removes an item. It doesn't add it to the queue, because this
// implementation assumes the consumer only cares about the objects, not the
// order in which they were created/added. The key stays in the queue and Pop
// skips it.
func (f *FIFO) Delete(obj interface{}) error {
	key, err := f.keyOf(obj)
	if err != nil {
		return err
	}
	f.lock.Lock()
	defer f.lock.Unlock()
	f.population.markPopulatedLocked()
	delete(f.items, key)
	return nil
}

// IsClosed checks if the queue is closed
func (f *FIFO) IsClosed() bool {
	f.lock.Lock()
	defer f.lock.Unlock()
	return f.closed
}

// Close the queue. A Pop blocked on an empty queue wakes and returns
// ErrFIFOClosed; items still queued are popped as usual.
func (f *FIFO) Close() {
	f.lock.Lock()
	defer f.lock.Unlock()
	f.closed = true
	f.cond.Broadcast()
}

// Pop waits until an item is ready and processes it. If multiple items are
// ready, they are returned in the order in which they were added/updated. The
// item is removed from the queue (and the store) before it is processed. The
// process function is called under the lock, so it is safe to update data
// structures in it that need to be in sync with the queue; it must not call
// back into the FIFO except HasSynced. When the queue is empty and closed,
// Pop returns ErrFIFOClosed.
func (f *FIFO) Pop(process PopProcessFunc) (interface{}, error) {
	f.lock.Lock()
	defer f.lock.Unlock()
	for {
		for f.order.len() == 0 {
			if f.closed {
				return nil, ErrFIFOClosed
			}
			f.cond.Wait()
		}
		initial := !f.population.hasSynced()
		for f.order.len() > 0 {
			key := f.order.pop()
			counted := f.population.countLocked(1)
			obj, ok := f.items[key]
			if !ok {
				f.population.processedLocked(counted) // deleted while queued
				continue
			}
			delete(f.items, key)
			err := process(obj, initial)
			f.population.processedLocked(counted)
			return obj, err
		}
	}
}

// Replace will delete the contents of 'f', using instead the given list. 'f'
// takes ownership of the list, you should not reference it after calling this
// function. f's queue is reset, too; upon return, it will contain the items in
// the list, in the order of their first occurrence. A key error leaves f
// unchanged.
func (f *FIFO) Replace(list []interface{}, resourceVersion string) error {
	items := make(map[string]interface{}, len(list))
	keys := make([]string, 0, len(list))
	for _, obj := range list {
		key, err := f.keyOf(obj)
		if err != nil {
			return err
		}
		if _, dup := items[key]; !dup {
			keys = append(keys, key)
		}
		items[key] = obj
	}
	f.lock.Lock()
	defer f.lock.Unlock()
	f.items = items
	f.order.reset()
	f.order.reserve(len(keys))
	for _, key := range keys {
		f.order.push(key)
	}
	f.population.startLocked(len(items))
	if len(keys) > 0 {
		f.cond.Broadcast()
	}
	return nil
}

// Resync will ensure that every object in the Store has its key in the queue.
// This should be a no-op, because that property is maintained by all
// operations; keys it does add are queued in sorted order.
func (f *FIFO) Resync() error {
	f.lock.Lock()
	defer f.lock.Unlock()
	queued := make(map[string]struct{}, f.order.len())
	for i := 0; i < f.order.len(); i++ {
		queued[f.order.at(i)] = struct{}{}
	}
	var missing []string
	for key := range f.items {
		if _, ok := queued[key]; !ok {
			missing = append(missing, key)
		}
	}
	slices.Sort(missing)
	for _, key := range missing {
		f.order.push(key)
	}
	if len(missing) > 0 {
		f.cond.Broadcast()
	}
	return nil
}
