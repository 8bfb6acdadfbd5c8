package fastlw

import (
	"io"
	"net/http"
	"sync"
)

// responseRecorder is the transport of a siblingClient, which belongs to
// one watch. It sends each request through next (the caller's transport)
// and hands every response on as received, but for one that serves
// accepts (an answer fastlw reads itself): that one it keeps, and hands
// on in its place a copy with an empty body. Request.Watch, which sent
// the request, then does with that answer's status and headers all it
// does on the plain path (negotiate a decoder, report the warnings) and
// ends over the empty body at once, while fastlw takes the body
// (takeServed). Every other answer, and every attempt and pause of
// Request.Watch's retries, is Request.Watch's own; their bodies are
// handed on wrapped, so that the ones no watch reads are closed, once,
// after Request.Watch returned (closeUnread), also the one of an answer it
// refuses and leaves open.
type responseRecorder struct {
	next http.RoundTripper
	// serves reports whether fastlw reads a response itself; nil means
	// none. Set before the first request, never after.
	serves func(*http.Response) bool

	mu     sync.Mutex
	served *http.Response // the answer kept for fastlw, or nil; guarded by mu
	// handed are the bodies of the answers handed on, in order; guarded
	// by mu.
	handed []*closeOnce
}

// RoundTrip sends req through next; an answer that serves accepts is kept
// and a copy of it with an empty body is returned.
func (r *responseRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if err != nil || resp == nil {
		return resp, err // http.Client reports a nil response itself
	}
	if r.serves == nil || !r.serves(resp) {
		body := &closeOnce{ReadCloser: resp.Body}
		r.mu.Lock()
		r.handed = append(r.handed, body)
		r.mu.Unlock()
		handedOn := *resp
		handedOn.Body = body
		return &handedOn, nil
	}
	standIn := *resp
	standIn.Body = http.NoBody
	r.mu.Lock()
	earlier := r.served
	r.served = resp
	r.mu.Unlock()
	if earlier != nil {
		// NB: Request.Watch ends at the first 200 it gets, so it never
		// sends again after a kept answer; should it, the earlier body
		// is no one's and is closed, not leaked.
		_ = earlier.Body.Close()
	}
	return &standIn, nil
}

// WrappedRoundTripper returns the caller's transport (for client-go's
// utilities that look through wrappers).
func (r *responseRecorder) WrappedRoundTripper() http.RoundTripper { return r.next }

// takeServed returns the answer kept for fastlw, with its body, and
// forgets it; nil when there is none.
func (r *responseRecorder) takeServed() *http.Response {
	r.mu.Lock()
	defer r.mu.Unlock()
	served := r.served
	r.served = nil
	return served
}

// closeUnread closes the bodies of the answers handed on that no watch
// reads: all of them, or all but the last when keepLast (the body of the
// watch Request.Watch returned over that answer). A body Request.Watch
// closed already is not closed again.
func (r *responseRecorder) closeUnread(keepLast bool) {
	r.mu.Lock()
	handed := r.handed
	r.handed = nil
	r.mu.Unlock()
	if keepLast && len(handed) > 0 {
		handed = handed[:len(handed)-1]
	}
	for _, body := range handed {
		_ = body.Close()
	}
}

// closeOnce is a body whose first Close closes it; later ones do nothing
// and return the first one's error.
type closeOnce struct {
	io.ReadCloser
	once sync.Once
	err  error
}

// Close closes the body the first time.
func (c *closeOnce) Close() error {
	c.once.Do(func() { c.err = c.ReadCloser.Close() })
	return c.err
}
