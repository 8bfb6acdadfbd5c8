package cache

import (
	"context"
	"slices"
	"time"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"
)

// syncedPollPeriod is how often WaitForCacheSync and its named variants
// re-evaluate their InformerSynced functions.
const syncedPollPeriod = 100 * time.Millisecond

// InformerSynced reports whether an informer (or anything else) has synced,
// e.g. SharedInformer.HasSynced.
type InformerSynced func() bool

// WaitForCacheSync polls cacheSyncs (at once, then at each 100ms tick) until all
// return true in the same round, and returns true; it returns false as soon
// as stopCh is closed, which callers should treat as "shut down". It logs
// nothing; WaitForNamedCacheSync adds log messages.
func WaitForCacheSync(stopCh <-chan struct{}, cacheSyncs ...InformerSynced) bool {
	return pollUntilSynced(wait.ContextForChannel(stopCh), cacheSyncs)
}

// WaitForNamedCacheSync is WaitForCacheSync with log messages, through klog's
// global logger, naming controllerName (key "controller"): "Waiting for
// caches to sync" when the wait starts, then "Caches are synced" or, through
// utilruntime's error handling, "Unable to sync caches".
//
// Code that logs through a context's logger calls
// WaitForNamedCacheSyncWithContext.
func WaitForNamedCacheSync(controllerName string, stopCh <-chan struct{}, cacheSyncs ...InformerSynced) bool {
	klog.InfoS("Waiting for caches to sync", "controller", controllerName)
	if !WaitForCacheSync(stopCh, cacheSyncs...) {
		utilruntime.HandleErrorWithContext(context.Background(), nil, "Unable to sync caches", "controller", controllerName)
		return false
	}
	klog.InfoS("Caches are synced", "controller", controllerName)
	return true
}

// WaitForNamedCacheSyncWithContext is WaitForCacheSync stopped by ctx, with
// log messages, at level zero, through the logger of ctx (which can carry
// the caller's name): "Waiting for caches to sync", then "Caches are
// synced" or, through utilruntime's error handling, "Unable to sync
// caches". To make them quieter, put a logger with a higher verbosity in
// ctx:
//
//	WaitForNamedCacheSyncWithContext(klog.NewContext(ctx, logger.V(5)), ...)
func WaitForNamedCacheSyncWithContext(ctx context.Context, cacheSyncs ...InformerSynced) bool {
	logger := klog.FromContext(ctx)
	logger.Info("Waiting for caches to sync")
	if !pollUntilSynced(ctx, cacheSyncs) {
		utilruntime.HandleErrorWithContext(ctx, nil, "Unable to sync caches")
		return false
	}
	logger.Info("Caches are synced")
	return true
}

// WaitFor blocks until every checker is done (true) or ctx is canceled
// first (false). A checker that is done by the time ctx is canceled counts
// as done, so with every checker done WaitFor returns true even under a
// canceled ctx. It returns only after the goroutine it starts per checker
// has ended.
//
// With a non-empty what, it logs through the logger of ctx, at level zero
// and attributed to its caller (the logger's call-stack helper): "Waiting"
// (for=what) once, "Done waiting" (for, instance=the checker's Name) as each
// checker finishes, and on cancellation "Timed out waiting" (for,
// cause=context.Cause(ctx), instances=the sorted names of the checkers not
// done). A quieter logger can be put in ctx:
//
//	WaitFor(klog.NewContext(ctx, klog.FromContext(ctx).V(2)), ...)
//
// It reacts at once, without polling, which also keeps synctest-based tests
// from advancing their fake clock.
func WaitFor(ctx context.Context, what string, checkers ...DoneChecker) bool {
	helper, logger := klog.FromContext(ctx).WithCallStackHelper()
	helper()
	if what != "" {
		logger.Info("Waiting", "for", what)
	}
	// NB: one goroutine per checker, each reporting its index when its
	// checker or ctx is done, reports finished checkers in the order they
	// finish without polling, and reports every checker already done
	// before a cancellation is acted on. Done is called once per checker,
	// and once more only when ctx ended the wait, as client-go does.
	finished := make(chan checkerResult, len(checkers))
	for i, checker := range checkers {
		go func() {
			select {
			case <-checker.Done():
				finished <- checkerResult{index: i, done: true}
			case <-ctx.Done():
				finished <- checkerResult{index: i, done: IsDone(checker)}
			}
		}()
	}
	done := make([]bool, len(checkers))
	for range checkers {
		r := <-finished
		i := r.index
		done[i] = r.done
		if done[i] && what != "" {
			logger.Info("Done waiting", "for", what, "instance", checkers[i].Name())
		}
	}
	pending := pendingCheckerNames(checkers, done)
	if pending == nil {
		return true
	}
	if what != "" {
		logger.Info("Timed out waiting", "for", what, "cause", context.Cause(ctx), "instances", pending)
	}
	return false
}

// checkerResult is what WaitFor's goroutine for one checker reports: the
// checker's index and whether it is done.
type checkerResult struct {
	index int
	done  bool
}

// pollUntilSynced evaluates every function at once and then at every tick
// of a syncedPollPeriod ticker started after that first round (a tick that
// comes while a round runs is dropped), as client-go does; so a slow
// function delays the next round to the next tick, never runs it back to
// back. It returns true when all return true in one round (the first round
// runs even under a canceled ctx) and false when ctx ends first.
func pollUntilSynced(ctx context.Context, cacheSyncs []InformerSynced) bool {
	if allSynced(cacheSyncs) {
		return true
	}
	ticks, stop := droppingTicker(syncedPollPeriod)
	defer stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-ticks:
			if allSynced(cacheSyncs) {
				return true
			}
		}
	}
}

// droppingTicker returns a channel that receives a value at each tick of a
// period ticker started now, but only while someone is waiting on it: a
// tick nobody takes at once is dropped (a time.Ticker's channel would hand
// it over late). stop ends the ticker and its goroutine.
func droppingTicker(period time.Duration) (ticks <-chan struct{}, stop func()) {
	ch := make(chan struct{})
	done := make(chan struct{})
	ticker := time.NewTicker(period)
	go func() {
		defer ticker.Stop()
		for {
			select {
			case <-done:
				return
			case <-ticker.C:
				select {
				case ch <- struct{}{}:
				default:
				}
			}
		}
	}()
	return ch, func() { close(done) }
}

// allSynced calls the functions in order, stopping at the first false.
func allSynced(cacheSyncs []InformerSynced) bool {
	for _, synced := range cacheSyncs {
		if !synced() {
			return false
		}
	}
	return true
}

// pendingCheckerNames lists, sorted, the names of the checkers
// not marked done; nil when all are.
func pendingCheckerNames(checkers []DoneChecker, done []bool) []string {
	var names []string
	for i, c := range checkers {
		if !done[i] {
			names = append(names, c.Name())
		}
	}
	slices.Sort(names)
	return names
}
