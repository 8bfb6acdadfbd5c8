package framework

import (
	"errors"
	"fmt"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// errFutureResourceVersion is returned by Watch for a resource version the
// source has not reached yet.
var errFutureResourceVersion = errors.New("resource version in the future not supported by this fake")

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
