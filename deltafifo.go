package cache

import (
	"fmt"

	"github.com/go-logr/logr"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"

	"github.com/kcache-go/cache/internal/ring"
)

// DeltaFIFOOptions configures NewDeltaFIFOWithOptions; every field may be
// left zero.
type DeltaFIFOOptions struct {
	// Logger replaces klog.Background() for the queue's diagnostics; the
	// queue's name is added to it. (klog.Logger is an alias of
	// logr.Logger.)
	Logger *logr.Logger

	// Name replaces the default name "DeltaFIFO".
	Name string

	// KeyFunction computes an object's key; KeyOf adds the handling of
	// Deltas and DeletedFinalStateUnknown. Default: MetaNamespaceKeyFunc.
	KeyFunction KeyFunc

	// KnownObjects is the consumer's store. With it, Replace also
	// synthesizes deletions for the keys it holds that the new list lacks,
	// Delete accepts objects only it holds, and Resync has something to
	// resync. Without it, deletions missed during a relist are not seen.
	KnownObjects KeyListerGetter

	// EmitDeltaTypeReplaced makes Replace give each listed object a
	// Replaced delta. It is off by default for compatibility: the listed
	// objects then get Sync deltas, indistinguishable from a resync.
	EmitDeltaTypeReplaced bool

	// Transformer, if set, rewrites each object before it is queued; see
	// TransformFunc.
	Transformer TransformFunc
}

// DeltaFIFO is a Queue, a TransformingStore and its own DoneChecker.
var (
	_ Queue             = &DeltaFIFO{}
	_ TransformingStore = &DeltaFIFO{}
	_ DoneChecker       = &DeltaFIFO{}
)

// DeltaFIFO is the compatibility queue: it accumulates, per key, every
// change since the key was last popped, and Pop hands the consumer the whole
// Deltas of one key. A key waits in the queue at most once, at the position
// of its first change. Two deletions in a row collapse into one, keeping the
// older unless the older is a DeletedFinalStateUnknown. Besides Added,
// Updated and Deleted, Replace adds Replaced deltas (Sync unless
// EmitDeltaTypeReplaced is set) and Resync adds Sync deltas.
//
// The Reflector produces into it and one consumer calls Pop. It fits a
// consumer that wants each change at most once, all the changes to an object
// together, deletions included, and possibly periodic reprocessing.
//
// KnownObjects, when given, are the objects the consumer already holds; they
// shape Delete, Replace and Resync as described on each. Pop always returns
// a Deltas. Popping from several goroutines would let them process versions
// of one object concurrently.
//
// Invariants: a key is in items exactly when it is in order, once; every
// Deltas in items is non-empty; itemsPeak is at least len(items).
//
// Memory: a burst (a Replace of many objects) grows items and order; both
// give the memory back once drained (see releaseDrainedItemsLocked and
// ring.Queue), so what outlives the burst is bounded: a map for at most
// 1,024 keys and a ring of at most its kept size.
//
// Locking: lock guards items, itemsPeak, order, closed and population's
// Locked part; cond (on lock) wakes a waiting Pop. The other fields are set by the
// constructor and never change. Pop runs process under lock.
type DeltaFIFO struct {
	// queueCore holds the lock, the consumer's condition, closed and
	// the initial population, with Close, IsClosed, HasSynced and Done.
	queueCore
	// items maps a queued key to its accumulated deltas, oldest first.
	items map[string]Deltas
	// itemsPeak is the most keys items has held, or was sized for (a
	// Replace into an empty queue sizes it for its list), since it was
	// made: a Go map keeps the buckets of its largest size even once
	// emptied.
	itemsPeak int
	// order holds the queued keys, each once, in the order they were queued.
	order ring.Queue[string]

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

// NewDeltaFIFO returns a DeltaFIFO with the given key function and known
// objects (may be nil). Its Replace gives listed objects Sync deltas, so a
// consumer cannot tell a relist from a resync (https://issue.k8s.io/86015);
// set EmitDeltaTypeReplaced through NewDeltaFIFOWithOptions to get Replaced.
//
// Deprecated: use NewDeltaFIFOWithOptions with KeyFunction keyFunc and
// KnownObjects knownObjects, which is what this calls.
func NewDeltaFIFO(keyFunc KeyFunc, knownObjects KeyListerGetter) *DeltaFIFO {
	return NewDeltaFIFOWithOptions(DeltaFIFOOptions{
		KeyFunction:  keyFunc,
		KnownObjects: knownObjects,
	})
}

// NewDeltaFIFOWithOptions returns an empty DeltaFIFO configured by opts.
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
	f.setUp()
	return f
}

