package cache

import (
	"context"
	"fmt"
	"time"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"
)

// syncedPollPeriod is how often WaitForCacheSync and its named variants
// re-evaluate their InformerSynced functions.
const syncedPollPeriod = 100 * time.Millisecond

// waitForProgressPeriod is how often WaitFor logs which activities are still
// outstanding.
const waitForProgressPeriod = 10 * time.Second

// InformerSynced reports whether an informer (or anything else) has synced,
// e.g. SharedInformer.HasSynced.
type InformerSynced func() bool

// WaitForCacheSync polls cacheSyncs (at once, then every 100ms) until all
// return true in the same round, and returns true; it returns false as soon
// as stopCh is closed, which callers should treat as "shut down".
// WaitForNamedCacheSync adds log messages.
func WaitForCacheSync(stopCh <-chan struct{}, cacheSyncs ...InformerSynced) bool {
	if !pollUntilSynced(wait.ContextForChannel(stopCh), cacheSyncs) {
		klog.V(2).Info("stop requested")
		return false
	}
	klog.V(4).Info("caches populated")
	return true
}

// WaitForNamedCacheSync is WaitForCacheSync with log messages naming
// controllerName when the wait starts and how it ended.
//
// Contextual logging: WaitForNamedCacheSyncWithContext should be used instead
// of WaitForNamedCacheSync in code which supports contextual logging.
func WaitForNamedCacheSync(controllerName string, stopCh <-chan struct{}, cacheSyncs ...InformerSynced) bool {
	klog.Infof("Waiting for caches to sync for %s", controllerName)
	if !WaitForCacheSync(stopCh, cacheSyncs...) {
		utilruntime.HandleError(fmt.Errorf("unable to sync caches for %s", controllerName))
		return false
	}
	klog.Infof("Caches are synced for %s", controllerName)
	return true
}

// WaitForNamedCacheSyncWithContext is WaitForCacheSync stopped by ctx, with
// log messages, at level zero, through the logger of ctx (which can carry
// the caller's name). To make them quieter, put a logger with a higher
// verbosity in ctx:
//
//	WaitForNamedCacheSyncWithContext(klog.NewContext(ctx, logger.V(5)), ...)
func WaitForNamedCacheSyncWithContext(ctx context.Context, cacheSyncs ...InformerSynced) bool {
	logger := klog.FromContext(ctx)
	logger.Info("Waiting for caches to sync")
	if !pollUntilSynced(ctx, cacheSyncs) {
		logger.Error(nil, "Unable to sync caches")
		return false
	}
	logger.Info("Caches are synced")
	return true
}

// WaitFor blocks until every checker is done (true) or ctx is canceled
// first (false).
//
// With a non-empty what, it logs through the logger of ctx, at level zero,
// that it is waiting ("Waiting", for=what), which checkers are still pending
// every 10 seconds, and how the wait ended. A quieter logger can be put in
// ctx:
//
//	WaitFor(klog.NewContext(ctx, klog.FromContext(ctx).V(2)), ...)
//
// It reacts at once, without polling, which also keeps synctest-based tests
// from advancing their fake clock.
func WaitFor(ctx context.Context, what string, checkers ...DoneChecker) bool {
	logger := klog.FromContext(ctx)
	if what != "" {
		logger.Info("Waiting", "for", what)
	}
	var progress <-chan time.Time
	if what != "" {
		ticker := time.NewTicker(waitForProgressPeriod)
		defer ticker.Stop()
		progress = ticker.C
	}
	for i := 0; i < len(checkers); {
		select {
		case <-checkers[i].Done():
			i++
		case <-progress:
			logger.Info("Still waiting", "for", what, "pending", pendingCheckerNames(checkers[i:]))
		case <-ctx.Done():
			if what != "" {
				logger.Info("Waiting canceled", "for", what, "pending", pendingCheckerNames(checkers[i:]), "cause", context.Cause(ctx))
			}
			return false
		}
	}
	if what != "" {
		logger.Info("Done waiting", "for", what)
	}
	return true
}

// pollUntilSynced evaluates every function at once and then every
// syncedPollPeriod; it returns true when all return true in one round and
// false when ctx ends first.
func pollUntilSynced(ctx context.Context, cacheSyncs []InformerSynced) bool {
	err := wait.PollUntilContextCancel(ctx, syncedPollPeriod, true, func(context.Context) (bool, error) {
		for _, synced := range cacheSyncs {
			if !synced() {
				return false, nil
			}
		}
		return true, nil
	})
	return err == nil
}

// pendingCheckerNames lists the names of the checkers that are not done yet.
func pendingCheckerNames(checkers []DoneChecker) []string {
	var names []string
	for _, c := range checkers {
		if !IsDone(c) {
			names = append(names, c.Name())
		}
	}
	return names
}
