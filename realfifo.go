package cache

import (
	"fmt"

	"github.com/go-logr/logr"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"

	"github.com/kcache-go/cache/internal/ring"
)

// realFIFODefaultBatchSize is the most deltas PopBatch hands over at once.
const realFIFODefaultBatchSize = 1000

// realFIFOSmallBatch is the batch length up to which PopBatch looks for a
// repeated key by scanning the batch instead of filling a set.
const realFIFOSmallBatch = 16

// RealFIFOOptions configures NewRealFIFOWithOptions.
type RealFIFOOptions struct {
	// Logger replaces klog.Background() for the queue's diagnostics; the
	// queue's name is added to it. (klog.Logger is an alias of
	// logr.Logger.)
	Logger *logr.Logger

	// Name replaces the default name "RealFIFO" when Identifier has none.
	Name string

	// KeyFunction computes an object's key (a DeletedFinalStateUnknown
	// supplies its own). Default: MetaNamespaceKeyFunc.
	KeyFunction KeyFunc

	// KnownObjects is the consumer's store. Non-atomic Replace and Resync
	// consult it to synthesize deletions and Sync deltas, so it is required
	// without AtomicEvents and must be nil with it.
	KnownObjects KeyListerGetter

	// Transformer, if set, rewrites each object before it is queued; see
	// TransformFunc.
	Transformer TransformFunc

	// AtomicEvents makes Replace and Resync queue a single ReplacedAll or
	// SyncAll delta instead of one delta per object; it requires
	// KnownObjects to be nil. UnlockWhileProcessing releases the queue's
	// lock while the consumer's process function runs, so that producers
	// need not wait for a slow consumer, as long as fewer than 2000 deltas
	// remain queued (past that, producers wait: back-pressure); it requires
	// AtomicEvents.
	AtomicEvents, UnlockWhileProcessing bool

	// Identifier names the queue for metrics and logs. Its zero value
	// publishes no metrics.
	Identifier InformerNameAndResource

	// MetricsProvider creates the queue's metrics; nil means the provider
	// installed with SetInformerMetricsProvider.
	MetricsProvider InformerMetricsProvider

	// EmitDeltaTypeBookmark makes Bookmark queue a Bookmark delta. Requires
	// AtomicEvents.
	EmitDeltaTypeBookmark bool
}

// RealFIFO is the informer's default queue: it hands the consumer every
// change in the order the producer reported it, one Delta at a time,
// deletions included and nothing merged; several changes to one object
// arrive as several deltas.
//
// Every Add, Update and Delete appends one Delta. With
// AtomicEvents, Replace appends one ReplacedAll delta, Resync one SyncAll and
// Bookmark (when EmitDeltaTypeBookmark is set) one Bookmark delta; without
// it, Replace and Resync expand into per-object Deleted/Replaced/Sync deltas
// computed against the queue and KnownObjects.
//
// Invariants: pending holds the undelivered deltas oldest first, each
// per-object delta with the key of its object (queue-wide ReplacedAll,
// SyncAll and Bookmark deltas have no key); a Pop or PopBatch removes
// deltas from the head only.
//
// Locking: lock guards pending, closed, batchKeys and population's Locked
// part; cond (on lock) wakes a waiting consumer. All other fields are set by
// the constructor and never change. With UnlockWhileProcessing the lock is
// released while the single consumer runs its process function, as long as
// fewer than two batches (2000 deltas) remain queued.
type RealFIFO struct {
	// queueCore holds the lock, the consumer's condition, closed and
	// the initial population, with Close, IsClosed, HasSynced and Done.
	queueCore
	// pending holds the queued deltas with their keys, oldest first.
	pending ring.Queue[realFIFOEntry]
	// batchKeys is PopBatch's scratch set of the keys in the batch being
	// cut; allocated by the first batch that outgrows a linear scan.
	batchKeys map[string]struct{}

	// name identifies the queue in logs and as a DoneChecker.
	name string
	// logger receives the queue's diagnostics, under the queue's name (see
	// namedLogger).
	logger klog.Logger
	// keyFunc computes an object's key.
	keyFunc KeyFunc
	// knownObjects is the consumer's store, consulted by non-atomic
	// Replace and Resync; nil in atomic mode.
	knownObjects KeyListerGetter
	// transformer, when set, is applied to every object before it is queued.
	transformer TransformFunc
	// atomicEvents selects one ReplacedAll/SyncAll delta per Replace/Resync.
	atomicEvents bool
	// unlockWhileProcessing releases lock while the consumer processes.
	unlockWhileProcessing bool
	// emitBookmarks makes Bookmark queue a Bookmark delta.
	emitBookmarks bool
	// batchSize is the most deltas one PopBatch hands over.
	batchSize int
	// metrics publishes depth and latency; nil when not reserved.
	metrics *queueMetrics
}

