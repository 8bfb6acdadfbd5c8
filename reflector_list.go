package cache

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/trace"
)

// This file holds the Reflector's List path: choosing the resource version
// and page size, fetching the pages (the same requests client-go's
// tools/pager makes), retrying once with RV "" when the resource version is
// unavailable, and handing the snapshot to the store with one Replace.
//
// Beyond client-go: when the store is one of kcache's transforming stores
// (transformedReplacer), each page is transformed as soon as it arrives and
// then dropped, so a large list never holds more than the transformed
// objects plus one raw page.

// reflectorDefaultPageSize is the page size of a paged List, the same as
// tools/pager's default.
const reflectorDefaultPageSize = 500

// listedState is the outcome of one paged List: the snapshot and the
// resource version it was taken at.
type listedState struct {
	// items are the listed objects, transformed when transformed is true.
	items []interface{}
	// resourceVersion is the list's resource version (of its first page).
	resourceVersion string
	// paginated is true when the server answered with more than one page.
	paginated bool
	// transformed is true when items went through the store's transformer.
	transformed bool
	// transformErr is the first error of the transform; the list is then
	// fetched to the end (the same requests as when the store transforms)
	// but not handed to the store.
	transformErr error
}

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
	if state.transformErr != nil {
		// What the store's Replace would have failed with.
		return fmt.Errorf("unable to sync list result: %v", state.transformErr)
	}
	// The store takes ownership of the items; keep no reference to them.
	items, listRV, transformed := state.items, state.resourceVersion, state.transformed
	state = listedState{}
	if err := r.replaceStore(items, listRV, transformed); err != nil {
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

// pageFetcher issues the List requests of one list operation. It is used by
// one goroutine at a time and holds no state between fetches.
type pageFetcher struct {
	// list calls the ListerWatcher with the reflector's context.
	list func(options metav1.ListOptions) (runtime.Object, error)
	// pageSize is the Limit of each request; 0 lists in one request.
	pageSize int64
	// typeLabel names the expected type in errors.
	typeLabel string
	// transform, when set, is applied to every item as its page arrives.
	transform TransformFunc
	// collected accumulates the objects of the fetch in progress.
	collected collectedObjects
	// visit is collect as a function value, made once.
	visit func(item runtime.Object) error
	// transformErr is the first transform error of the fetch in progress.
	transformErr error
}

// newPageFetcher prepares the requests of one list operation.
func (r *Reflector) newPageFetcher(ctx context.Context, pageSize int64) *pageFetcher {
	p := &pageFetcher{
		list: func(options metav1.ListOptions) (runtime.Object, error) {
			return r.source.ListWithContext(ctx, options)
		},
		pageSize:  pageSize,
		typeLabel: r.typeLabel,
		transform: r.storeTransformer(),
	}
	p.visit = p.collect
	return p
}

// fetchResult carries the outcome of a fetch out of its goroutine.
type fetchResult struct {
	state  listedState // the listed snapshot, when err is nil
	err    error       // why the fetch failed
	panicV interface{} // what the fetch panicked with, re-raised by the caller
}

// fetchInBackground runs fetch in its own goroutine so that a cancelled ctx
// ends the wait even if the ListerWatcher ignores its context. A panic in
// the fetch is re-raised in the caller. When ctx is cancelled first the
// result is zero and the fetch finishes (and is discarded) on its own.
func (p *pageFetcher) fetchInBackground(ctx context.Context, options metav1.ListOptions) (listedState, error) {
	results := make(chan fetchResult, 1)
	go func() {
		var res fetchResult
		defer func() {
			if v := recover(); v != nil {
				res = fetchResult{panicV: v}
			}
			results <- res
		}()
		res.state, res.err = p.fetch(options)
	}()
	select {
	case <-ctx.Done():
		return listedState{}, ctx.Err()
	case res := <-results:
		if res.panicV != nil {
			panic(res.panicV)
		}
		return res.state, res.err
	}
}

// fetch lists with options page by page: the first request carries the page
// size as Limit (unless options has one), later requests carry the continue
// token with the resource version cleared, and an Expired error on a later
// page falls back to one unpaged list at the original resource version.
func (p *pageFetcher) fetch(options metav1.ListOptions) (listedState, error) {
	if options.Limit == 0 {
		options.Limit = p.pageSize
	}
	original := options
	p.collected, p.transformErr = collectedObjects{}, nil
	var state listedState
	for first := true; ; first = false {
		page, err := p.list(options)
		if err != nil {
			if !isResourceExpiredOnLaterPage(err, options) {
				return listedState{}, err
			}
			return p.fetchUnpaged(original, state.paginated)
		}
		if first {
			if err := p.refuseSingleTable(page); err != nil {
				return listedState{}, err
			}
		}
		next, rv, err := p.absorbPage(&state, page)
		if err != nil {
			return listedState{}, err
		}
		if first {
			state.resourceVersion = rv
		}
		if next == "" {
			state.items, state.transformErr = p.collected.take(), p.transformErr
			return state, nil
		}
		options.Continue = next
		options.ResourceVersion = ""
		options.ResourceVersionMatch = ""
		state.paginated = true
	}
}

// isResourceExpiredOnLaterPage reports whether err is the Expired error of a
// continuation request, the case tools/pager answers with a full list.
func isResourceExpiredOnLaterPage(err error, options metav1.ListOptions) bool {
	return options.Continue != "" && apierrors.IsResourceExpired(err)
}

// fetchUnpaged lists once without a limit at the original options.
func (p *pageFetcher) fetchUnpaged(original metav1.ListOptions, paginated bool) (listedState, error) {
	original.Limit = 0
	original.Continue = ""
	p.collected, p.transformErr = collectedObjects{}, nil
	page, err := p.list(original)
	if err != nil {
		return listedState{}, err
	}
	if err := p.refuseTable(page); err != nil {
		return listedState{}, err
	}
	state := listedState{paginated: paginated}
	_, rv, err := p.absorbPage(&state, page)
	if err != nil {
		return listedState{}, err
	}
	state.resourceVersion = rv
	state.items, state.transformErr = p.collected.take(), p.transformErr
	return state, nil
}

// refuseSingleTable is refuseTable for a first page that is the whole list
// (no continue token). NB: the pages of a paged list are merged into a plain
// list, whose kind is no longer Table; client-go accepts those too.
func (p *pageFetcher) refuseSingleTable(page runtime.Object) error {
	if listMeta, err := meta.ListAccessor(page); err == nil && listMeta.GetContinue() != "" {
		return nil
	}
	return p.refuseTable(page)
}

// refuseTable returns the "unsupported list gvk" error for a list answered
// in the Table format (meta.k8s.io, kind Table, e.g. a client asking
// as=Table), which has rows instead of objects; nil for any other list.
func (p *pageFetcher) refuseTable(page runtime.Object) error {
	if !isTableObject(page) {
		return nil
	}
	return fmt.Errorf("unsupported list gvk: %v, type: %v", page.GetObjectKind().GroupVersionKind(), p.typeLabel)
}

// isTableObject reports whether obj says it is a meta.k8s.io Table, of any
// version.
func isTableObject(obj runtime.Object) bool {
	gvk := obj.GetObjectKind().GroupVersionKind()
	return gvk.Group == metav1.GroupName && gvk.Kind == "Table"
}

// absorbPage adds the items of page to state as one more page of objects
// (transformed when the fetcher has a transform) and returns the page's
// continue token and resource version. The page itself is not retained:
// each item is copied out of its slice as it is visited.
func (p *pageFetcher) absorbPage(state *listedState, page runtime.Object) (string, string, error) {
	listMeta, err := meta.ListAccessor(page)
	if err != nil {
		return "", "", fmt.Errorf("returned object must be a list: %v", err)
	}
	state.transformed = p.transform != nil
	p.collected.expect(meta.LenList(page))
	if err := meta.EachListItemWithAlloc(page, p.visit); err != nil {
		return "", "", err
	}
	return listMeta.GetContinue(), listMeta.GetResourceVersion(), nil
}

// collect transforms one listed object (when the fetcher has a transform)
// and adds it to the collected objects. After a transform error it only
// records the first error and drops objects. p.visit is this method, bound
// once.
func (p *pageFetcher) collect(item runtime.Object) error {
	if p.transformErr != nil {
		return nil
	}
	var obj interface{} = item
	if p.transform != nil {
		transformed, err := p.transform(item)
		if err != nil {
			p.transformErr = err
			p.collected = collectedObjects{}
			return nil
		}
		obj = transformed
	}
	p.collected.add(obj)
	return nil
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
