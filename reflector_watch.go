package cache

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// This file holds the Reflector's watch path: opening watches at the last
// synced resource version, deciding after each watch whether to rewatch,
// back off, or give up (so that ListAndWatch relists), and the event loop
// that applies watch events to a store. The event loop also serves the
// WatchList path, where it fills a temporary store until the bookmark that
// ends the initial events.

// initialEventsEndAnnotation marks the bookmark that ends the initial
// events of a WatchList stream.
const initialEventsEndAnnotation = metav1.InitialEventsAnnotationKey

// watchLoop consumes w (when the WatchList path left one open) and then
// keeps opening and consuming watches at the last synced resource version.
// A watch that ends cleanly is reopened at once; a watch ended by 429 is
// reopened after a backoff delay; one ended by an internal error is reopened
// while MaxInternalErrorRetryDuration allows. Any other ending returns nil so
// that ListAndWatch's caller relists. A failure to open the watch is
// returned, except connection-refused and 429, which are retried after a
// backoff delay. It returns nil when ctx is cancelled.
func (r *Reflector) watchLoop(ctx context.Context, w watch.Interface, resyncErrs <-chan error) error {
	internalErrors := NewRetryWithDeadline(r.MaxInternalErrorRetryDuration, reflectorInternalErrorQuietPeriod, apierrors.IsInternalError, r.clock)
	logger := klog.FromContext(ctx)
	// holdRV is true while added events of a watch opened at RV "" or "0"
	// may be synthetic; their versions are not propagated.
	holdRV := false
	for {
		if ctx.Err() != nil {
			if w != nil {
				w.Stop()
			}
			return nil
		}
		// NB: a watch's duration counts from before its request is sent;
		// some proxies hold the headers until the first event.
		start := r.clock.Now()
		if w == nil {
			var err error
			var retry bool
			w, holdRV, retry, err = r.openWatch(ctx)
			if err != nil {
				return err
			}
			if retry {
				if !r.waitDelay(ctx) {
					return nil
				}
				continue
			}
		}
		sink := eventSink{store: r.sink, setRV: r.propagateResourceVersion, holdRV: holdRV}
		err := r.consumeEvents(ctx, w, start, &sink, resyncErrs)
		w = nil
		internalErrors.After(err)
		if err == nil {
			continue
		}
		if errors.Is(err, errStopRequested) {
			return nil
		}
		switch {
		case isExpiredError(err):
			logger.V(4).Info("Watch closed", "reflector", r.label, "type", r.typeLabel, "err", err)
		case apierrors.IsTooManyRequests(err):
			logger.V(2).Info("Watch returned 429 - backing off", "reflector", r.label, "type", r.typeLabel)
			if !r.waitDelay(ctx) {
				return nil
			}
			continue
		case apierrors.IsInternalError(err) && internalErrors.ShouldRetry():
			logger.V(2).Info("Retrying watch after internal error", "reflector", r.label, "type", r.typeLabel, "err", err)
			continue
		default:
			logger.Info("Warning: watch ended with error", "reflector", r.label, "type", r.typeLabel, "err", err)
		}
		return nil
	}
}

// openWatch starts a watch at the last synced resource version. It reports
// whether added events must not propagate their version (the watch starts
// at RV "" or "0", so the server may send synthetic adds first), and retry
// when the failure is one to wait out (connection refused, 429).
func (r *Reflector) openWatch(ctx context.Context) (w watch.Interface, holdRV bool, retry bool, err error) {
	options := metav1.ListOptions{
		ResourceVersion:     r.LastSyncResourceVersion(),
		TimeoutSeconds:      r.watchTimeoutSeconds(),
		AllowWatchBookmarks: true,
	}
	w, err = r.source.WatchWithContext(ctx, options)
	if err == nil {
		return w, options.ResourceVersion == "" || options.ResourceVersion == "0", false, nil
	}
	if isWaitableOpenError(err) {
		klog.FromContext(ctx).V(4).Info("Watch failed - backing off", "reflector", r.label, "type", r.typeLabel, "err", err)
		return nil, false, true, nil
	}
	return nil, false, false, err
}

// isWaitableOpenError reports whether a failure to open a watch is worth
// waiting out and retrying without relisting: connection refused (the
// server is restarting) or 429 (it asks clients to slow down).
func isWaitableOpenError(err error) bool {
	return utilnet.IsConnectionRefused(err) || apierrors.IsTooManyRequests(err)
}

// propagateResourceVersion records rv as synced and tells the store, when it
// tracks resource versions.
func (r *Reflector) propagateResourceVersion(rv string) {
	r.setLastSyncResourceVersion(rv)
	if updater, ok := r.sink.(ResourceVersionUpdater); ok {
		updater.UpdateResourceVersion(rv)
	}
}

