package framework

import (
	"errors"
	"fmt"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// errFutureResourceVersion is returned by Watch for a resource version the
// source has not reached yet.
var errFutureResourceVersion = errors.New("resource version in the future not supported by this fake")

// Watch starts a watch from options.ResourceVersion: it first delivers deep
// copies of the recorded changes newer than that version, oldest first, then
// the live broadcast.
//
// The resource version must be an integer between the version the oldest
// kept change's object carries now (the current version when none is
// kept) and the current one. A newer one gives an error, an older one a 410
// Expired error ("too old resource version: <rv> (<oldest>)"); a
// non-integer one (including "") the strconv error. The current version
// itself always opens a watch without replay. A kept object whose version
// was rewritten below its own can put the replay start past the newest
// change; Watch then panics with the runtime's slice-bounds error.
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
	// NB: slicing before sizing the copy makes a start past the end (a
	// kept object's version rewritten below the oldest) panic with the
	// slice-bounds error client-go's fake gives.
	changes := f.changes[start:]
	replay := make([]watch.Event, 0, len(changes))
	for _, e := range changes {
		replay = append(replay, watch.Event{Type: e.Type, Object: e.Object.DeepCopyObject()})
	}
	return f.Broadcaster.WatchWithPrefix(replay)
}

// replayStartLocked returns the index in changes of the first change after
// rv, or the error Watch reports for rv. f.lock must be held.
//
// NB: the oldest watchable version is read from the object of the oldest
// kept change as it is now, as client-go's fake does: a caller that hands
// the source the same pointer again (Add then Modify) moves it forward, so
// older watches fail as too old; an object whose version is no longer an
// integer makes Watch panic with the strconv error.
func (f *FakeControllerSource) replayStartLocked(rv int) (int, error) {
	switch {
	case rv > f.lastRV:
		return 0, errFutureResourceVersion
	case rv == f.lastRV:
		return len(f.changes), nil
	}
	oldest := f.lastRV
	if len(f.changes) > 0 {
		oldest = mustIntegerVersion(f.changes[0].Object)
	}
	if rv < oldest {
		return 0, apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", rv, oldest))
	}
	return rv - oldest + 1, nil
}

// mustIntegerVersion returns obj's resource version as an integer; it
// panics with the strconv error when it is not one.
func mustIntegerVersion(obj runtime.Object) int {
	accessor, err := meta.Accessor(obj)
	if err != nil {
		panic(err)
	}
	v, err := strconv.Atoi(accessor.GetResourceVersion())
	if err != nil {
		panic(err)
	}
	return v
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
