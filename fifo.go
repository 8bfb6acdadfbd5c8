package cache

import (
	"errors"
	"slices"

	"github.com/kcache-go/cache/internal/ring"
)

// PopProcessFunc is what a consumer passes to Pop: it receives the popped
// accumulator and whether it belongs to the queue's initial population (the
// first Replace), and its error becomes Pop's.
type PopProcessFunc func(obj interface{}, isInInitialList bool) error

// ProcessBatchFunc is what a consumer passes to PopBatch for a batch of
// deltas, at most one per object; isInInitialList holds for all of them or
// none.
type ProcessBatchFunc func(deltas []Delta, isInInitialList bool) error

// ErrFIFOClosed is what Pop (and PopBatch) return once the queue is closed
// and has nothing left to hand out. The text names DeltaFIFO for every queue,
// as in client-go.
var ErrFIFOClosed = errors.New("DeltaFIFO: manipulating with closed queue")

// Queue is the store a Reflector writes into when a consumer processes what
// it delivers: on top of ReflectorStore's writes, a consumer takes work out
// with Pop. Each Add, Update or Delete may give the consumer something to do.
// A Queue is safe for concurrent use; after Close, a Pop on an empty queue
// fails instead of waiting.
type Queue interface {
	// Close marks the queue closed and wakes a waiting Pop.
	Close()

	// HasSyncedChecker returns a DoneChecker that is done when HasSynced
	// becomes true.
	HasSyncedChecker() DoneChecker

	// HasSynced reports whether the initial population has been popped:
	// the work queued by the first Replace, when a Replace came before any
	// Add, Update or Delete; otherwise nothing, so it is true at once.
	HasSynced() bool

	// Pop waits until the queue holds work or is closed. When closed and
	// empty it returns an error. Otherwise it removes the oldest piece of
	// work, calls process on it, and returns it together with process's
	// error. Only one goroutine should call Pop at a time: concurrent
	// consumers would process work for the same object out of order.
	// (The mention of ErrRequeue in older releases is obsolete: nothing is
	// ever put back.)
	Pop(PopProcessFunc) (interface{}, error)

	// The writes a Reflector makes.
	ReflectorStore
}

// QueueWithBatch is a Queue whose consumer may take several pieces of work
// at once. PopBatch picks the batch (its size and where it ends are up to
// the implementation), hands a batch to processBatch and a lone item to
// processSingle; both must process work the same way. As with Pop, a single
// goroutine should consume.
type QueueWithBatch interface {
	// PopBatch waits like Pop, then removes and processes one batch (or one
	// item), returning the processing error.
	PopBatch(processBatch ProcessBatchFunc, processSingle PopProcessFunc) error

	// Everything a Queue does.
	Queue
}

// FIFO is the simplest Queue: per key it keeps only the latest object, and
// keys are processed in the order they were first queued. Writing a key that
// is already queued replaces its object without moving it; Delete forgets
// the object (Pop then skips the key); Resync has nothing to do.
//
// Use it when each object should be processed once, in its latest state,
// deleted objects should not be processed at all, and nothing needs periodic
// reprocessing. DeltaFIFO keeps the history instead.
//
// Invariants: every key of items is in order (possibly more than once: a key
// deleted and added again while queued appears twice, and Pop skips entries
// whose key has no item any more); itemsPeak is at least len(items).
//
// Memory: a burst gives its memory back once drained, as DeltaFIFO's does:
// the items map through releaseDrainedItems, order through ring.Queue.
//
// Locking: lock guards items, itemsPeak, order, closed and the Locked part of
// population; cond (on lock) wakes Pop when an item arrives or the queue
// closes.
type FIFO struct {
	// queueCore holds the lock, the consumer's condition, closed and
	// the initial population, with Close, IsClosed, HasSynced and Done.
	queueCore
	// items maps a key to the latest object added under it.
	items map[string]interface{}
	// itemsPeak is the most keys items has held, or was sized for, since
	// it was made (see releaseDrainedItems).
	itemsPeak int
	// order holds the keys to process, oldest first.
	order ring.Queue[string]
	// keyFunc computes an object's key; immutable.
	keyFunc KeyFunc
}

var (
	_ Queue       = &FIFO{}
	_ DoneChecker = &FIFO{}
)