// Name is the DoneChecker name: Name from the options, else "DeltaFIFO".
func (f *DeltaFIFO) Name() string { return f.name }

// HasSyncedChecker returns f itself: done when HasSynced turns true.
func (f *DeltaFIFO) HasSyncedChecker() DoneChecker { return f }

// Transformer returns the configured transformer (TransformingStore).
func (f *DeltaFIFO) Transformer() TransformFunc { return f.transformer }

// KeyOf returns obj's key: for a Deltas, the key of its newest object (a
// KeyError with ErrZeroLengthDeltasObject when it is empty); for a
// DeletedFinalStateUnknown, its Key; otherwise keyFunc's answer, error
// included, unwrapped.
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

// Add appends an Added delta to obj's key, queueing the key if it is not
// queued.
func (f *DeltaFIFO) Add(obj interface{}) error {
	f.lock.Lock()
	defer f.lock.Unlock()
	f.population.markPopulatedLocked()
	return f.queueActionLocked(Added, obj)
}

// Update appends an Updated delta, like Add.
func (f *DeltaFIFO) Update(obj interface{}) error {
	f.lock.Lock()
	defer f.lock.Unlock()
	f.population.markPopulatedLocked()
	return f.queueActionLocked(Updated, obj)
}

// Delete appends a Deleted delta, like Add, but only for an object the queue
// or the consumer knows: its key is queued, or KnownObjects holds it (a
// lookup error counts as holding it). Otherwise it does nothing: a relist may
// already have reported the deletion.
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
	return f.queueTransformedLocked(key, t, obj, f.transformer)
}

