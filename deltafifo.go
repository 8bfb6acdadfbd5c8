package cache

import (
	"fmt"
	"sync"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
)

// DeltaFIFOOptions is the configuration parameters for DeltaFIFO. All are
// optional.
type DeltaFIFOOptions struct {
	// If set, log output will go to this logger instead of klog.Background().
	// The name of the fifo gets added automatically.
	Logger *klog.Logger

	// Name can be used to override the default "DeltaFIFO" name for the new instance.
	Name string

	// KeyFunction is used to figure out what key an object should have. (It's
	// exposed in the returned DeltaFIFO's KeyOf() method, with additional
	// handling around deleted objects and queue state).
	// Optional, the default is MetaNamespaceKeyFunc.
	KeyFunction KeyFunc

	// KnownObjects is expected to return a list of keys that the consumer of
	// this queue "knows about". It is used to decide which items are missing
	// when Replace() is called; 'Deleted' deltas are produced for the missing items.
	// KnownObjects may be nil if you can tolerate missing deletions on Replace().
	KnownObjects KeyListerGetter

	// EmitDeltaTypeReplaced indicates that the queue consumer
	// understands the Replaced DeltaType. Before the `Replaced` event type was
	// added, calls to Replace() were handled the same as Sync(). For
	// backwards-compatibility purposes, this is false by default.
	// When true, `Replaced` events will be sent for items passed to a Replace() call.
	// When false, `Sync` events will be sent instead.
	EmitDeltaTypeReplaced bool

	// If set, will be called for objects before enqueueing them. Please
	// see the comment on TransformFunc for details.
	Transformer TransformFunc
}

// DeltaFIFO is like FIFO, but differs in two ways. One is that the
// accumulator associated with a given object's key is not that object but
// rather a Deltas, which is a slice of Delta values for that object. Applying
// an object to a Deltas means to append a Delta except when the potentially
// appended Delta is a Deleted and the Deltas already ends with a Deleted. In
// that case the Deltas does not grow, although the terminal Deleted will be
// replaced by the new Deleted if the older Deleted's object is a
// DeletedFinalStateUnknown.
//
// The other difference is that DeltaFIFO has two additional ways that an
// object can be applied to an accumulator: Replaced and Sync. If
// EmitDeltaTypeReplaced is not set to true, Sync will be used in replace
// events for backwards compatibility. Sync is used for periodic resync
// events.
//
// DeltaFIFO is a producer-consumer queue, where a Reflector is intended to be
// the producer, and the consumer is whatever calls the Pop() method.
//
// DeltaFIFO solves this use case:
//   - You want to process every object change (delta) at most once.
//   - When you process an object, you want to see everything that's happened
//     to it since you last processed it.
//   - You want to process the deletion of some of the objects.
//   - You might want to periodically reprocess objects.
//
// DeltaFIFO's Pop() returns interface{} to satisfy the Queue interface, but
// it will always return an object of type Deltas.
//
// A DeltaFIFO's knownObjects KeyListerGetter provides the abilities to list
// Store keys and to get objects by Store key. The objects in question are
// called "known objects" and this set of objects modifies the behavior of the
// Delete, Replace, and Resync methods (each in a different way).
//
// A note on threading: If you call Pop() in parallel from multiple threads,
// you could end up with multiple threads processing slightly different
// versions of the same object.
//
// Invariants: a key is in items exactly when it is in order, once; every
// Deltas in items is non-empty.
//
// Locking: lock guards items, order, closed and population's Locked part;
// cond (on lock) wakes a waiting Pop. The other fields are set by the
// constructor and never change. Pop runs process under lock.
type DeltaFIFO struct {
	// lock guards the mutable state listed above.
	lock sync.Mutex
	// cond signals Pop when a key is queued or the queue closes.
	cond sync.Cond
	// items maps a queued key to its accumulated deltas, oldest first.
	items map[string]Deltas
	// order holds the queued keys, each once, in the order they were queued.
	order queueRing[string]
	// population tracks HasSynced.
	population initialPopulation
	// closed is set by Close.
	closed bool

	// name identifies the queue in logs and as a DoneChecker.
	name string
	// logger receives the queue's diagnostics, under the queue's name (see
	// namedLogger).
	logger klog.Logger
	// keyFunc computes an object's key.
	keyFunc KeyFunc
	// knownObjects is the consumer's store, or nil.
	knownObjects KeyListerGetter
	// replacedType is the delta type Replace gives each listed object.
	replacedType DeltaType
	// transformer, when set, is applied to objects before they are queued.
	transformer TransformFunc
}

var (
	_ Queue             = &DeltaFIFO{}
	_ TransformingStore = &DeltaFIFO{}
	_ DoneChecker       = &DeltaFIFO{}
)