// NewFIFO returns an empty FIFO keyed by keyFunc.
func NewFIFO(keyFunc KeyFunc) *FIFO {
	f := &FIFO{items: map[string]interface{}{}, keyFunc: keyFunc}
	f.setUp()
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

// HasSyncedChecker returns f itself: done when HasSynced turns true.
func (f *FIFO) HasSyncedChecker() DoneChecker { return f }

// Name is the DoneChecker name: "FIFO".
func (f *FIFO) Name() string { return "FIFO" }

// Add stores obj as its key's latest object, queueing the key unless it has
// an object already (and so is queued).
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
		f.order.Push(key)
	}
	f.items[key] = obj
	f.itemsPeak = max(f.itemsPeak, len(f.items))
}

// removeLocked forgets key's object and gives back the memory of a drained
// burst (see releaseDrainedItems).
func (f *FIFO) removeLocked(key string) {
	delete(f.items, key)
	f.items, f.itemsPeak = releaseDrainedItems(f.items, f.itemsPeak)
}

// Update does exactly what Add does.
func (f *FIFO) Update(obj interface{}) error { return f.Add(obj) }

// Delete forgets the object stored under obj's key. Nothing is queued for
// the deletion; the key may stay queued, and Pop skips it.
func (f *FIFO) Delete(obj interface{}) error {
	key, err := f.keyOf(obj)
	if err != nil {
		return err
	}
	f.lock.Lock()
	defer f.lock.Unlock()
	f.population.markPopulatedLocked()
	f.removeLocked(key)
	return nil
}

// Pop waits for a queued key with an object, removes both, runs process on
// the object under the FIFO's lock (so process may update state that must
// stay in step with the queue, but must not call the FIFO, HasSynced
// excepted) and returns the object with process's error. Keys come out in
// the order they were first queued. On a closed, empty FIFO it returns
// ErrFIFOClosed.
//
// A queued key whose object was deleted is skipped; if it belonged to the
// initial population, it counts as processed only when this Pop returns
// (as in client-go: after Replace([a]) and Delete(a), HasSynced stays false
// while Pop waits for the next object, and turns true when that Pop
// returns, with an object or with ErrFIFOClosed).
func (f *FIFO) Pop(process PopProcessFunc) (interface{}, error) {
	f.lock.Lock()
	defer f.lock.Unlock()
	skipped := 0
	defer func() { f.population.processedLocked(skipped) }()
	for {
		for f.order.Len() == 0 {
			if f.closed {
				return nil, ErrFIFOClosed
			}
			f.cond.Wait()
		}
		initial := !f.population.hasSynced()
		for f.order.Len() > 0 {
			key := f.order.Pop()
			counted := f.population.countLocked(1 + skipped)
			obj, ok := f.items[key]
			if !ok {
				skipped = counted // deleted while queued
				continue
			}
			f.removeLocked(key)
			err := process(obj, initial)
			f.population.processedLocked(counted)
			skipped = 0
			return obj, err
		}
	}
}

// Replace makes list the FIFO's whole content: earlier objects and queued
// keys are dropped, and the list's keys are queued in the order they first
// appear (client-go uses map order; any order is allowed). A key error
// returns before anything changes. The first successful Replace before any
// Add/Update/Delete makes its keys the initial population.
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
	f.items, f.itemsPeak = items, len(items)
	f.order.Reset()
	f.order.Reserve(len(keys))
	for _, key := range keys {
		f.order.Push(key)
	}
	f.population.startLocked(len(items))
	if len(keys) > 0 {
		f.cond.Broadcast()
	}
	return nil
}

// Resync queues, in sorted order, the key of every stored object whose key
// is not queued. Every other operation keeps that true already, so this
// normally does nothing.
func (f *FIFO) Resync() error {
	f.lock.Lock()
	defer f.lock.Unlock()
	queued := make(map[string]struct{}, f.order.Len())
	for i := 0; i < f.order.Len(); i++ {
		queued[f.order.At(i)] = struct{}{}
	}
	var missing []string
	for key := range f.items {
		if _, ok := queued[key]; !ok {
			missing = append(missing, key)
		}
	}
	slices.Sort(missing)
	for _, key := range missing {
		f.order.Push(key)
	}
	if len(missing) > 0 {
		f.cond.Broadcast()
	}
	return nil
}
