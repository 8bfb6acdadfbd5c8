package cache

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/trace"
)

// This file holds the Reflector's List path: choosing the resource version
// and page size, retrying once with RV "" when the resource version is
// unavailable, and handing the snapshot to the store with one Replace. The
// pages are fetched by reflector_pages.go.

// reflectorDefaultPageSize is the page size of a paged List, the same as
// tools/pager's default.
const reflectorDefaultPageSize = 500

// list brings the store to the server's current state with one paged List
// and one Replace, then records the list's resource version. It returns nil
// without touching the store when ctx is cancelled while listing.
func (r *Reflector) list(ctx context.Context) error {
	options := metav1.ListOptions{ResourceVersion: r.relistResourceVersion()}
	initTrace := trace.New("Reflector ListAndWatch", trace.Field{Key: "name", Value: r.label})
	defer initTrace.LogIfLong(10 * time.Second)
	start := r.clock.Now()

	pages := r.newPageFetcher(ctx, r.pageSizeFor(options.ResourceVersion))
	state, err := pages.fetchInBackground(ctx, options)
	if ctx.Err() != nil {
		return nil
	}
	if isResourceVersionUnavailable(err) {
		r.setResourceVersionUnavailable(true)
		state, err = pages.fetchInBackground(ctx, metav1.ListOptions{ResourceVersion: r.relistResourceVersion()})
		if ctx.Err() != nil {
			return nil
		}
	}
	if err != nil {
		return fmt.Errorf("failed to list %v: %w", r.typeLabel, err)
	}
	initTrace.Step("Objects listed", trace.Field{Key: "error", Value: err})
	if options.ResourceVersion == "0" && state.paginated {
		r.pagedFirstList = true
	}
	r.setResourceVersionUnavailable(false)
	r.metrics.observeList(r.clock.Since(start).Seconds(), len(state.items))
	// The store takes ownership of the items; keep no reference to them.
	listRV := state.resourceVersion
	if err := r.replaceListed(&state); err != nil {
		return fmt.Errorf("unable to sync list result: %v", err)
	}
	initTrace.Step("SyncWith done")
	r.setLastSyncResourceVersion(listRV)
	initTrace.Step("Resource version updated")
	return nil
}

// pageSizeFor is the page size of a List at resourceVersion: the configured
// WatchListPageSize; otherwise the default, except for a relist at an exact
// resource version, which is unpaged (the watch cache can serve it) unless
// the first list came back in pages.
func (r *Reflector) pageSizeFor(resourceVersion string) int64 {
	switch {
	case r.WatchListPageSize != 0:
		return r.WatchListPageSize
	case r.pagedFirstList:
		return reflectorDefaultPageSize
	case resourceVersion != "" && resourceVersion != "0":
		return 0
	default:
		return reflectorDefaultPageSize
	}
}

// replaceStore hands a complete snapshot to the store: through
// replaceTransformed when the items are already transformed (only done for
// stores implementing it), through Replace otherwise.
func (r *Reflector) replaceStore(items []interface{}, resourceVersion string, transformed bool) error {
	if transformed {
		return r.sink.(transformedReplacer).replaceTransformed(items, resourceVersion)
	}
	return r.sink.Replace(items, resourceVersion)
}

// replaceListed hands a listed snapshot to the store and empties state.
// When transforming stopped (the transform refused an object, or the store
// cannot key it), the store (one of kcache's queues) is told where and does
// what its Replace does there: it keeps what it queued before that object
// and returns the error.
func (r *Reflector) replaceListed(state *listedState) error {
	items, rv := state.items, state.resourceVersion
	transformed, stopped, failAt, failure := state.transformed, state.stopped, state.failAt, state.transformErr
	*state = listedState{}
	if stopped {
		return r.sink.(transformedReplacer).replacePartlyTransformed(items, rv, failAt, failure)
	}
	return r.replaceStore(items, rv, transformed)
}
