package cache

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
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

// InformerSynced is a function that can be used to determine if an informer
// has synced. This is useful for determining if caches have synced.
type InformerSynced func() bool

// WaitForCacheSync waits for caches to populate. It returns true if it was
// successful, false if the controller should shutdown callers should prefer
// WaitForNamedCacheSync()
//
// The functions are evaluated at once and then every 100ms until all return
// true; a closed stopCh ends the wait with false.
func WaitForCacheSync(stopCh <-chan struct{}, cacheSyncs ...InformerSynced) bool {
	if !pollUntilSynced(wait.ContextForChannel(stopCh), cacheSyncs) {
		klog.V(2).Info("stop requested")
		return false
	}
	klog.V(4).Info("caches populated")
	return true
}

// WaitForNamedCacheSync is a wrapper around WaitForCacheSync that generates
// log messages indicating that the caller identified by name is waiting for
// syncs, followed by either a successful or failed sync.
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

// WaitForNamedCacheSyncWithContext is a wrapper around
// WaitForCacheSyncWithContext that generates log messages indicating that the
// caller is waiting for syncs, followed by either a successful or failed sync.
//
// Contextual logging can be used to identify the caller in those log messages.
// The log level is zero, the same as in WaitForNamedCacheSync. If this is too
// verbose, then store a logger with an increased threshold in the context:
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

// WaitFor waits for a set of activities to complete, like cache syncing.
// It returns true if it was successful, false if the context was canceled
// before all activities are completed.
//
// If a non-nil "what" is provided, then progress information is logged while
// waiting ("Waiting", for="<what>"). Verbosity is V(0). This can be made less
// verbose by the caller with:
//
//	WaitFor(klog.NewContext(ctx, klog.FromContext(ctx).V(2)), ...)
//
// In contrast to other WaitForCacheSync alternatives, this one here doesn't
// need polling, which makes it react immediately. When used in a synctest unit
// test, waiting completes without moving time forward randomly, which makes
// tests more predictable.
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

// SyncResult is the result of a shared informer factory's
// WaitForCacheSyncWithContext. Under the hood such factories use WaitFor to
// wait for all instantiated informers, then provide this summary of what was
// synced.
//
// Note that the informers may have synced already before all event handlers
// registered with those informers have synced. Code which wants to be
// sure that all of its state is up-to-date should do its own WaitFor
// with the informer's HasSyncedChecker() *and* the registration handle's
// HasSyncChecker() results.
type SyncResult struct {
	// Err is nil if all informer caches were synced, otherwise it is
	// the reason why waiting for cache syncing stopped (= context.Cause(ctx)).
	Err error

	// Synced maps each registered informer in a SharedInformerFactory to
	// true if it has synced, false otherwise.
	Synced map[reflect.Type]bool
}

// AsError turns a SyncResult into an error if not all caches were synced,
// otherwise it returns nil. The error wraps context.Cause(ctx) and includes
// information about the informers which were not synced.
//
// The unsynced types are listed sorted by name, separated by ", ".
func (c SyncResult) AsError() error {
	if c.Err == nil {
		return nil
	}
	var unsynced []string
	for t, synced := range c.Synced {
		if !synced {
			unsynced = append(unsynced, t.String())
		}
	}
	slices.Sort(unsynced)
	return fmt.Errorf("failed to sync all caches: %s: %w", strings.Join(unsynced, ", "), c.Err)
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