// NewDeltaFIFO returns a Queue which can be used to process changes to items.
//
// keyFunc is used to figure out what key an object should have. (It is
// exposed in the returned DeltaFIFO's KeyOf() method, with additional
// handling around deleted objects and queue state).
//
// 'knownObjects' may be supplied to modify the behavior of Delete, Replace,
// and Resync. It may be nil if you do not need those modifications.
//
// Warning: This constructs a DeltaFIFO that does not differentiate between
// events caused by a call to Replace (e.g., from a relist, which may contain
// object updates), and synthetic events caused by a periodic resync (which
// just emit the existing object). See https://issue.k8s.io/86015 for details.
//
// Use `NewDeltaFIFOWithOptions(DeltaFIFOOptions{..., EmitDeltaTypeReplaced:
// true})` instead to receive a `Replaced` event depending on the type.
//
// Deprecated: Equivalent to NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: keyFunc, KnownObjects: knownObjects})
func NewDeltaFIFO(keyFunc KeyFunc, knownObjects KeyListerGetter) *DeltaFIFO {
	return NewDeltaFIFOWithOptions(DeltaFIFOOptions{
		KeyFunction:  keyFunc,
		KnownObjects: knownObjects,
	})
}

// NewDeltaFIFOWithOptions returns a Queue which can be used to process
// changes to items. See also the comment on DeltaFIFO.
func NewDeltaFIFOWithOptions(opts DeltaFIFOOptions) *DeltaFIFO {
	f := &DeltaFIFO{
		items:        map[string]Deltas{},
		name:         opts.Name,
		keyFunc:      opts.KeyFunction,
		knownObjects: opts.KnownObjects,
		replacedType: Sync,
		transformer:  opts.Transformer,
	}
	if f.name == "" {
		f.name = "DeltaFIFO"
	}
	if f.keyFunc == nil {
		f.keyFunc = MetaNamespaceKeyFunc
	}
	if opts.EmitDeltaTypeReplaced {
		f.replacedType = Replaced
	}
	logger := klog.Background()
	if opts.Logger != nil {
		logger = *opts.Logger
	}
	f.logger = logger
	f.cond.L = &f.lock
	f.population.init()
	return f
}

// Name implements DoneChecker.Name
func (f *DeltaFIFO) Name() string { return f.name }

// Done implements DoneChecker.Done
func (f *DeltaFIFO) Done() <-chan struct{} { return f.population.doneChan() }

// HasSynced returns true if an Add/Update/Delete/AddIfNotPresent are called
// first, or the first batch of items inserted by Replace() has been popped.
// It never takes the queue's lock.
func (f *DeltaFIFO) HasSynced() bool { return f.population.hasSynced() }

// HasSyncedChecker is done if an Add/Update/Delete/AddIfNotPresent are called
// first, or the first batch of items inserted by Replace() has been popped.
func (f *DeltaFIFO) HasSyncedChecker() DoneChecker { return f }

// Transformer implements the TransformingStore interface.
func (f *DeltaFIFO) Transformer() TransformFunc { return f.transformer }

// KeyOf exposes f's keyFunc, but also detects the key of a Deltas object or
// DeletedFinalStateUnknown objects. An error of keyFunc is returned as is.
func (f *DeltaFIFO) KeyOf(obj interface{}) (string, error) {
	if d, ok := obj.(Deltas); ok {
		newest := d.Newest()
		if newest == nil {
			return "", KeyError{Obj: obj, Err: ErrZeroLengthDeltasObject}
		}
		obj = newest.Object
	}
	if d, ok := obj.(DeletedFinalStateUnknown); ok {
		return d.Key, nil
	}
	return f.keyFunc(obj)
}

// keyErrOf is KeyOf with a failure wrapped in a KeyError for obj, the form
// Add, Update, Delete and Replace return.
func (f *DeltaFIFO) keyErrOf(obj interface{}) (string, error) {
	key, err := f.KeyOf(obj)
	if err != nil {
		return "", KeyError{Obj: obj, Err: err}
	}
	return key, nil
}

// Add inserts an item, and puts it in the queue. The item is only enqueued if
// it doesn't already exist in the set.
func (f *DeltaFIFO) Add(obj interface{}) error {
	f.lock.Lock()
	defer f.lock.Unlock()
	f.population.markPopulatedLocked()
	return f.queueActionLocked(Added, obj)
}

// Update is just like Add, but makes an Updated Delta.
func (f *DeltaFIFO) Update(obj interface{}) error {
	f.lock.Lock()
	defer f.lock.Unlock()
	f.population.markPopulatedLocked()
	return f.queueActionLocked(Updated, obj)
}

