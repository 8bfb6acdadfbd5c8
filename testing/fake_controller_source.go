package framework

import (
	"errors"
	"fmt"
	"math/rand"
	"strconv"
	"sync"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// watcherQueueLength is the buffer of every watcher's result channel on the
// broadcaster; a watcher that stops reading blocks the source after the
// buffers fill up (the broadcaster waits on full channels).
const watcherQueueLength = 100

// errFutureResourceVersion is returned by Watch for a resource version the
// source has not reached yet.
var errFutureResourceVersion = errors.New("resource version in the future not supported by this fake")

// nnu identifies a stored object: namespace, name and UID. Two objects with
// the same name but different UIDs are different entries.
type nnu struct {
	// namespace of the object, empty when cluster-scoped.
	namespace string
	// name of the object.
	name string
	// uid of the object.
	uid types.UID
}

// FakeControllerSource is an in-memory ListerWatcher for tests.
//
// It keeps the current objects in Items and every change since creation (or
// since the last ResetWatch) in order, the i-th kept change carrying resource
// version firstKept+i; the newest change carries lastRV. Objects are stored
// and broadcast as given (their resource version is set in place); List and
// the replayed part of Watch hand out deep copies.
//
// lock guards Items, changes, lastRV and the Broadcaster pointer; it is held
// while a change is broadcast, so a watcher that stops reading eventually
// blocks every method. Shutdown keeps it locked forever.
type FakeControllerSource struct {
	// lock guards every other field except ListError.
	lock sync.RWMutex
	// Items holds the current objects, keyed by namespace, name and UID.
	Items map[nnu]runtime.Object
	// changes holds the recorded events since the last ResetWatch, oldest first.
	changes []watch.Event
	// Broadcaster delivers live changes to watchers; replaced by ResetWatch.
	Broadcaster *watch.Broadcaster
	// lastRV is the resource version of the newest change, 0 before any.
	lastRV int

	// Set this to simulate an error on List()
	ListError error
}

// NewFakeControllerSource returns an empty source at resource version 0.
func NewFakeControllerSource() *FakeControllerSource {
	return &FakeControllerSource{
		Items:       map[nnu]runtime.Object{},
		Broadcaster: watch.NewBroadcaster(watcherQueueLength, watch.WaitIfChannelFull),
	}
}

// Add stores obj under the next resource version (set on obj itself) and
// broadcasts an Added event.
func (f *FakeControllerSource) Add(obj runtime.Object) {
	f.Change(watch.Event{Type: watch.Added, Object: obj}, 1)
}

// Modify stores obj under the next resource version (set on obj itself),
// adding it if unknown, and broadcasts a Modified event.
func (f *FakeControllerSource) Modify(obj runtime.Object) {
	f.Change(watch.Event{Type: watch.Modified, Object: obj}, 1)
}

// Delete removes lastValue's entry, gives lastValue the next resource
// version and broadcasts a Deleted event (also for an unknown object).
func (f *FakeControllerSource) Delete(lastValue runtime.Object) {
	f.Change(watch.Event{Type: watch.Deleted, Object: lastValue}, 1)
}

// AddDropWatch is Add without the broadcast: current watchers miss the
// event, later watches replay it.
func (f *FakeControllerSource) AddDropWatch(obj runtime.Object) {
	f.Change(watch.Event{Type: watch.Added, Object: obj}, 0)
}

// ModifyDropWatch is Modify without the broadcast.
func (f *FakeControllerSource) ModifyDropWatch(obj runtime.Object) {
	f.Change(watch.Event{Type: watch.Modified, Object: obj}, 0)
}

// DeleteDropWatch is Delete without the broadcast.
func (f *FakeControllerSource) DeleteDropWatch(lastValue runtime.Object) {
	f.Change(watch.Event{Type: watch.Deleted, Object: lastValue}, 0)
}

// Change gives e.Object the next resource version, applies e to Items,
// records it for later watches and sends it to the current watchers with
// probability watchProbability (0 never, 1 always). Added and Modified
// store the object, Deleted removes it; other event types only take a
// resource version. A later Watch replays the event whether or not it was
// sent. It panics when the object has no object metadata.
func (f *FakeControllerSource) Change(e watch.Event, watchProbability float64) {
	f.lock.Lock()
	defer f.lock.Unlock()

	accessor, err := meta.Accessor(e.Object)
	if err != nil {
		panic(err)
	}
	f.lastRV++
	accessor.SetResourceVersion(strconv.Itoa(f.lastRV))
	f.applyLocked(e.Type, keyOf(accessor), e.Object)
	f.changes = append(f.changes, e)
	if rand.Float64() < watchProbability {
		// Action fails only after Shutdown, which keeps the lock held.
		_ = f.Broadcaster.Action(e.Type, e.Object)
	}
}

// applyLocked updates Items for one event. f.lock must be held for writing.
func (f *FakeControllerSource) applyLocked(t watch.EventType, key nnu, obj runtime.Object) {
	switch t {
	case watch.Added, watch.Modified:
		f.Items[key] = obj
	case watch.Deleted:
		delete(f.Items, key)
	}
}

// keyOf returns the Items key of an object.
func keyOf(accessor metav1.Object) nnu {
	return nnu{namespace: accessor.GetNamespace(), name: accessor.GetName(), uid: accessor.GetUID()}
}

// List returns a *v1.List at the current resource version whose items are
// deep copies of the stored objects, in no particular order. It returns
// (nil, ListError) when ListError is set.
func (f *FakeControllerSource) List(options metav1.ListOptions) (runtime.Object, error) {
	if f.ListError != nil {
		return nil, f.ListError
	}
	return f.listInto(&v1.List{})
}

// listInto fills list (a pointer to a list type) with deep copies of the
// stored objects and sets its resource version. It fails when an object
// cannot be an item of that list type.
func (f *FakeControllerSource) listInto(list runtime.Object) (runtime.Object, error) {
	f.lock.RLock()
	defer f.lock.RUnlock()
	objs := make([]runtime.Object, 0, len(f.Items))
	for _, obj := range f.Items {
		objs = append(objs, obj.DeepCopyObject())
	}
	if err := meta.SetList(list, objs); err != nil {
		return nil, err
	}
	listMeta, err := meta.ListAccessor(list)
	if err != nil {
		return nil, err
	}
	listMeta.SetResourceVersion(strconv.Itoa(f.lastRV))
	return list, nil
}

// Watch starts a watch from options.ResourceVersion: it first delivers deep
// copies of the recorded changes newer than that version, oldest first, then
// the live broadcast.
//
// The resource version must be an integer between the oldest kept change
// (the current one when none is kept) and the current one. An older one gives
// a 410 Expired error ("too old resource version: <rv> (<oldest>)"), a newer
// one an error; a non-integer one (including "") the strconv error.
func (f *FakeControllerSource) Watch(options metav1.ListOptions) (watch.Interface, error) {
	f.lock.RLock()
	defer f.lock.RUnlock()
	rv, err := strconv.Atoi(options.ResourceVersion)
	if err != nil {
		return nil, err
	}
	start, err := f.replayStartLocked(rv)
	if err != nil {
		return nil, err
	}
	replay := make([]watch.Event, 0, len(f.changes)-start)
	for _, e := range f.changes[start:] {
		replay = append(replay, watch.Event{Type: e.Type, Object: e.Object.DeepCopyObject()})
	}
	return f.Broadcaster.WatchWithPrefix(replay)
}

// replayStartLocked returns the index in changes of the first change after
// rv, or the error Watch reports for rv. f.lock must be held.
func (f *FakeControllerSource) replayStartLocked(rv int) (int, error) {
	firstKept := f.lastRV + 1 - len(f.changes)
	oldest := min(firstKept, f.lastRV)
	switch {
	case rv < oldest:
		return 0, apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", rv, oldest))
	case rv > f.lastRV:
		return 0, errFutureResourceVersion
	}
	return rv - firstKept + 1, nil
}

// ResetWatch simulates a broken connection: current watchers get their
// queued events and then a closed channel, a new Broadcaster takes over and
// the recorded history is dropped, so clients must list again before they
// can watch (only the current resource version is still watchable).
func (f *FakeControllerSource) ResetWatch() {
	f.lock.Lock()
	defer f.lock.Unlock()
	f.Broadcaster.Shutdown()
	f.Broadcaster = watch.NewBroadcaster(watcherQueueLength, watch.WaitIfChannelFull)
	f.changes = nil
}

// Shutdown stops the broadcaster after it delivered the queued events, which
// closes every watcher. The source is unusable afterwards: Shutdown keeps
// its lock, so any later call blocks forever.
func (f *FakeControllerSource) Shutdown() {
	f.lock.Lock() // never unlocked: every later call blocks
	f.Broadcaster.Shutdown()
}