// eventSink is where consumeEvents applies events: the store, how versions
// are propagated, and what the loop observed. It is used by one goroutine.
type eventSink struct {
	// store receives Add/Update/Delete (and Bookmark when it accepts them).
	store ReflectorStore
	// setRV propagates the resource version of an applied event.
	setRV func(rv string)
	// holdRV suppresses propagation for added events (and events of unknown
	// type) until a MODIFIED, DELETED or BOOKMARK event arrives.
	holdRV bool
	// stopAtInitialEventsEnd ends the loop at the bookmark annotated with
	// initialEventsEndAnnotation (WatchList), leaving the watch open.
	stopAtInitialEventsEnd bool
	// reachedInitialEventsEnd is set when that bookmark was seen.
	reachedInitialEventsEnd bool
	// events counts the events applied (wrong-type events are not counted).
	events int
}

// consumeEvents applies the events of w to sink until the stream ends, ctx
// is cancelled (errStopRequested), an error event arrives (returned as an
// API error), a resync error arrives (returned), or, with
// stopAtInitialEventsEnd, the initial-events-end bookmark was applied (nil).
// It stops w except in that last case. A stream closed within a second of
// start (taken before the watch request was sent) without any applied event
// is a *VeryShortWatchError.
func (r *Reflector) consumeEvents(ctx context.Context, w watch.Interface, start time.Time, sink *eventSink, resyncErrs <-chan error) (err error) {
	keepOpen := false
	defer func() {
		if !keepOpen {
			w.Stop()
		}
	}()
	defer func() {
		r.metrics.observeWatch(r.clock.Since(start).Seconds(), sink.events, err)
	}()
	var bookmarkWarnings <-chan time.Time
	if sink.stopAtInitialEventsEnd {
		ticker := newClockTicker(r.clock, initialEventsEndWarningPeriod)
		defer ticker.Stop()
		bookmarkWarnings = ticker.C()
	}
	var lastEvent time.Time
	for {
		select {
		case <-ctx.Done():
			return errStopRequested
		case err := <-resyncErrs:
			return err
		case <-bookmarkWarnings:
			r.warnInitialEventsEndMissing(ctx, start, lastEvent)
		case event, ok := <-w.ResultChan():
			if !ok {
				return r.closedStreamError(ctx, start, sink.events)
			}
			if event.Type == watch.Error {
				return apierrors.FromObject(event.Object)
			}
			applied := sink.events
			r.applyEvent(ctx, event, sink)
			if sink.events != applied {
				lastEvent = r.clock.Now()
			}
			if sink.reachedInitialEventsEnd && sink.stopAtInitialEventsEnd {
				klog.FromContext(ctx).V(4).Info("Exiting watch because received the bookmark that marks the end of initial events stream", "reflector", r.label, "totalItems", sink.events, "duration", r.clock.Since(start))
				keepOpen = true
				return nil
			}
		}
	}
}

// initialEventsEndWarningPeriod is how often a WatchList stream still
// waiting for its initial-events-end bookmark is warned about.
const initialEventsEndWarningPeriod = 10 * time.Second

// warnInitialEventsEndMissing logs that the initial-events-end bookmark
// has not arrived, with the time since the stream's last applied event
// (since start when there was none), once that time reaches the warning
// period; it logs nothing while events keep arriving. NB: events of the
// wrong type, or without metadata, are not applied and do not count.
func (r *Reflector) warnInitialEventsEndMissing(ctx context.Context, start, lastEvent time.Time) {
	since := start
	if !lastEvent.IsZero() {
		since = lastEvent
	}
	if r.clock.Since(since) < initialEventsEndWarningPeriod {
		return
	}
	var err error
	if lastEvent.IsZero() {
		err = fmt.Errorf("%s: awaiting required bookmark event for initial events stream, no events received for %v", r.label, r.clock.Since(start))
	} else {
		err = fmt.Errorf("%s: hasn't received required bookmark event marking the end of initial events stream, received last event %v ago", r.label, r.clock.Since(lastEvent))
	}
	klog.FromContext(ctx).Info("Warning: event bookmark expired", "err", err)
}

// clockTicker is the part of clock.Ticker the Reflector uses.
type clockTicker interface {
	C() <-chan time.Time
	Stop()
}

// newClockTicker returns a ticker of c (tests' fake clocks included), or
// one built from c's timers when c has no tickers.
func newClockTicker(c clock.Clock, period time.Duration) clockTicker {
	if withTicker, ok := c.(clock.WithTicker); ok {
		return withTicker.NewTicker(period)
	}
	return newTimerTicker(c, period)
}

// timerTicker ticks every period using c's timers; Stop ends its goroutine.
type timerTicker struct {
	ticks chan time.Time
	stop  chan struct{}
	once  sync.Once
}