// Delete is just like Add, but makes a Deleted Delta. If the given object
// does not already exist, it will be ignored. (It may have already been
// deleted by a Replace (re-list), for example.) In this method
// `f.knownObjects`, if not nil, provides (via GetByKey) _additional_ objects
// that are considered to already exist; a lookup error counts as existing.
func (f *DeltaFIFO) Delete(obj interface{}) error {
	key, err := f.keyErrOf(obj)
	if err != nil {
		return err
	}
	f.lock.Lock()
	defer f.lock.Unlock()
	f.population.markPopulatedLocked()
	if _, queued := f.items[key]; !queued && !f.knownLocked(key) {
		return nil
	}
	return f.queueActionLocked(Deleted, obj)
}

// knownLocked reports whether knownObjects holds key (a lookup error counts
// as held, so that a deletion is not lost).
func (f *DeltaFIFO) knownLocked(key string) bool {
	if f.knownObjects == nil {
		return false
	}
	_, exists, err := f.knownObjects.GetByKey(key)
	return exists || err != nil
}

// queueActionLocked appends a delta of type t for obj (transformed unless it
// is a tombstone), collapses a trailing pair of deletions, and queues the key
// if it was not queued.
func (f *DeltaFIFO) queueActionLocked(t DeltaType, obj interface{}) error {
	key, err := f.keyErrOf(obj)
	if err != nil {
		return err
	}
	return f.queueKeyedLocked(key, t, obj)
}

// queueKeyedLocked is queueActionLocked for an object whose key is known.
func (f *DeltaFIFO) queueKeyedLocked(key string, t DeltaType, obj interface{}) error {
	if f.transformer != nil {
		if _, tombstone := obj.(DeletedFinalStateUnknown); !tombstone {
			transformed, err := f.transformer(obj)
			if err != nil {
				return err
			}
			obj = transformed
		}
	}
	f.appendLocked(key, Delta{Type: t, Object: obj})
	return nil
}

// appendLocked adds d to key's deltas (queueing key if new) and wakes Pop.
func (f *DeltaFIFO) appendLocked(key string, d Delta) {
	old, queued := f.items[key]
	f.items[key] = collapseDeletions(append(old, d))
	if !queued {
		f.order.push(key)
	}
	f.cond.Signal()
}

// collapseDeletions merges a trailing Deleted, Deleted pair into one: the
// older unless its object is a DeletedFinalStateUnknown (then the newer), so
// the more informative final state survives.
func collapseDeletions(d Deltas) Deltas {
	n := len(d)
	if n < 2 || d[n-1].Type != Deleted || d[n-2].Type != Deleted {
		return d
	}
	if _, tombstone := d[n-2].Object.(DeletedFinalStateUnknown); tombstone {
		d[n-2] = d[n-1]
	}
	d[n-1] = Delta{}
	return d[:n-1]
}

// IsClosed checks if the queue is closed
func (f *DeltaFIFO) IsClosed() bool {
	f.lock.Lock()
	defer f.lock.Unlock()
	return f.closed
}

// Close the queue. A Pop blocked on an empty queue wakes and returns
// ErrFIFOClosed; keys still queued are popped as usual.
func (f *DeltaFIFO) Close() {
	f.lock.Lock()
	defer f.lock.Unlock()
	f.closed = true
	f.cond.Broadcast()
}

// Pop blocks until the queue has some items, and then returns one. If
// multiple items are ready, they are returned in the order in which they were
// added/updated. The item is removed from the queue (and the store) before it
// is returned, so if you don't successfully process it, you need to add it
// back yourself. process function is called under lock, so it is safe to
// update data structures in it that need to be in sync with the queue (e.g.
// knownKeys); it must not call back into the queue (HasSynced excepted).
// process should avoid expensive I/O operation so that other queue
// operations, i.e. Add() and Get(), won't be blocked for too long.
//
// Pop returns a 'Deltas', which has a complete list of all the things that
// happened to the object (deltas) while it was sitting in the queue. An error
// from process is returned and the Deltas is not queued again.
func (f *DeltaFIFO) Pop(process PopProcessFunc) (interface{}, error) {
	f.lock.Lock()
	defer f.lock.Unlock()
	for f.order.len() == 0 {
		if f.closed {
			return nil, ErrFIFOClosed
		}
		f.cond.Wait()
	}
	initial := !f.population.hasSynced()
	counted := f.population.countLocked(1)
	key := f.order.pop()
	var item interface{} = f.items[key]
	delete(f.items, key)
	err := process(item, initial)
	f.population.processedLocked(counted)
	return item, err
}

