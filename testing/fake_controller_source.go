package framework

import (
	"math/rand"
	"strconv"
	"sync"

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

	// ListError, when set, is what List returns instead of a list.
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
func (f *FakeControllerSource) Add(obj runtime.Object) { f.record(watch.Added, obj, true) }

// AddDropWatch is Add without the broadcast: current watchers miss the
// event, later watches replay it.
func (f *FakeControllerSource) AddDropWatch(obj runtime.Object) { f.record(watch.Added, obj, false) }

// Modify stores obj under the next resource version (set on obj itself),
// adding it if unknown, and broadcasts a Modified event.
func (f *FakeControllerSource) Modify(obj runtime.Object) { f.record(watch.Modified, obj, true) }

// ModifyDropWatch is Modify without the broadcast.
func (f *FakeControllerSource) ModifyDropWatch(obj runtime.Object) {
	f.record(watch.Modified, obj, false)
}

// Delete removes lastValue's entry, gives lastValue the next resource
// version and broadcasts a Deleted event (also for an unknown object).
func (f *FakeControllerSource) Delete(lastValue runtime.Object) {
	f.record(watch.Deleted, lastValue, true)
}

// DeleteDropWatch is Delete without the broadcast.
func (f *FakeControllerSource) DeleteDropWatch(lastValue runtime.Object) {
	f.record(watch.Deleted, lastValue, false)
}

// record is Change with a certain broadcast decision.
func (f *FakeControllerSource) record(t watch.EventType, obj runtime.Object, broadcast bool) {
	probability := 0.0
	if broadcast {
		probability = 1
	}
	f.Change(watch.Event{Type: t, Object: obj}, probability)
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