// realFIFOEntry is one queued delta and the key of its object.
type realFIFOEntry struct {
	// delta is what Pop hands to the consumer.
	delta Delta
	// key is the object's key; unused for a queue-wide delta.
	key string
}

var (
	_ QueueWithBatch    = &RealFIFO{}
	_ TransformingStore = &RealFIFO{}
	_ DoneChecker       = &RealFIFO{}
)

// NewRealFIFO returns a non-atomic RealFIFO with the given key function,
// known objects (required) and transformer.
//
// Deprecated: Use NewRealFIFOWithOptions instead.
func NewRealFIFO(keyFunc KeyFunc, knownObjects KeyListerGetter, transformer TransformFunc) *RealFIFO {
	opts := RealFIFOOptions{KeyFunction: keyFunc}
	opts.KnownObjects, opts.Transformer = knownObjects, transformer
	return NewRealFIFOWithOptions(opts)
}

// NewRealFIFOWithOptions returns an empty RealFIFO configured by opts. It
// panics, as client-go does, on option combinations that cannot work:
// UnlockWhileProcessing or EmitDeltaTypeBookmark without AtomicEvents, and
// KnownObjects given with AtomicEvents or missing without it.
func NewRealFIFOWithOptions(opts RealFIFOOptions) *RealFIFO {
	if err := validateRealFIFOOptions(&opts); err != "" {
		panic(err)
	}
	f := &RealFIFO{
		name:                  realFIFOName(&opts),
		keyFunc:               opts.KeyFunction,
		knownObjects:          opts.KnownObjects,
		transformer:           opts.Transformer,
		atomicEvents:          opts.AtomicEvents,
		unlockWhileProcessing: opts.UnlockWhileProcessing,
		emitBookmarks:         opts.EmitDeltaTypeBookmark,
		batchSize:             realFIFODefaultBatchSize,
		metrics:               newQueueMetrics(opts.Identifier, opts.MetricsProvider),
	}
	if f.keyFunc == nil {
		f.keyFunc = MetaNamespaceKeyFunc
	}
	logger := klog.Background()
	if opts.Logger != nil {
		logger = *opts.Logger
	}
	f.logger = logger
	f.setUp()
	return f
}

// validateRealFIFOOptions returns the panic message for an option
// combination RealFIFO rejects, or "".
func validateRealFIFOOptions(opts *RealFIFOOptions) string {
	switch {
	case opts.UnlockWhileProcessing && !opts.AtomicEvents:
		return "coding error: UnlockWhileProcessing must be false when AtomicEvents is false"
	case !opts.AtomicEvents && opts.KnownObjects == nil:
		return "coding error: knownObjects must be provided when AtomicEvents is false"
	case opts.AtomicEvents && opts.KnownObjects != nil:
		return "coding error: knownObjects must not be provided when AtomicEvents is true"
	case opts.EmitDeltaTypeBookmark && !opts.AtomicEvents:
		return "coding error: EmitDeltaTypeBookmark must be false when AtomicEvents is false"
	}
	return ""
}

// realFIFOName picks the identifier's name, else opts.Name, else "RealFIFO".
func realFIFOName(opts *RealFIFOOptions) string {
	if n := opts.Identifier.Name(); n != "" {
		return n
	}
	if opts.Name != "" {
		return opts.Name
	}
	return "RealFIFO"
}

// keyOf computes the key of obj, wrapping a failure in a KeyError for obj.
// See keyTarget for what the key is taken from.
func (f *RealFIFO) keyOf(obj interface{}) (string, error) {
	target, err := keyTarget(obj)
	if err == nil {
		if d, ok := target.(DeletedFinalStateUnknown); ok {
			return d.Key, nil
		}
		var key string
		if key, err = f.keyFunc(target); err == nil {
			return key, nil
		}
	}
	return "", KeyError{Obj: obj, Err: err}
}

