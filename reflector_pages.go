package cache

import (
	"context"
	"errors"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// This file holds the page fetcher of the Reflector's List path: it issues
// the same requests client-go's tools/pager makes and collects the listed
// objects.
//
// Beyond client-go: when the store is one of kcache's transforming queues
// (transformedReplacer), the fetcher transforms each page once the next page
// has arrived (or the list is complete), and drops the raw page, so a large
// list never holds more than the transformed objects plus two raw pages.
// NB: the one-page lag means a continue token that expires on page 2 costs
// no transform call, as with client-go, which transforms only in Replace.
// Once the fetch is abandoned (the Reflector's context ended) the fetcher
// calls neither the ListerWatcher, the transform nor the store's key
// function again, and an abandon waits for a transform or key call in
// progress: no user code runs after the Reflector returned.

// listedState is the outcome of one paged List: the snapshot and the
// resource version it was taken at.
type listedState struct {
	// items are the listed objects; transformed when transformed is true,
	// up to failAt when transformErr is set.
	items []interface{}
	// resourceVersion is the list's resource version (of its first page).
	resourceVersion string
	// paginated is true when the server answered with more than one page.
	paginated bool
	// transformed is true when items went through the store's transformer.
	transformed bool
	// stopped says transforming stopped at items[failAt]: the transform
	// refused it (transformErr) or the store cannot key it (transformErr
	// nil); the objects from failAt on are untransformed. The list is still
	// fetched to the end (the same requests as when the store transforms).
	stopped      bool
	transformErr error
	failAt       int
}

// errFetchAbandoned ends a fetch whose caller has gone (context done).
var errFetchAbandoned = errors.New("list abandoned: the reflector stopped")

// pageFetcher issues the List requests of one list operation. One goroutine
// fetches at a time; gate guards abandoned, and is held around every call of
// transform and keyCheck (user code) so that abandon waits for a call in
// progress.
type pageFetcher struct {
	// list calls the ListerWatcher with the reflector's context.
	list func(options metav1.ListOptions) (runtime.Object, error)
	// pageSize is the Limit of each request; 0 lists in one request.
	pageSize int64
	// typeLabel names the expected type in errors.
	typeLabel string
	// transform, when set, is applied to every item one page late.
	transform TransformFunc
	// collected accumulates the objects of the fetch in progress.
	collected collectedObjects
	// pending holds the raw items of the latest page, not yet transformed.
	pending []runtime.Object
	// keyCheck reports the store's key error for an object, checked before
	// transforming it (as the store's Replace would).
	keyCheck func(obj interface{}) error
	// keysFirst says the store keys every object before transforming any;
	// a page is then key-checked whole before it is transformed.
	keysFirst bool
	// stopped, transformErr and failAt: transforming stopped at position
	// failAt of collected, refused by the transform (transformErr) or for
	// a key error (transformErr nil).
	stopped      bool
	transformErr error
	failAt       int
	// nilItems records a nil item (see visitListItems) in the fetch.
	nilItems bool

	gate      sync.Mutex
	abandoned bool // set by abandon; guarded by gate
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
	if p.transform != nil {
		replacer := r.sink.(transformedReplacer)
		p.keyCheck, p.keysFirst = replacer.checkReplaceKey, replacer.keysBeforeTransform()
	}
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
// fetch is abandoned (see abandon) and the result is zero.
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
		p.abandon()
		return listedState{}, ctx.Err()
	case res := <-results:
		if res.panicV != nil {
			panic(res.panicV)
		}
		return res.state, res.err
	}
}

// abandon stops the fetch from calling user code again; it waits for a
// transform call in progress to return.
func (p *pageFetcher) abandon() {
	p.gate.Lock()
	defer p.gate.Unlock()
	p.abandoned = true
}

// isAbandoned reports whether abandon was called.
func (p *pageFetcher) isAbandoned() bool {
	p.gate.Lock()
	defer p.gate.Unlock()
	return p.abandoned
}

