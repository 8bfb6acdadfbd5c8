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

// storeTransformer returns the transform the Reflector may apply itself, and
// only when the store accepts already-transformed items (transformedReplacer)
// and has a transform; nil otherwise.
func (r *Reflector) storeTransformer() TransformFunc {
	replacer, ok := r.sink.(transformedReplacer)
	if !ok {
		return nil
	}
	return replacer.Transformer()
}

// The collector grows chunk by chunk, each at most this many objects.
const collectedChunkLimit = 8192

// collectedObjects accumulates the objects of a list in chunks, so that
// growing never copies what was collected, and hands them over as one
// exactly sized slice. Used by one goroutine at a time.
type collectedObjects struct {
	// chunks hold the objects in order; only the last one has room left.
	chunks [][]interface{}
	// count is the number of objects collected.
	count int
	// nextChunk is the capacity the next chunk gets.
	nextChunk int
}

// expect sizes the next chunk for a page of n objects when no chunk has
// room left.
func (c *collectedObjects) expect(n int) {
	if c.nextChunk == 0 {
		c.nextChunk = max(n, 16)
	}
}

// add appends obj.
func (c *collectedObjects) add(obj interface{}) {
	last := len(c.chunks) - 1
	if last < 0 || len(c.chunks[last]) == cap(c.chunks[last]) {
		size := max(c.nextChunk, 16)
		c.chunks = append(c.chunks, make([]interface{}, 0, size))
		c.nextChunk = min(2*size, collectedChunkLimit)
		last++
	}
	c.chunks[last] = append(c.chunks[last], obj)
	c.count++
}

// take returns the collected objects as one slice (the only chunk itself
// when there is just one) and empties the collector.
func (c *collectedObjects) take() []interface{} {
	var out []interface{}
	switch len(c.chunks) {
	case 0:
		out = []interface{}{}
	case 1:
		out = c.chunks[0]
	default:
		out = make([]interface{}, 0, c.count)
		for _, chunk := range c.chunks {
			out = append(out, chunk...)
		}
	}
	*c = collectedObjects{}
	return out
}
