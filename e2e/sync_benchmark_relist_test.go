package e2e

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// contextListerWatcher is what every ListerWatcher of the sync benchmark
// offers: kcache's and client-go's ListWatch and fastlw's ListerWatcher.
type contextListerWatcher interface {
	ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error)
	WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error)
}

// goneInjectingLW wraps a benchmark's ListerWatcher: it counts the List
// pages and WatchList streams the informer asks for, and on expire it
// ends the open watch (or WatchList stream) with a 410 Gone Error event, as
// the API server does when the watch has fallen behind its history, so that
// the informer relists. It satisfies both libraries' ListerWatcher
// interfaces (with and without context).
type goneInjectingLW struct {
	// inner makes the real calls.
	inner contextListerWatcher
	// pages counts List calls, continuation pages included; lists those
	// without a continue token; streams the WatchList watches.
	pages, lists, streams atomic.Int64
	// mu guards open, relistAt and expired.
	mu sync.Mutex
	// open is the last watch handed out, nil before the first.
	open *severableWatch
	// relistAt is when the first full List or WatchList after expire
	// was asked for; zero before.
	relistAt time.Time
	// expired is set by expire: the next full List or WatchList is the
	// relist.
	expired bool
}

func (l *goneInjectingLW) List(options metav1.ListOptions) (runtime.Object, error) {
	return l.ListWithContext(context.Background(), options)
}

func (l *goneInjectingLW) Watch(options metav1.ListOptions) (watch.Interface, error) {
	return l.WatchWithContext(context.Background(), options)
}

func (l *goneInjectingLW) ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
	l.pages.Add(1)
	if options.Continue == "" {
		l.lists.Add(1)
		l.noteFullSync()
	}
	return l.inner.ListWithContext(ctx, options)
}

func (l *goneInjectingLW) WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	if options.SendInitialEvents != nil && *options.SendInitialEvents {
		l.streams.Add(1)
		l.noteFullSync()
	}
	inner, err := l.inner.WatchWithContext(ctx, options)
	if err != nil {
		return nil, err
	}
	w := newSeverableWatch(inner)
	l.mu.Lock()
	l.open = w
	l.mu.Unlock()
	return w, nil
}

// noteFullSync records the start of the relist after expire.
func (l *goneInjectingLW) noteFullSync() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.expired && l.relistAt.IsZero() {
		l.relistAt = time.Now()
	}
}

// expire ends the open watch with 410 Gone; it reports false when no
// watch is open.
func (l *goneInjectingLW) expire() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open == nil {
		return false
	}
	l.expired = true
	l.open.severWith(watch.Event{Type: watch.Error, Object: &metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusGone, Reason: metav1.StatusReasonExpired,
		Message: "too old resource version (injected by the sync benchmark)",
	}})
	return true
}

// relistStarted is when the relist after expire began, zero before.
func (l *goneInjectingLW) relistStarted() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.relistAt
}