// reset empties the objects of the fetch in progress.
func (p *pageFetcher) reset() {
	p.collected, p.pending, p.nilItems = collectedObjects{}, nil, false
	p.stopped, p.transformErr, p.failAt = false, nil, 0
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
	p.reset()
	var state listedState
	for first := true; ; first = false {
		if p.isAbandoned() {
			return listedState{}, errFetchAbandoned
		}
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
		next, rv, err := p.absorbPage(&state, page, first)
		if err != nil {
			return listedState{}, err
		}
		if first {
			state.resourceVersion = rv
		}
		if next == "" {
			return p.finish(state)
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

// fetchUnpaged lists once without a limit at the original options; what
// earlier pages collected is dropped.
func (p *pageFetcher) fetchUnpaged(original metav1.ListOptions, paginated bool) (listedState, error) {
	original.Limit = 0
	original.Continue = ""
	p.reset()
	if p.isAbandoned() {
		return listedState{}, errFetchAbandoned
	}
	page, err := p.list(original)
	if err != nil {
		return listedState{}, err
	}
	if err := p.refuseTable(page); err != nil {
		return listedState{}, err
	}
	state := listedState{paginated: paginated}
	_, rv, err := p.absorbPage(&state, page, true)
	if err != nil {
		return listedState{}, err
	}
	state.resourceVersion = rv
	return p.finish(state)
}

// visitListItems calls visit with each item of page, copied out of it. An
// entire list is read as meta.ExtractListWithAlloc reads it (a RawExtension
// without an object becomes a *runtime.Unknown holding its bytes); the
// pages of a paged list as the pager visits them (such an item is nil).
func visitListItems(page runtime.Object, whole bool, visit func(runtime.Object) error) error {
	if !whole {
		return meta.EachListItemWithAlloc(page, visit)
	}
	items, err := meta.ExtractListWithAlloc(page)
	if err != nil {
		return err
	}
	for i, item := range items {
		items[i] = nil
		if err := visit(item); err != nil {
			return err
		}
	}
	return nil
}

// panicOnMergedNilItem panics as client-go does when the merged pages of a
// paged list hold a nil item (a RawExtension without an object).
func panicOnMergedNilItem() {
	var missing interface{}
	_ = missing.(runtime.Object) // NB: panics "interface conversion: interface is nil, not runtime.Object"
}

// finish transforms the last page and hands over the collected objects.
func (p *pageFetcher) finish(state listedState) (listedState, error) {
	if state.paginated && p.nilItems {
		panicOnMergedNilItem()
	}
	if err := p.flushPending(); err != nil {
		return listedState{}, err
	}
	state.items = p.collected.take()
	state.stopped, state.transformErr, state.failAt = p.stopped, p.transformErr, p.failAt
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
// version; nil is not.
func isTableObject(obj runtime.Object) bool {
	if obj == nil {
		return false
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	return gvk.Group == metav1.GroupName && gvk.Kind == "Table"
}

// absorbPage takes the items of page: straight into the collected objects
// without a transform, else as the new pending page after the previous
// pending page was transformed. It returns the page's continue token and
// resource version. whole says the page may be the entire list (a first
// page, or the unpaged fallback). The page itself is not retained: each
// item is copied out of its slice as it is visited.
func (p *pageFetcher) absorbPage(state *listedState, page runtime.Object, whole bool) (string, string, error) {
	listMeta, err := meta.ListAccessor(page)
	if err != nil {
		return "", "", fmt.Errorf("returned object must be a list: %v", err)
	}
	state.transformed = p.transform != nil
	p.collected.expect(meta.LenList(page))
	var incoming []runtime.Object
	if p.transform != nil {
		incoming = make([]runtime.Object, 0, meta.LenList(page))
	}
	take := func(item runtime.Object) error {
		if item == nil {
			p.nilItems = true
		}
		if p.transform == nil {
			p.collected.add(item)
		} else {
			incoming = append(incoming, item)
		}
		return nil
	}
	if err := visitListItems(page, whole && listMeta.GetContinue() == "", take); err != nil {
		return "", "", err
	}
	if err := p.checkKeysFirst(incoming); err != nil {
		return "", "", err
	}
	if err := p.flushPending(); err != nil {
		return "", "", err
	}
	p.pending = incoming
	return listMeta.GetContinue(), listMeta.GetResourceVersion(), nil
}

// checkKeysFirst keys the objects of an incoming page, for a store that
// keys every object before transforming any, before the previous page is
// transformed: at a key error transforming stops, so that a page whose key
// fails costs the page before it no transform call (as client-go, which
// transforms nothing then). The objects of earlier pages were transformed.
// It returns errFetchAbandoned when the fetch was abandoned.
func (p *pageFetcher) checkKeysFirst(incoming []runtime.Object) error {
	if !p.keysFirst || p.stopped {
		return nil
	}
	for _, item := range incoming {
		keyErr, ok := p.keyCheckGated(item)
		if !ok {
			return errFetchAbandoned
		}
		if keyErr != nil {
			p.stopped, p.failAt = true, p.collected.count
			return nil
		}
	}
	return nil
}

// keyCheckGated calls keyCheck (the store's key function: user code) under
// gate; ok is false (and nothing called) once the fetch was abandoned.
func (p *pageFetcher) keyCheckGated(item runtime.Object) (keyErr error, ok bool) {
	p.gate.Lock()
	defer p.gate.Unlock()
	if p.abandoned {
		return nil, false
	}
	return p.keyCheck(item), true
}

// flushPending transforms the pending page into the collected objects.
// After a refusal, or at an object the store cannot key, the remaining
// objects are collected untransformed (the store's Replace is told where). It returns
// errFetchAbandoned when the fetch was abandoned.
func (p *pageFetcher) flushPending() error {
	for i, item := range p.pending {
		p.pending[i] = nil
		// NB: a store keying first had its pages checked as they arrived
		// (see checkKeysFirst); keying again would call the user's key
		// function more often than client-go.
		if !p.stopped && !p.keysFirst {
			keyErr, ok := p.keyCheckGated(item)
			if !ok {
				return errFetchAbandoned
			}
			if keyErr != nil {
				p.stopped, p.failAt = true, p.collected.count
			}
		}
		if p.stopped {
			p.collected.add(item)
			continue
		}
		obj, ok, err := p.transformGated(item)
		if !ok {
			return errFetchAbandoned
		}
		if err != nil {
			p.stopped, p.transformErr, p.failAt = true, err, p.collected.count
			obj = item
		}
		p.collected.add(obj)
	}
	p.pending = nil
	return nil
}

// transformGated calls the transform under gate; ok is false (and the
// transform not called) once the fetch was abandoned.
func (p *pageFetcher) transformGated(item runtime.Object) (obj interface{}, ok bool, err error) {
	p.gate.Lock()
	defer p.gate.Unlock()
	if p.abandoned {
		return nil, false, nil
	}
	obj, err = p.transform(item)
	return obj, true, err
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
