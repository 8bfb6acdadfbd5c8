package cache

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/consistencydetector"
	"k8s.io/klog/v2"
	"k8s.io/utils/trace"
)

// This file holds the WatchList path: the initial state is streamed as
// synthetic added events on a watch (sendInitialEvents=true) into a
// temporary store until the bookmark annotated k8s.io/initial-events-end,
// then the real store receives one Replace and the same watch goes on
// delivering changes. If the stream cannot be established or fails, the
// caller falls back to a List.

// watchList streams the initial state and returns the still-open watch
// after the store received the snapshot. It returns (nil, nil) when ctx is
// cancelled, and an error when the caller should fall back to a List.
//
// Attempts are repeated in place when the stream closes before the end
// bookmark after delivering events, when the resource version is
// unavailable (the next attempt asks for the most recent state), and after
// a backoff delay when the connection is refused or throttled.
func (r *Reflector) watchList(ctx context.Context) (watch.Interface, error) {
	initTrace := trace.New("Reflector WatchList", trace.Field{Key: "name", Value: r.label})
	defer initTrace.LogIfLong(10 * time.Second)
	start := r.clock.Now()
	for {
		if ctx.Err() != nil {
			return nil, nil
		}
		options := r.watchListOptions()
		opened := r.clock.Now()
		w, err := r.source.WatchWithContext(ctx, options)
		if err != nil {
			retry, giveUp := r.classifyWatchListOpenError(err)
			if giveUp {
				return nil, err
			}
			if retry && !r.backOffWatchList(ctx, err) {
				return nil, nil
			}
			continue
		}
		snapshot := newWatchListSnapshot(r.lentTransform())
		sink := eventSink{
			store:                  snapshot,
			setRV:                  snapshot.setResourceVersion,
			stopAtInitialEventsEnd: true,
		}
		err = r.consumeEvents(ctx, w, opened, &sink, nil)
		if err != nil {
			retry, failure := r.retryStreamError(ctx, err)
			if retry {
				continue
			}
			return nil, failure
		}
		if !sink.reachedInitialEventsEnd {
			continue
		}
		initTrace.Step("Objects streamed")
		streamed := snapshot.len()
		if err := r.installSnapshot(ctx, snapshot, snapshot.resourceVersion); err != nil {
			w.Stop()
			return nil, err
		}
		r.metrics.observeWatchList(r.clock.Since(start).Seconds(), streamed)
		return w, nil
	}
}

// retryStreamError decides what a stream that ended with err before its
// initial events ended leads to: a new attempt at once (the resource
// version is unavailable) or after a backoff delay (429), an end without
// error (ctx done, also while waiting), or the fall back to List (failure).
func (r *Reflector) retryStreamError(ctx context.Context, err error) (retry bool, failure error) {
	switch {
	case errors.Is(err, errStopRequested):
		return false, nil
	case isResourceVersionUnavailable(err):
		r.setResourceVersionUnavailable(true)
		return true, nil
	case apierrors.IsTooManyRequests(err):
		return r.backOffWatchList(ctx, err), nil
	}
	return false, err
}

// backOffWatchList logs err and waits the backoff delay; false when ctx
// ended first.
func (r *Reflector) backOffWatchList(ctx context.Context, err error) bool {
	klog.FromContext(ctx).V(2).Info("watch-list failed - backing off", "reflector", r.label, "type", r.typeLabel, "err", err)
	return r.waitDelay(ctx)
}

// lentTransform is the transform of a TransformingStore, which the snapshot
// applies as objects stream in (as client-go does); nil for other stores.
func (r *Reflector) lentTransform() TransformFunc {
	if transforming, ok := r.sink.(TransformingStore); ok {
		return transforming.Transformer()
	}
	return nil
}

// watchListOptions are the options of one WatchList request.
func (r *Reflector) watchListOptions() metav1.ListOptions {
	sendInitialEvents := true
	return metav1.ListOptions{
		ResourceVersion:      r.rewatchResourceVersion(),
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		SendInitialEvents:    &sendInitialEvents,
		AllowWatchBookmarks:  true,
		TimeoutSeconds:       r.watchTimeoutSeconds(),
	}
}

// classifyWatchListOpenError decides what a failure to open the WatchList
// stream leads to: retry after a delay (connection refused, 429), retry at
// once with RV "" (resource version unavailable), or give up (anything
// else: fall back to List).
func (r *Reflector) classifyWatchListOpenError(err error) (retryAfterDelay, giveUp bool) {
	switch {
	case isWaitableOpenError(err):
		return true, false
	case isResourceVersionUnavailable(err):
		r.setResourceVersionUnavailable(true)
		return false, false
	default:
		return false, true
	}
}

// installSnapshot checks the streamed snapshot when the consistency
// detector is enabled, replaces the store's content with it and records rv.
func (r *Reflector) installSnapshot(ctx context.Context, snapshot *watchListSnapshot, rv string) error {
	r.setResourceVersionUnavailable(false)
	if consistencydetector.IsDataConsistencyDetectionForWatchListEnabled() {
		r.checkSnapshotConsistency(ctx, snapshot, rv)
	}
	items, transformed := snapshot.release()
	_, acceptsTransformed := r.sink.(transformedReplacer)
	if err := r.replaceStore(items, rv, transformed && acceptsTransformed); err != nil {
		return fmt.Errorf("unable to sync watch-list result: %w", err)
	}
	r.setLastSyncResourceVersion(rv)
	return nil
}

