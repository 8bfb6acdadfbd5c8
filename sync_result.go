package cache

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// SyncResult is what a shared informer factory's WaitForCacheSyncWithContext
// returns: which of its informers synced, and why waiting stopped if not all
// did.
//
// An informer can have synced while its handlers still work through their
// initial notifications; to wait for a handler too, WaitFor the informer's
// HasSyncedChecker and the registration's HasSyncedChecker.
type SyncResult struct {
	// Err is nil when every informer synced, otherwise the cause of the
	// context that ended the wait.
	Err error

	// Synced tells, for the object type of each informer of the factory,
	// whether it synced.
	Synced map[reflect.Type]bool
}

// AsError returns nil when Err is nil. Otherwise it returns an error that
// wraps Err and names the types that did not sync, sorted and separated by
// ", ".
func (c SyncResult) AsError() error {
	if cause := c.Err; cause != nil {
		return fmt.Errorf("failed to sync all caches: %s: %w", c.unsyncedTypeNames(), cause)
	}
	return nil
}

// unsyncedTypeNames lists the types that did not sync, sorted, separated by
// ", ".
func (c SyncResult) unsyncedTypeNames() string {
	byName := func(a, b reflect.Type) int { return strings.Compare(a.String(), b.String()) }
	var names strings.Builder
	for _, t := range slices.SortedFunc(maps.Keys(c.Synced), byName) {
		if c.Synced[t] {
			continue
		}
		if names.Len() > 0 {
			names.WriteString(", ")
		}
		names.WriteString(t.String())
	}
	return names.String()
}