// keyTarget returns what RealFIFO takes obj's key from, as client-go does:
// the object of the newest delta of a Deltas, the object of a Delta (so a
// Deltas of one Delta gives that Delta's object), otherwise obj itself. An
// empty Deltas has none: the error is a KeyError with
// ErrZeroLengthDeltasObject (which keyOf then wraps once more).
func keyTarget(obj interface{}) (interface{}, error) {
	if ds, ok := obj.(Deltas); ok {
		newest := ds.Newest()
		if newest == nil {
			return nil, KeyError{Obj: obj, Err: ErrZeroLengthDeltasObject}
		}
		obj = newest.Object
	}
	if d, ok := obj.(Delta); ok {
		obj = d.Object
	}
	return obj, nil
}

// transform applies the transformer, if any. Tombstones pass unchanged: their
// object was transformed when it was first queued or stored.
func (f *RealFIFO) transform(obj interface{}) (interface{}, error) {
	if f.transformer == nil {
		return obj, nil
	}
	if _, ok := obj.(DeletedFinalStateUnknown); ok {
		return obj, nil
	}
	return f.transformer(obj)
}

// Name is the DoneChecker name: the identifier's, else Name, else
// "RealFIFO".
func (f *RealFIFO) Name() string { return f.name }

// HasSyncedChecker returns f itself: done when HasSynced turns true.
func (f *RealFIFO) HasSyncedChecker() DoneChecker { return f }

// Transformer returns the configured transformer (TransformingStore).
func (f *RealFIFO) Transformer() TransformFunc { return f.transformer }

// Add appends an Added delta for obj, whether or not it is already queued.
func (f *RealFIFO) Add(obj interface{}) error { return f.enqueue(Added, obj) }

// Update appends an Updated delta for obj.
func (f *RealFIFO) Update(obj interface{}) error { return f.enqueue(Updated, obj) }

// Delete appends a Deleted delta for obj, known or not.
func (f *RealFIFO) Delete(obj interface{}) error { return f.enqueue(Deleted, obj) }

// enqueue appends a delta of type t for obj. The key and the transformation
// are computed before taking the lock; the call counts as the queue's
// population (see HasSynced) even when it fails.
func (f *RealFIFO) enqueue(t DeltaType, obj interface{}) error {
	key, err := f.keyOf(obj)
	if err == nil {
		obj, err = f.transform(obj)
	}
	f.lock.Lock()
	defer f.lock.Unlock()
	f.population.markPopulatedLocked()
	if err != nil {
		return err
	}
	f.pushLocked(realFIFOEntry{delta: Delta{Type: t, Object: obj}, key: key})
	return nil
}

// pushLocked appends e, publishes the depth and wakes the consumer.
func (f *RealFIFO) pushLocked(e realFIFOEntry) {
	f.pending.Push(e)
	f.metrics.setDepth(f.pending.Len())
	f.cond.Signal()
}

// Bookmark queues a Bookmark delta carrying resourceVersion when the queue
// emits bookmarks (atomic mode with EmitDeltaTypeBookmark); otherwise it does
// nothing. It does not count as population.
func (f *RealFIFO) Bookmark(resourceVersion string) error {
	if !f.emitBookmarks {
		return nil
	}
	f.lock.Lock()
	defer f.lock.Unlock()
	// Like client-go, a queued bookmark is not published in the depth gauge
	// until the next push or pop sets it again.
	f.pending.Push(realFIFOEntry{delta: Delta{Type: Bookmark, Object: BookmarkInfo{ResourceVersion: resourceVersion}}})
	f.cond.Signal()
	return nil
}