func newTimerTicker(c clock.Clock, period time.Duration) *timerTicker {
	t := &timerTicker{ticks: make(chan time.Time, 1), stop: make(chan struct{})}
	go func() {
		for {
			timer := c.NewTimer(period)
			select {
			case <-t.stop:
				timer.Stop()
				return
			case now := <-timer.C():
				select {
				case t.ticks <- now:
				default:
				}
			}
		}
	}()
	return t
}

func (t *timerTicker) C() <-chan time.Time { return t.ticks }

func (t *timerTicker) Stop() { t.once.Do(func() { close(t.stop) }) }

// closedStreamError is what a stream that closed after applying events
// events ends with: a *VeryShortWatchError when it lasted under a second
// without any event, nil otherwise.
func (r *Reflector) closedStreamError(ctx context.Context, start time.Time, events int) error {
	if events == 0 && r.clock.Since(start) < time.Second {
		return &VeryShortWatchError{Name: r.label}
	}
	klog.FromContext(ctx).V(4).Info("Watch close", "reflector", r.label, "type", r.typeLabel, "totalItems", events)
	return nil
}

// applyEvent checks one event's object and applies it to sink.store,
// reporting (and skipping) objects of the wrong type or kind. Store errors
// and unknown event types are reported; the event still counts and its
// version still propagates (unless added versions are held, see holdRV).
func (r *Reflector) applyEvent(ctx context.Context, event watch.Event, sink *eventSink) {
	if !r.acceptsObject(ctx, event.Object) {
		return
	}
	accessor, err := meta.Accessor(event.Object)
	if err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Unable to understand watch event", "reflector", r.label, "event", event)
		return
	}
	rv := accessor.GetResourceVersion()
	switch event.Type {
	case watch.Added:
		r.reportStoreError(ctx, sink.store.Add(event.Object), "add", event.Object)
	case watch.Modified:
		r.reportStoreError(ctx, sink.store.Update(event.Object), "update", event.Object)
	case watch.Deleted:
		r.reportStoreError(ctx, sink.store.Delete(event.Object), "delete", event.Object)
	case watch.Bookmark:
		r.applyBookmark(ctx, sink, accessor, rv)
	default:
		utilruntime.HandleErrorWithContext(ctx, nil, "Unknown watch event", "reflector", r.label, "event", event)
	}
	if isKnownNonAddedEvent(event.Type) {
		sink.holdRV = false
	}
	if !sink.holdRV {
		sink.setRV(rv)
	}
	sink.events++
}

// isKnownNonAddedEvent reports whether t is MODIFIED, DELETED or BOOKMARK:
// the event types that end the hold on added versions. NB: an event of
// unknown type neither ends the hold nor, while it lasts, propagates its
// version (as client-go).
func isKnownNonAddedEvent(t watch.EventType) bool {
	return t == watch.Modified || t == watch.Deleted || t == watch.Bookmark
}

// applyBookmark passes a bookmark to stores that accept one and notes the
// end of the initial events.
func (r *Reflector) applyBookmark(ctx context.Context, sink *eventSink, accessor metav1.Object, rv string) {
	if accessor.GetAnnotations()[initialEventsEndAnnotation] == "true" {
		sink.reachedInitialEventsEnd = true
	}
	if bookmarks, ok := sink.store.(ReflectorBookmarkStore); ok {
		r.reportStoreError(ctx, bookmarks.Bookmark(rv), "bookmark", nil)
	}
}

// acceptsObject reports whether obj has the expected Go type, is not a
// meta.k8s.io Table and, for unstructured objects, has the expected kind; a
// mismatch is reported.
func (r *Reflector) acceptsObject(ctx context.Context, obj runtime.Object) bool {
	if r.objectType != nil {
		if actual := reflect.TypeOf(obj); actual != r.objectType {
			utilruntime.HandleErrorWithContext(ctx, nil, "Unexpected watch event object type", "reflector", r.label, "expectedType", r.objectType, "actualType", actual)
			return false
		}
	}
	if r.objectKind != nil {
		if actual := obj.GetObjectKind().GroupVersionKind(); actual != *r.objectKind {
			utilruntime.HandleErrorWithContext(ctx, nil, "Unexpected watch event object gvk", "reflector", r.label, "expectedGVK", r.objectKind, "actualGVK", actual)
			return false
		}
	}
	if isTableObject(obj) {
		utilruntime.HandleErrorWithContext(ctx, nil, "Unsupported watch event object gvk", "reflector", r.label, "actualGVK", obj.GetObjectKind().GroupVersionKind())
		return false
	}
	return true
}

// reportStoreError reports a failed store operation; the watch goes on.
func (r *Reflector) reportStoreError(ctx context.Context, err error, op string, obj interface{}) {
	if err == nil {
		return
	}
	utilruntime.HandleErrorWithContext(ctx, err, "Unable to apply watch event to the store", "reflector", r.label, "operation", op, "type", r.typeLabel, "object", obj)
}
