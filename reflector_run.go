package cache

import (
	"context"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"
)

// This file holds the Reflector's loop: Run calls ListAndWatch round after
// round; a round takes the initial state (watchList in watchlist.go, else
// list in reflector_list.go) and then watches (watchLoop in
// reflector_watch.go) beside the resync timer.

// Run calls ListAndWatch round after round, with the backoff delay between
// rounds, until stopCh is closed.
//
// Code that logs through a context's logger calls RunWithContext.
func (r *Reflector) Run(stopCh <-chan struct{}) {
	r.RunWithContext(klog.NewContext(wait.ContextForChannel(stopCh), r.baseLogger))
}

// RunWithContext calls ListAndWatchWithContext round after round until ctx
// is cancelled. Every round that returns an error is passed to the watch error handler;
// the next round starts after the reflector's backoff delay, measured from
// the end of the previous round.
func (r *Reflector) RunWithContext(ctx context.Context) {
	logger := klog.FromContext(ctx)
	logger.V(3).Info("Starting reflector", "type", r.typeLabel, "resyncPeriod", r.resyncEvery, "reflector", r.label)
	_ = r.delay.Until(ctx, true, true, func(ctx context.Context) (bool, error) {
		if err := r.ListAndWatchWithContext(ctx); err != nil {
			r.metrics.observeRoundError(err)
			r.watchErrorHandler(ctx, r, err)
		}
		return false, nil
	})
	logger.V(3).Info("Stopping reflector", "type", r.typeLabel, "resyncPeriod", r.resyncEvery, "reflector", r.label)
}

// ListAndWatch is ListAndWatchWithContext ending when stopCh is closed.
//
// Code that logs through a context's logger calls ListAndWatchWithContext.
func (r *Reflector) ListAndWatch(stopCh <-chan struct{}) error {
	return r.ListAndWatchWithContext(klog.NewContext(wait.ContextForChannel(stopCh), r.baseLogger))
}

// ListAndWatchWithContext brings the store to a snapshot of the collection
// and then applies the watch events from the snapshot's resource version on.
// It returns an error when it could not get as far as watching (the List
// failed, or the watch could not be opened); a watch that ends is handled
// inside (see watchLoop) and ends the round with nil when a relist is due.
//
// With WatchList in use the initial state is streamed and the same watch
// continues afterwards; if streaming fails for a reason other than stopping,
// a regular List is made instead. It returns nil when ctx is cancelled.
func (r *Reflector) ListAndWatchWithContext(ctx context.Context) error {
	logger := klog.FromContext(ctx)
	logger.V(3).Info("Listing and watching", "type", r.typeLabel, "reflector", r.label)
	var w watch.Interface
	if r.streamInitialState {
		var err error
		w, err = r.watchList(ctx)
		if err != nil {
			logger.V(4).Info("Data couldn't be fetched in watchlist mode. Falling back to regular list. This is expected if watchlist is not supported or disabled in kube-apiserver.", "err", err)
		} else if w == nil {
			return nil // stopped while streaming
		}
	}
	if w == nil {
		if err := r.list(ctx); err != nil {
			return err
		}
	}
	// NB: logged even when the list was cut short by ctx, as client-go does.
	logger.V(2).Info("Caches populated", "type", r.typeLabel, "reflector", r.label)
	if w == nil && ctx.Err() != nil {
		return nil
	}
	return r.watchWithResync(ctx, w)
}

// watchWithResync runs the resync timer next to the watch loop and returns
// when the watch loop does; the resync goroutine has ended by then.
func (r *Reflector) watchWithResync(ctx context.Context, w watch.Interface) error {
	resyncCtx, cancel := context.WithCancel(ctx)
	resyncErrs := make(chan error, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.resyncUntilDone(resyncCtx, resyncErrs)
	}()
	defer func() {
		cancel()
		<-done
	}()
	return r.watchLoop(ctx, w, resyncErrs)
}

// resyncUntilDone calls store.Resync every resyncPeriod while ShouldResync
// (nil means always) agrees, until ctx is done. A Resync error is sent on
// errs, which ends the current watch, and stops the timer.
func (r *Reflector) resyncUntilDone(ctx context.Context, errs chan<- error) {
	if r.resyncEvery == 0 {
		<-ctx.Done()
		return
	}
	for {
		timer := r.clock.NewTimer(r.resyncEvery)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C():
		}
		if r.ShouldResync == nil || r.ShouldResync() {
			klog.FromContext(ctx).V(4).Info("Forcing resync", "reflector", r.label)
			if err := r.sink.Resync(); err != nil {
				errs <- err
				return
			}
		}
	}
}