// Resync, in atomic mode, queues one SyncAll delta. Otherwise it queues a Sync
// delta for every object of KnownObjects whose store key has no delta queued,
// in KnownObjects' key order, under the key the queue's own key function
// gives the object (the two differ when the queue and the store key objects
// differently). If that key function fails, Resync stops there and returns
// "couldn't queue object: %!w(<nil>)", as client-go does; the deltas queued
// before stay. It does not count as population.
func (f *RealFIFO) Resync() error {
	f.lock.Lock()
	defer f.lock.Unlock()
	if f.atomicEvents {
		f.pushLocked(realFIFOEntry{delta: Delta{Type: SyncAll, Object: SyncAllInfo{}}})
		return nil
	}
	queued := f.queuedKeysLocked()
	if known, ok := f.knownObjects.(storedObjectsLister); ok {
		for _, e := range known.storedExcept(func(key []byte) bool { return inKeySet(queued, key) }, false) {
			if err := f.syncKnownLocked(e.obj); err != nil {
				return err
			}
		}
		return nil
	}
	for _, key := range f.knownObjects.ListKeys() {
		if _, ok := queued[key]; ok {
			continue
		}
		obj, exists, err := f.knownObjects.GetByKey(key)
		if err != nil {
			utilruntime.HandleErrorWithLogger(f.namedLogger(), err, "Unable to queue object for sync", "key", key)
			continue
		}
		if !exists {
			utilruntime.HandleErrorWithLogger(f.namedLogger(), nil, "Key does not exist in known objects store, unable to queue object for sync", "key", key)
			continue
		}
		if err := f.syncKnownLocked(obj); err != nil {
			return err
		}
	}
	return nil
}

// syncKnownLocked queues a Sync delta for obj, a KnownObjects object, under
// the queue's own key for it; that key function failing is Resync's error.
func (f *RealFIFO) syncKnownLocked(obj interface{}) error {
	id, err := f.keyOf(obj)
	if err != nil {
		return realFIFOResyncError(nil)
	}
	f.pushLocked(realFIFOEntry{delta: Delta{Type: Sync, Object: obj}, key: id})
	return nil
}

// inKeySet reports whether set holds key, without building a string.
func inKeySet(set map[string]struct{}, key []byte) bool {
	_, ok := set[string(key)]
	return ok
}

// realFIFOResyncError is the error a non-atomic Resync stops with when the
// queue's key function fails on a known object. NB: client-go wraps the
// lookup's error, which is nil at that point, so its message ends in
// "%!w(<nil>)" and carries no cause; kcache gives the same error.
func realFIFOResyncError(lookupErr error) error {
	return fmt.Errorf("couldn't queue object: %w", lookupErr)
}

// queuedKeysLocked returns the set of keys with at least one queued delta.
func (f *RealFIFO) queuedKeysLocked() map[string]struct{} {
	keys := make(map[string]struct{}, f.pending.Len())
	for i := 0; i < f.pending.Len(); i++ {
		if e := f.pending.At(i); e.delta.Type.perObject() {
			keys[e.key] = struct{}{}
		}
	}
	return keys
}

// Replace hands the queue a complete list of objects at resourceVersion.
//
// In atomic mode it transforms the objects (into a new slice: newItems is
// never written) and queues one ReplacedAll delta; a transformer error is
// returned as is and nothing is queued.
//
// Otherwise it
//  1. finds the keys with deltas queued, not in newItems and whose newest
//     delta is not a deletion, and queues a Deleted DeletedFinalStateUnknown
//     for each, holding the newest queued object (in order of first queueing;
//     a queued tombstone is held as it is, tombstone in tombstone, as
//     client-go does);
//  2. does the same for keys of KnownObjects not in newItems and not queued,
//     holding the known object;
//  3. queues a Replaced delta per object of newItems, in order.
//
// A key error stops it before anything is queued; a transformer error stops
// it after the deltas queued so far ("couldn't enqueue object: ...").
// The first successful Replace before any Add/Update/Delete makes every delta
// then queued part of the initial population.
func (f *RealFIFO) Replace(newItems []interface{}, resourceVersion string) error {
	return f.replace(newItems, resourceVersion, f.transformer)
}

// replaceTransformed is Replace for objects that the Reflector has already
// passed through f's transformer, page by page as a list arrived; they are
// not transformed again. It implements the Reflector's transformedReplacer.
func (f *RealFIFO) replaceTransformed(newItems []interface{}, resourceVersion string) error {
	return f.replace(newItems, resourceVersion, nil)
}

// replacePartlyTransformed is Replace for a list the Reflector transformed
// up to failAt, where the transformer refused the object with failure; it
// implements the Reflector's transformedReplacer.
func (f *RealFIFO) replacePartlyTransformed(newItems []interface{}, resourceVersion string, failAt int, failure error) error {
	return f.replace(newItems, resourceVersion, refusingAfter(failAt, failure))
}

// checkReplaceKey is the key error Replace stops at for obj (none in
// atomic mode, which does not key a Replace); it implements the Reflector's
// transformedReplacer.
func (f *RealFIFO) checkReplaceKey(obj interface{}) error {
	if f.atomicEvents {
		return nil
	}
	_, err := f.keyOf(obj)
	return err
}

