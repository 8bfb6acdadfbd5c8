package fastlw

import (
	"context"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// prefetch is one page requested ahead: the request runs on its own
// goroutine under a context derived from the call that found the continue
// token (its items may go on decoding on their workers after that, see
// fetch). sent, ctx, parentDone, cancel and done are immutable; answer is
// written by the goroutine before it closes done and read only after done
// is closed.
type prefetch struct {
	sent metav1.ListOptions // the options the request carries (modified)
	ctx  context.Context    // the request's context
	// parentDone is the Done channel of the context of the call that found
	// the token (nil for one that never ends).
	parentDone <-chan struct{}
	cancel     context.CancelFunc // ends the request
	done       chan struct{}      // closed when answer is set
	answer     fetched            // the response, complete once done is closed
}

// nextPageOptions returns the options a pager sends for the page after one
// that carried token: the same options with the token and without a
// resource version or match (the token carries the version).
func nextPageOptions(options metav1.ListOptions, token string) metav1.ListOptions {
	options.Continue = token
	options.ResourceVersion = ""
	options.ResourceVersionMatch = ""
	return options
}

// startPrefetch requests the page after the one that carried token, in the
// background, replacing (and ending) any page requested earlier.
func (lw *ListerWatcher) startPrefetch(ctx context.Context, options metav1.ListOptions, token string) {
	sent := lw.modified(nextPageOptions(options, token))
	pctx, cancel := context.WithCancel(ctx)
	p := &prefetch{sent: sent, ctx: pctx, parentDone: ctx.Done(), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.answer = lw.fetch(pctx, sent)
		p.answer.decodeAhead(pctx.Done())
	}()
	lw.mu.Lock()
	old := lw.next
	lw.next = p
	lw.mu.Unlock()
	old.discard()
}

// takePrefetched returns the prefetched response for a request with the
// options sent, waiting for it to complete. It reports false, after ending
// any prefetch, when there is none for sent, when ctx ends first, or when
// the prefetch's own context ended (its result would be a cancellation the
// caller did not ask for). A prefetch made under a context that ends with
// ctx (the pager lists every page under one context) is the request the
// plain path sends under ctx, so when ctx ends after the call began, its
// answer is taken all the same: cut where ctx cut it, as client-go's
// request would be. A call under a context already ended gets none.
func (lw *ListerWatcher) takePrefetched(ctx context.Context, sent metav1.ListOptions) (fetched, bool) {
	lw.mu.Lock()
	p := lw.next
	lw.next = nil
	lw.mu.Unlock()
	if p == nil {
		return fetched{}, false
	}
	if !reflect.DeepEqual(p.sent, sent) {
		p.discard()
		return fetched{}, false
	}
	underCtx := ctx.Err() == nil && p.parentDone != nil && p.parentDone == ctx.Done()
	select {
	case <-p.done:
	case <-ctx.Done():
		if !underCtx {
			p.discard()
			return fetched{}, false
		}
		<-p.done
	}
	if p.ctx.Err() != nil && !underCtx {
		p.discard()
		return fetched{}, false
	}
	p.cancel()
	return p.answer, true
}

// dropPrefetched ends the page requested ahead, if any, and waits for its
// goroutine.
func (lw *ListerWatcher) dropPrefetched() {
	lw.mu.Lock()
	p := lw.next
	lw.next = nil
	lw.mu.Unlock()
	p.discard()
}

// discard ends the request and waits for its goroutine and the workers
// of its page; nil is a no-op.
func (p *prefetch) discard() {
	if p == nil {
		return
	}
	p.cancel()
	<-p.done
	p.answer.discard()
}
