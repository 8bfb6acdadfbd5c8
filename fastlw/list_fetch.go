package fastlw

import (
	"context"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
)

// fetched is the answer to one list request: its Result, as Request.Do
// gives it, and, when its body was decoded as it arrived, that decoding.
type fetched struct {
	result   rest.Result
	streamed *streamedPage // nil when the body was not tapped
}

// discard ends the decoding of the answer's items, if any, and waits for
// its workers.
func (f fetched) discard() {
	if f.streamed != nil {
		f.streamed.discard()
	}
}

// decodeAhead decodes, when the answer is a page that arrived whole, the
// runs of its items no worker took while it arrived (see streamedPage), so
// that a page requested ahead is decoded by the time it is taken; it stops
// early once stop is closed, leaving the rest to decodePage.
func (f fetched) decodeAhead(stop <-chan struct{}) {
	if f.streamed == nil || f.result.Error() != nil {
		return
	}
	if _, whole := f.streamed.skeleton(); !whole {
		return
	}
	body, _ := f.result.Raw()
	f.streamed.decodeDeferred(stop, body)
}

// fetch sends the list request with the options sent through a sibling of
// the caller's client whose pageTap decodes a JSON page's items while
// Request.Do reads the page (see pageTap), or through the caller's client
// when no sibling can be built. The Result is Request.Do's either way;
// the page's workers may still be decoding when fetch returns (decodePage
// waits for them, discard ends them).
func (lw *ListerWatcher) fetch(ctx context.Context, sent metav1.ListOptions) fetched {
	if lw.siblings == nil {
		return fetched{result: lw.request(lw.cfg.Client, sent).Do(ctx)}
	}
	var tap *pageTap
	sibling, ok := lw.siblings.over(func(next http.RoundTripper, _ time.Duration) http.RoundTripper {
		tap = &pageTap{next: next, start: lw.streamedPageFor}
		return tap
	})
	if !ok {
		return fetched{result: lw.request(lw.cfg.Client, sent).Do(ctx)}
	}
	result := sibling.prepare(lw.request(sibling.client, sent)).Do(ctx)
	return fetched{result: result, streamed: tap.take()}
}

// streamedPageFor returns the streamedPage that decodes resp's body as it
// arrives: nil unless resp is a 200 OK of a JSON media type fastlw cuts
// (cuttableMediaType) that the serializer reads.
func (lw *ListerWatcher) streamedPageFor(resp *http.Response) *streamedPage {
	if resp.StatusCode != http.StatusOK {
		return nil
	}
	decoder, mediaType, ok := lw.pageDecoder(resp.Header.Get("Content-Type"))
	if !ok || mediaType != runtime.ContentTypeJSON {
		return nil
	}
	return newStreamedPage(decoder, lw.cfg.Workers, lw.cfg.MaxInFlight, lw.cfg.Transform)
}