// keysBeforeTransform is true outside atomic mode: Replace keys every
// object before transforming any (the Reflector's transformedReplacer).
func (f *RealFIFO) keysBeforeTransform() bool { return !f.atomicEvents }

// replace is Replace with the given transformer (nil: none).
func (f *RealFIFO) replace(newItems []interface{}, resourceVersion string, transform TransformFunc) error {
	if f.atomicEvents {
		return f.replaceAtomic(newItems, resourceVersion, transform)
	}
	return f.replaceEach(newItems, transform)
}

// replaceAtomic is Replace in atomic mode.
func (f *RealFIFO) replaceAtomic(newItems []interface{}, resourceVersion string, transform TransformFunc) error {
	if transform != nil {
		transformed, err := transformAll(newItems, transform)
		if err != nil {
			return err
		}
		newItems = transformed
	}
	f.lock.Lock()
	defer f.lock.Unlock()
	f.pushLocked(realFIFOEntry{delta: Delta{
		Type:   ReplacedAll,
		Object: ReplacedAllInfo{ResourceVersion: resourceVersion, Objects: newItems},
	}})
	f.population.startLocked(f.pending.Len())
	return nil
}

// replaceEach is Replace in non-atomic mode.
func (f *RealFIFO) replaceEach(newItems []interface{}, transform TransformFunc) error {
	keys := make([]string, len(newItems))
	listed := make(map[string]struct{}, len(newItems))
	for i, obj := range newItems {
		key, err := f.keyOf(obj)
		if err != nil {
			return err
		}
		keys[i] = key
		listed[key] = struct{}{}
	}
	objects, transformErr := newItems, error(nil)
	if transform != nil {
		objects, transformErr = transformAll(newItems, transform)
	}

	f.lock.Lock()
	defer f.lock.Unlock()
	f.pending.Reserve(len(newItems))
	queued := f.tombstoneQueuedLocked(listed)
	f.tombstoneKnownLocked(listed, queued)
	for i, obj := range objects {
		f.pushLocked(realFIFOEntry{delta: Delta{Type: Replaced, Object: obj}, key: keys[i]})
	}
	if transformErr != nil {
		return fmt.Errorf("couldn't enqueue object: %w", transformErr)
	}
	f.population.startLocked(f.pending.Len())
	return nil
}

// transformAll returns the objects of list passed through transform
// (tombstones pass unchanged), in a new slice (list itself is never written,
// so a caller may retry with it), up to the first failure, which it returns
// with the objects transformed before it.
func transformAll(list []interface{}, transform TransformFunc) ([]interface{}, error) {
	out := make([]interface{}, 0, len(list))
	for _, obj := range list {
		if _, tombstone := obj.(DeletedFinalStateUnknown); tombstone {
			out = append(out, obj)
			continue
		}
		t, err := transform(obj)
		if err != nil {
			return out, err
		}
		out = append(out, t)
	}
	return out, nil
}

// queuedNewest is a key with queued deltas and its newest queued delta.
type queuedNewest struct {
	// key is the object key.
	key string
	// newest is the most recently queued delta for key.
	newest Delta
}

// tombstoneQueuedLocked queues a deletion tombstone for every key with
// queued deltas that is not listed and not already deleted, and returns the
// set of queued keys.
func (f *RealFIFO) tombstoneQueuedLocked(listed map[string]struct{}) map[string]struct{} {
	byKey := make(map[string]int, f.pending.Len())
	var order []queuedNewest
	for i := 0; i < f.pending.Len(); i++ {
		e := f.pending.At(i)
		if !e.delta.Type.perObject() {
			continue // queue-wide delta: no object
		}
		if at, seen := byKey[e.key]; seen {
			order[at].newest = e.delta
			continue
		}
		byKey[e.key] = len(order)
		order = append(order, queuedNewest{key: e.key, newest: e.delta})
	}
	queued := make(map[string]struct{}, len(order))
	for _, q := range order {
		queued[q.key] = struct{}{}
		if _, ok := listed[q.key]; ok || q.newest.Type == Deleted {
			continue
		}
		f.pushTombstoneLocked(q.key, q.newest.Object)
	}
	return queued
}