// checkSnapshotConsistency compares the snapshot with a List at exactly rv
// (util/consistencydetector), which panics on a difference.
func (r *Reflector) checkSnapshotConsistency(ctx context.Context, snapshot *watchListSnapshot, rv string) {
	list := func(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
		return r.source.ListWithContext(ctx, options)
	}
	var transform consistencydetector.TransformFunc
	if t := snapshot.transform; t != nil {
		transform = consistencydetector.TransformFunc(t)
	}
	options := metav1.ListOptions{ResourceVersion: rv, ResourceVersionMatch: metav1.ResourceVersionMatchExact}
	consistencydetector.CheckDataConsistency(ctx, r.label, rv, list, transform, options, snapshot.items)
}

// watchListSnapshot is the temporary store a WatchList stream fills: the
// latest object per key, in first-arrival order, transformed with the real
// store's transform when that store has one. Objects live in chunks of
// growing size so that growing never copies; release flattens them once. It is
// used by one goroutine at a time.
type watchListSnapshot struct {
	// transform, when set, is applied to every added or updated object.
	transform TransformFunc
	// slot maps namespace, then name, to the object's position
	// (chunk*snapshotChunk + offset). Two levels avoid building a
	// namespace/name string per event.
	slot map[string]map[string]int
	// chunks hold the latest object per position; deleted keys leave nil.
	chunks [][]interface{}
	// live counts the non-nil positions.
	live int
	// resourceVersion is the latest version the stream reported.
	resourceVersion string
}

// snapshotKey identifies an object in a snapshot: the same identity as the
// namespace/name key, without building the string.
type snapshotKey struct {
	namespace, name string
}

// snapshotKeyOf returns obj's identity, or a KeyError when obj has no
// object metadata. Snapshots only see watch event objects, never
// DeletedFinalStateUnknown tombstones.
func snapshotKeyOf(obj interface{}) (snapshotKey, error) {
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return snapshotKey{}, KeyError{Obj: obj, Err: err}
	}
	return snapshotKey{namespace: accessor.GetNamespace(), name: accessor.GetName()}, nil
}

// snapshotChunk is the largest number of objects per chunk. Chunks start at
// 16 objects and double up to it, so a small stream allocates little.
const snapshotChunk = 8192

// newPosition appends an empty cell and returns its position, encoded as
// chunk*snapshotChunk + offset whatever the chunk's own capacity.
func (s *watchListSnapshot) newPosition() int {
	last := len(s.chunks) - 1
	if last < 0 || len(s.chunks[last]) == cap(s.chunks[last]) {
		size := 16
		if last >= 0 {
			size = min(2*cap(s.chunks[last]), snapshotChunk)
		}
		s.chunks = append(s.chunks, make([]interface{}, 0, size))
		last++
	}
	s.chunks[last] = append(s.chunks[last], nil)
	return last*snapshotChunk + len(s.chunks[last]) - 1
}

// newWatchListSnapshot returns an empty snapshot applying transform (nil
// for none).
func newWatchListSnapshot(transform TransformFunc) *watchListSnapshot {
	return &watchListSnapshot{transform: transform, slot: map[string]map[string]int{}}
}

// Add stores obj (transformed) under its key.
func (s *watchListSnapshot) Add(obj interface{}) error {
	return s.put(obj)
}

// Update stores obj (transformed) under its key.
func (s *watchListSnapshot) Update(obj interface{}) error {
	return s.put(obj)
}

// put transforms obj and stores it under its key.
func (s *watchListSnapshot) put(obj interface{}) error {
	if s.transform != nil {
		transformed, err := s.transform(obj)
		if err != nil {
			return fmt.Errorf("transforming: %w", err)
		}
		obj = transformed
	}
	key, err := snapshotKeyOf(obj)
	if err != nil {
		return err
	}
	names := s.slot[key.namespace]
	if names == nil {
		names = map[string]int{}
		s.slot[key.namespace] = names
	}
	pos, ok := names[key.name]
	if !ok {
		pos = s.newPosition()
		names[key.name] = pos
	}
	cell := &s.chunks[pos/snapshotChunk][pos%snapshotChunk]
	if *cell == nil {
		s.live++
	}
	*cell = obj
	return nil
}

// Delete removes the object stored under obj's key, if any.
func (s *watchListSnapshot) Delete(obj interface{}) error {
	key, err := snapshotKeyOf(obj)
	if err != nil {
		return err
	}
	pos, ok := s.slot[key.namespace][key.name]
	if !ok {
		return nil
	}
	cell := &s.chunks[pos/snapshotChunk][pos%snapshotChunk]
	if *cell != nil {
		*cell = nil
		s.live--
	}
	return nil
}

// Replace is never called on a snapshot; it exists to satisfy ReflectorStore.
func (s *watchListSnapshot) Replace([]interface{}, string) error {
	return errors.New("watch-list snapshot does not support Replace")
}

// Resync does nothing.
func (s *watchListSnapshot) Resync() error {
	return nil
}

// setResourceVersion records the version of the latest applied event.
func (s *watchListSnapshot) setResourceVersion(rv string) {
	s.resourceVersion = rv
}

// len is the number of objects in the snapshot.
func (s *watchListSnapshot) len() int {
	return s.live
}

// items returns the objects of the snapshot, in first-arrival order.
func (s *watchListSnapshot) items() []interface{} {
	out := make([]interface{}, 0, s.live)
	for _, chunk := range s.chunks {
		for _, obj := range chunk {
			if obj != nil {
				out = append(out, obj)
			}
		}
	}
	return out
}

// release returns the snapshot's objects and whether they were transformed,
// and empties the snapshot so that the caller's list is the only reference.
func (s *watchListSnapshot) release() ([]interface{}, bool) {
	items := s.items()
	s.chunks, s.slot, s.live = nil, nil, 0
	return items, s.transform != nil
}
