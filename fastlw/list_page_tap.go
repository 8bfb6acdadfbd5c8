package fastlw

import (
	"io"
	"net/http"
	"sync"
)

// pageTap is the transport of a list request's sibling client: it sends
// each request through next (the caller's transport) and hands every
// response on, the body of one that start takes (a 200 OK page fastlw
// decodes as it arrives) tapped: Request.Do reads it as it would the
// real body, byte for byte, with the same errors, while each byte read is
// also fed to the page's streamedPage. So the Result, its errors, metrics
// and warnings are the plain path's; only the items decode sooner.
type pageTap struct {
	next http.RoundTripper
	// start returns the streamedPage that decodes resp's body, nil for
	// a body not tapped. Set before the first request, never after.
	start func(resp *http.Response) *streamedPage

	mu    sync.Mutex
	pages []*streamedPage // one per tapped answer, in order; guarded by mu
}

// RoundTrip sends req through next and taps the answer's body when start
// takes it.
func (t *pageTap) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp == nil || resp.Body == nil {
		return resp, err
	}
	page := t.start(resp)
	if page == nil {
		return resp, nil
	}
	t.mu.Lock()
	t.pages = append(t.pages, page)
	t.mu.Unlock()
	tapped := *resp
	tapped.Body = &tappedBody{real: resp.Body, page: page}
	return &tapped, nil
}

// WrappedRoundTripper returns the caller's transport (for client-go's
// utilities that look through wrappers).
func (t *pageTap) WrappedRoundTripper() http.RoundTripper { return t.next }

// take returns the page of the last answer tapped, nil for none, once the
// request is done (Request.Do returned). An earlier one (the request was
// sent again after a tapped answer) is discarded.
func (t *pageTap) take() *streamedPage {
	t.mu.Lock()
	pages := t.pages
	t.pages = nil
	t.mu.Unlock()
	if len(pages) == 0 {
		return nil
	}
	for _, earlier := range pages[:len(pages)-1] {
		earlier.discard()
	}
	return pages[len(pages)-1]
}

// tappedBody is a tapped answer's body: reads are the real body's, and
// what they read, their end (io.EOF) or their failure goes to page.
type tappedBody struct {
	real io.ReadCloser
	page *streamedPage
}

// Read reads the real body and feeds the page what it read.
func (b *tappedBody) Read(p []byte) (int, error) {
	n, err := b.real.Read(p)
	if n > 0 {
		b.page.feed(p[:n])
	}
	switch {
	case err == io.EOF:
		b.page.end()
	case err != nil:
		b.page.stop()
	}
	return n, err
}

// Close closes the real body; a page that has not ended is discarded.
func (b *tappedBody) Close() error {
	err := b.real.Close()
	b.page.stop()
	return err
}