// tombstoneKnownLocked queues a deletion tombstone for every key of
// knownObjects that is neither listed nor queued. A key the store cannot
// produce gets a tombstone without object.
func (f *RealFIFO) tombstoneKnownLocked(listed, queued map[string]struct{}) {
	if known, ok := f.knownObjects.(storedObjectsLister); ok {
		skip := func(key []byte) bool { return inKeySet(listed, key) || inKeySet(queued, key) }
		for _, e := range known.storedExcept(skip, true) {
			f.pushTombstoneLocked(e.key, e.obj)
		}
		return
	}
	for _, key := range f.knownObjects.ListKeys() {
		if _, ok := listed[key]; ok {
			continue
		}
		if _, ok := queued[key]; ok {
			continue
		}
		obj, exists, err := f.knownObjects.GetByKey(key)
		switch {
		case err != nil:
			obj = nil
			utilruntime.HandleErrorWithLogger(f.namedLogger(), err, "Error during lookup, placing DeleteFinalStateUnknown marker without object", "key", key)
		case !exists:
			obj = nil
			utilruntime.HandleErrorWithLogger(f.namedLogger(), nil, "Key does not exist in known objects store, placing DeleteFinalStateUnknown marker without object", "key", key)
		}
		f.pushTombstoneLocked(key, obj)
	}
}

// pushTombstoneLocked queues a deletion tombstone of key holding obj, its
// last known object (nil when unknown).
func (f *RealFIFO) pushTombstoneLocked(key string, obj interface{}) {
	f.pushLocked(realFIFOEntry{
		delta: Delta{Type: Deleted, Object: DeletedFinalStateUnknown{Key: key, Obj: obj}},
		key:   key,
	})
}

// waitLocked blocks until a delta is queued (true) or the queue is closed
// and empty (false).
func (f *RealFIFO) waitLocked() bool {
	for f.pending.Len() == 0 {
		if f.closed {
			return false
		}
		f.cond.Wait()
	}
	return true
}

// Pop waits for a delta (or for Close on an empty queue: ErrFIFOClosed),
// removes the oldest, and runs process on a Deltas holding just it, which it
// then returns with process's error; the delta is never queued again.
// process runs under the queue's lock unless UnlockWhileProcessing is set
// and fewer than 2000 deltas remain queued: state that must change in step
// with the queue needs the lock held. Call Pop from a single consumer
// goroutine.
func (f *RealFIFO) Pop(process PopProcessFunc) (interface{}, error) {
	f.lock.Lock()
	defer f.lock.Unlock()
	if !f.waitLocked() {
		return nil, ErrFIFOClosed
	}
	initial := !f.population.hasSynced()
	// NB: deferred, so that an item whose processing panicked (and was
	// recovered) still counts as processed, as in client-go.
	defer f.population.processedLocked(f.population.countLocked(1))
	var item interface{} = Deltas{f.pending.Pop().delta}
	f.metrics.setDepth(f.pending.Len())
	start := f.metrics.start()
	err := f.processOneLocked(process, item, initial)
	f.metrics.observeSince(start)
	return item, err
}

// PopBatch waits like Pop, then removes the next batch and hands it to
// processBatch, or, when the batch is a single delta, hands that delta as a
// Deltas to processSingle.
//
// A batch is the longest run from the head of at most 1000 per-object deltas
// with distinct keys; it ends before a repeated key, before a ReplacedAll,
// SyncAll or Bookmark delta, at the end of the initial population, and
// right after a delta whose object is a Deltas or a Delta that the key
// function cannot key as it is (see batchKeyLocked). A run
// of one delta goes to processSingle. The functions run under the queue's
// lock unless UnlockWhileProcessing is set and fewer than 2000 deltas remain
// queued after the batch was removed. Call PopBatch from a single
// consumer goroutine. Errors are returned; popped deltas are not queued
// again.
func (f *RealFIFO) PopBatch(processBatch ProcessBatchFunc, processSingle PopProcessFunc) error {
	f.lock.Lock()
	defer f.lock.Unlock()
	if !f.waitLocked() {
		return ErrFIFOClosed
	}
	initial := !f.population.hasSynced()
	n := f.batchLenLocked()
	// NB: deferred, see Pop.
	defer f.population.processedLocked(f.population.countLocked(n))
	var err error
	if n == 1 {
		var item interface{} = Deltas{f.pending.Pop().delta}
		f.metrics.setDepth(f.pending.Len())
		start := f.metrics.start()
		err = f.processOneLocked(processSingle, item, initial)
		f.metrics.observeSince(start)
	} else {
		batch := make([]Delta, n)
		for i := range batch {
			batch[i] = f.pending.Pop().delta
		}
		f.metrics.setDepth(f.pending.Len())
		start := f.metrics.start()
		err = f.processBatchLocked(processBatch, batch, initial)
		f.metrics.observeSince(start)
	}
	return err
}