// Replace atomically does two things: (1) it adds the given objects using the
// Sync or Replace DeltaType and then (2) it does some deletions. In
// particular: for every pre-existing key K that is not the key of an object
// in `list` there is the effect of `Delete(DeletedFinalStateUnknown{K, O})`
// where O is the latest known object of K. The pre-existing keys are those in
// the union set of the keys in `f.items` and `f.knownObjects` (if not nil).
// The last known object for key K is the one present in the last delta in
// `f.items`. If there is no delta for K in `f.items`, it is the object in
// `f.knownObjects`. Keys whose newest queued delta is already a deletion are
// left alone.
//
// A key error is returned as is and stops the call; a transformer error is
// returned as "couldn't enqueue object: ..."; in both cases the objects
// before it stay queued and no deletions are made. The first successful
// Replace before any Add/Update/Delete makes every key then queued the
// initial population.
func (f *DeltaFIFO) Replace(list []interface{}, _ string) error {
	f.lock.Lock()
	defer f.lock.Unlock()
	listed := make(map[string]struct{}, len(list))
	if len(f.items) == 0 {
		f.items = make(map[string]Deltas, len(list)) // skip growing it step by step
	}
	f.order.reserve(len(list))
	for _, obj := range list {
		key, err := f.keyErrOf(obj)
		if err != nil {
			return err
		}
		listed[key] = struct{}{}
		if err := f.queueKeyedLocked(key, f.replacedType, obj); err != nil {
			return fmt.Errorf("couldn't enqueue object: %w", err)
		}
	}
	f.tombstoneQueuedLocked(listed)
	f.tombstoneKnownLocked(listed)
	f.population.startLocked(f.order.len())
	return nil
}

// tombstoneQueuedLocked adds a deletion tombstone to every queued key that is
// not listed and whose newest delta is not a deletion.
func (f *DeltaFIFO) tombstoneQueuedLocked(listed map[string]struct{}) {
	for i := 0; i < f.order.len(); i++ {
		key := f.order.at(i)
		if _, ok := listed[key]; ok {
			continue
		}
		newest := f.items[key].Newest()
		if newest.Type == Deleted {
			continue
		}
		f.appendLocked(key, Delta{Type: Deleted, Object: DeletedFinalStateUnknown{Key: key, Obj: newest.Object}})
	}
}

// tombstoneKnownLocked adds a deletion tombstone for every key of
// knownObjects that is neither listed nor queued, in the store's key order.
// A key the store cannot produce gets a tombstone without object.
func (f *DeltaFIFO) tombstoneKnownLocked(listed map[string]struct{}) {
	if f.knownObjects == nil {
		return
	}
	for _, key := range f.knownObjects.ListKeys() {
		if _, ok := listed[key]; ok {
			continue
		}
		if _, queued := f.items[key]; queued {
			continue
		}
		obj, exists, err := f.knownObjects.GetByKey(key)
		switch {
		case err != nil:
			obj = nil
			utilruntime.HandleErrorWithLogger(f.namedLogger(), err, "Unexpected error during lookup, placing DeleteFinalStateUnknown marker without object", "key", key)
		case !exists:
			obj = nil
			f.namedLogger().Info("Key does not exist in known objects store, placing DeleteFinalStateUnknown marker without object", "key", key)
		}
		f.appendLocked(key, Delta{Type: Deleted, Object: DeletedFinalStateUnknown{Key: key, Obj: obj}})
	}
}

// Resync adds, with a Sync type of Delta, every object listed by
// `f.knownObjects` whose key is not already queued for processing, in the
// store's key order; the objects are not transformed again. If
// `f.knownObjects` is `nil` then Resync does nothing.
func (f *DeltaFIFO) Resync() error {
	if f.knownObjects == nil {
		return nil
	}
	f.lock.Lock()
	defer f.lock.Unlock()
	for _, key := range f.knownObjects.ListKeys() {
		if _, queued := f.items[key]; queued {
			continue
		}
		obj, exists, err := f.knownObjects.GetByKey(key)
		switch {
		case err != nil:
			utilruntime.HandleErrorWithLogger(f.namedLogger(), err, "Unexpected error during lookup, unable to queue object for sync", "key", key)
			continue
		case !exists:
			f.namedLogger().Info("Key does not exist in known objects store, unable to queue object for sync", "key", key)
			continue
		}
		f.appendLocked(key, Delta{Type: Sync, Object: obj})
	}
	return nil
}

// namedLogger returns the queue's logger with its name added. It is built on
// demand: only the rare diagnostics need it, and naming allocates.
func (f *DeltaFIFO) namedLogger() klog.Logger {
	return klog.LoggerWithName(f.logger, f.name)
}