// queueTransformedLocked is queueKeyedLocked with the given transformer
// (nil: none).
func (f *DeltaFIFO) queueTransformedLocked(key string, t DeltaType, obj interface{}, transformer TransformFunc) error {
	if transformer != nil {
		if _, tombstone := obj.(DeletedFinalStateUnknown); !tombstone {
			transformed, err := transformer(obj)
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
		f.order.Push(key)
		f.itemsPeak = max(f.itemsPeak, len(f.items))
	}
	f.cond.Signal()
}

// releaseDrainedItemsLocked gives back the memory of a drained burst (see
// releaseDrainedItems).
func (f *DeltaFIFO) releaseDrainedItemsLocked() {
	f.items, f.itemsPeak = releaseDrainedItems(f.items, f.itemsPeak)
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

// Pop waits for a queued key (or for Close on an empty queue:
// ErrFIFOClosed), removes it with its Deltas, runs process on the Deltas
// under the queue's lock, and returns the Deltas with process's error.
// Keys come out in the order they were first queued. Running under the lock
// lets process update state that must stay in step with the queue (such as
// the KnownObjects store); it must not call the queue (HasSynced excepted)
// and should be quick, since producers wait meanwhile. A failed Deltas is
// not queued again: a consumer that wants a retry must write it back.
func (f *DeltaFIFO) Pop(process PopProcessFunc) (interface{}, error) {
	f.lock.Lock()
	defer f.lock.Unlock()
	for f.order.Len() == 0 {
		if f.closed {
			return nil, ErrFIFOClosed
		}
		f.cond.Wait()
	}
	initial := !f.population.hasSynced()
	// NB: deferred, so that an item whose processing panicked (and was
	// recovered) still counts as processed, as in client-go.
	defer f.population.processedLocked(f.population.countLocked(1))
	key := f.order.Pop()
	var item interface{} = f.items[key]
	delete(f.items, key)
	f.releaseDrainedItemsLocked()
	err := process(item, initial)
	return item, err
}

// Replace, under one lock, gives every object of list a Replaced (or Sync)
// delta, then records a deletion for each key the queue or the consumer knew
// that list lacks: a Deleted delta holding DeletedFinalStateUnknown{key,
// last}, where last is the newest queued object for the key (unwrapped when
// it is a tombstone itself), or else the KnownObjects one. Known keys are visited in KnownObjects' order. A key
// whose newest queued delta is already a deletion gets nothing more.
//
// A key error is returned as is and stops the call; a transformer error is
// returned as "couldn't enqueue object: ...", its text only, not wrapped
// (errors.Is does not find it), as in client-go, whose RealFIFO wraps it;
// in both cases the objects
// before it stay queued and no deletions are made. The first successful
// Replace before any Add/Update/Delete makes every key then queued the
// initial population.
func (f *DeltaFIFO) Replace(list []interface{}, _ string) error {
	return f.replace(list, f.transformer)
}

// replaceTransformed is Replace for objects that the Reflector has already
// passed through f's transformer, page by page as a list arrived; they are
// not transformed again. It implements the Reflector's transformedReplacer.
func (f *DeltaFIFO) replaceTransformed(list []interface{}, _ string) error {
	return f.replace(list, nil)
}

// replacePartlyTransformed is Replace for a list the Reflector transformed
// up to failAt, where the transformer refused the object with failure; it
// implements the Reflector's transformedReplacer.
func (f *DeltaFIFO) replacePartlyTransformed(list []interface{}, _ string, failAt int, failure error) error {
	return f.replace(list, refusingAfter(failAt, failure))
}

// checkReplaceKey is the key error Replace stops at for obj; it implements
// the Reflector's transformedReplacer.
func (f *DeltaFIFO) checkReplaceKey(obj interface{}) error {
	_, err := f.keyErrOf(obj)
	return err
}

// keysBeforeTransform is false: Replace keys and transforms one object
// after the other (the Reflector's transformedReplacer).
func (f *DeltaFIFO) keysBeforeTransform() bool { return false }

// replace is Replace with the given transformer (nil: none).
func (f *DeltaFIFO) replace(list []interface{}, transformer TransformFunc) error {
	f.lock.Lock()
	defer f.lock.Unlock()
	listed := make(map[string]struct{}, len(list))
	if len(f.items) == 0 {
		f.items = make(map[string]Deltas, len(list)) // skip growing it step by step
		f.itemsPeak = len(list)                      // its buckets, whatever gets queued
	}
	f.order.Reserve(len(list))
	for _, obj := range list {
		key, err := f.keyErrOf(obj)
		if err != nil {
			return err
		}
		listed[key] = struct{}{}
		if err := f.queueTransformedLocked(key, f.replacedType, obj, transformer); err != nil {
			// NB: %v, not %w: client-go's DeltaFIFO formats the cause.
			return fmt.Errorf("couldn't enqueue object: %v", err)
		}
	}
	f.tombstoneQueuedLocked(listed)
	f.tombstoneKnownLocked(listed)
	f.population.startLocked(f.order.Len())
	return nil
}

// tombstoneQueuedLocked adds a deletion tombstone to every queued key that is
// not listed and whose newest delta is not a deletion. When that newest
// object is itself a DeletedFinalStateUnknown (listed earlier as one), the
// new tombstone holds the object inside it.
func (f *DeltaFIFO) tombstoneQueuedLocked(listed map[string]struct{}) {
	for i := 0; i < f.order.Len(); i++ {
		key := f.order.At(i)
		if _, ok := listed[key]; ok {
			continue
		}
		newest := f.items[key].Newest()
		if newest.Type == Deleted {
			continue
		}
		last := newest.Object
		if t, ok := last.(DeletedFinalStateUnknown); ok {
			last = t.Obj // NB: never a tombstone inside a tombstone
		}
		f.appendTombstoneLocked(key, last)
	}
}

// tombstoneKnownLocked adds a deletion tombstone for every key of
// knownObjects that is neither listed nor queued, in the store's key order.
// A key the store cannot produce gets a tombstone without object.
func (f *DeltaFIFO) tombstoneKnownLocked(listed map[string]struct{}) {
	if f.knownObjects == nil {
		return
	}
	if known, ok := f.knownObjects.(storedObjectsLister); ok {
		for _, e := range known.storedExcept(f.listedOrQueued(listed), true) {
			f.appendTombstoneLocked(e.key, e.obj)
		}
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
		f.appendTombstoneLocked(key, obj)
	}
}

// appendTombstoneLocked adds a deletion tombstone of key holding obj, its
// last known object (nil when unknown).
func (f *DeltaFIFO) appendTombstoneLocked(key string, obj interface{}) {
	f.appendLocked(key, Delta{Type: Deleted, Object: DeletedFinalStateUnknown{Key: key, Obj: obj}})
}

// listedOrQueued returns a test, for storedExcept, of whether a key is
// listed or has deltas queued.
func (f *DeltaFIFO) listedOrQueued(listed map[string]struct{}) func(key []byte) bool {
	return func(key []byte) bool {
		if inKeySet(listed, key) {
			return true
		}
		_, queued := f.items[string(key)]
		return queued
	}
}

// Resync gives a Sync delta, holding the KnownObjects object as it is (not
// transformed again), to every object of KnownObjects, in KnownObjects'
// order, whose key (by the queue's KeyOf, which may differ from the store's
// key) is not queued. A key error stops it and is returned as a KeyError;
// the deltas given before stay. Without KnownObjects it does nothing.
func (f *DeltaFIFO) Resync() error {
	if f.knownObjects == nil {
		return nil
	}
	f.lock.Lock()
	defer f.lock.Unlock()
	if known, ok := f.knownObjects.(storedObjectsLister); ok {
		for _, e := range known.storedExcept(nil, false) {
			if err := f.syncObjectLocked(e.obj); err != nil {
				return err
			}
		}
		return nil
	}
	for _, key := range f.knownObjects.ListKeys() {
		if err := f.syncKnownLocked(key); err != nil {
			return err
		}
	}
	return nil
}

// syncKnownLocked gives the KnownObjects object of store key a Sync delta
// under its queue key, unless that key is queued. A failed lookup is logged
// and skipped; a key error is returned.
func (f *DeltaFIFO) syncKnownLocked(key string) error {
	obj, exists, err := f.knownObjects.GetByKey(key)
	switch {
	case err != nil:
		utilruntime.HandleErrorWithLogger(f.namedLogger(), err, "Unexpected error during lookup, unable to queue object for sync", "key", key)
		return nil
	case !exists:
		f.namedLogger().Info("Key does not exist in known objects store, unable to queue object for sync", "key", key)
		return nil
	}
	return f.syncObjectLocked(obj)
}

// syncObjectLocked gives obj, a KnownObjects object, a Sync delta under its
// queue key, unless that key is queued; a key error is returned.
func (f *DeltaFIFO) syncObjectLocked(obj interface{}) error {
	id, err := f.keyErrOf(obj)
	if err != nil {
		return err
	}
	if _, queued := f.items[id]; !queued {
		f.appendLocked(id, Delta{Type: Sync, Object: obj})
	}
	return nil
}

// namedLogger returns the queue's logger with its name added. It is built on
// demand: only the rare diagnostics need it, and naming allocates.
func (f *DeltaFIFO) namedLogger() klog.Logger {
	return klog.LoggerWithName(f.logger, f.name)
}