// batchLenLocked returns how many deltas from the head form the next batch
// (at least one; the queue is not empty).
func (f *RealFIFO) batchLenLocked() int {
	head := f.pending.At(0)
	if !head.delta.Type.perObject() {
		return 1
	}
	if _, ok := f.batchKeyLocked(&head); !ok {
		return 1
	}
	limit := min(f.batchSize, f.pending.Len())
	if p := f.population.pendingLocked(); p > 0 {
		limit = min(limit, p)
	}
	n := 1
	for ; n < limit; n++ {
		e := f.pending.At(n)
		if !e.delta.Type.perObject() {
			break
		}
		key, ok := f.batchKeyLocked(&e)
		if !ok {
			n++ // NB: client-go takes it into the batch, then ends the batch
			break
		}
		if f.batchHasKeyLocked(n, key) {
			break
		}
	}
	clear(f.batchKeys)
	return n
}

// batchKeyLocked returns the key PopBatch tells the deltas of a batch apart
// by, as client-go does: the queued key, except for a delta whose object is
// a Deltas or a Delta (which Add, Update and Delete key by the object
// inside), which is keyed by the key function as it is. ok is false when
// that fails; the batch then ends after this delta.
func (f *RealFIFO) batchKeyLocked(e *realFIFOEntry) (key string, ok bool) {
	switch e.delta.Object.(type) {
	case Deltas, Delta:
		k, err := f.keyFunc(e.delta.Object)
		return k, err == nil
	}
	return e.key, true
}

// batchHasKeyLocked reports whether key occurs among the batch keys of the
// first n queued deltas, which are distinct. Short batches are scanned; from
// realFIFOSmallBatch on, batchKeys is filled once and then consulted.
func (f *RealFIFO) batchHasKeyLocked(n int, key string) bool {
	if n < realFIFOSmallBatch {
		for i := 0; i < n; i++ {
			e := f.pending.At(i)
			if k, _ := f.batchKeyLocked(&e); k == key {
				return true
			}
		}
		return false
	}
	if f.batchKeys == nil {
		f.batchKeys = make(map[string]struct{}, f.batchSize)
	}
	if len(f.batchKeys) == 0 {
		for i := 0; i < n; i++ {
			e := f.pending.At(i)
			k, _ := f.batchKeyLocked(&e)
			f.batchKeys[k] = struct{}{}
		}
	}
	if _, dup := f.batchKeys[key]; dup {
		return true
	}
	f.batchKeys[key] = struct{}{}
	return false
}

// processOneLocked calls process, releasing the lock around the call when
// mayUnlockLocked allows it. The lock is held again on return, even if
// process panics.
func (f *RealFIFO) processOneLocked(process PopProcessFunc, item interface{}, initial bool) error {
	if f.mayUnlockLocked() {
		f.lock.Unlock()
		defer f.lock.Lock()
	}
	return process(item, initial)
}

// processBatchLocked is processOneLocked for a batch.
func (f *RealFIFO) processBatchLocked(process ProcessBatchFunc, batch []Delta, initial bool) error {
	if f.mayUnlockLocked() {
		f.lock.Unlock()
		defer f.lock.Lock()
	}
	return process(batch, initial)
}

// mayUnlockLocked reports whether the consumer may process with the lock
// released: only with UnlockWhileProcessing, and only while fewer than two
// batches' worth of deltas remain queued (after the ones being processed
// were removed), as in client-go. NB: holding the lock while a backlog
// waits is the back-pressure that stops a producer in a burst from growing
// the queue without bound (benchmarks/queue_burst_test.go).
func (f *RealFIFO) mayUnlockLocked() bool {
	return f.unlockWhileProcessing && f.pending.Len() < 2*f.batchSize
}

// namedLogger returns the queue's logger with its name added. It is built on
// demand: only the rare diagnostics need it, and naming allocates.
func (f *RealFIFO) namedLogger() klog.Logger {
	return klog.LoggerWithName(f.logger, f.name)
}
