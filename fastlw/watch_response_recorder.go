package fastlw

import (
	"io"
	"net/http"
	"sync"
)

// responseRecorder is the transport of a siblingClient. It sends each
// request through next (the caller's transport) and keeps the last
// response it received, so that whoever sent the request through a
// rest.Request that hides the response (Stream) can read its status and
// headers; or, once given a response to replay, answers the next request
// with it without sending anything, so that rest.Request.Watch makes of an
// answer already received exactly what it makes of a fresh one.
//
// A 2xx response that serves rejects (fastlw will not read it and replays
// it to Request.Watch) is handed on without its Warning headers, so that
// only Request.Watch reports them, as it does on the plain path: after it
// negotiated a decoder for the answer, never for an answer it refuses.
type responseRecorder struct {
	next http.RoundTripper
	// serves reports whether fastlw reads a response itself; nil means
	// none. Set before the first request, never after.
	serves func(*http.Response) bool

	mu     sync.Mutex
	last   *http.Response // the last response received; guarded by mu
	replay *http.Response // the answer to the next request; guarded by mu
	// sent counts the requests sent through next that are not redirects
	// (the attempts of the rest.Requests); guarded by mu.
	sent int
}

// RoundTrip answers req with the response to replay if there is one, and
// otherwise sends it through next, keeping the response.
func (r *responseRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	replay := r.replay
	r.replay = nil
	r.mu.Unlock()
	if replay != nil {
		replay.Request = req
		return replay, nil
	}
	r.mu.Lock()
	if req.Response == nil {
		r.sent++
	}
	r.mu.Unlock()
	resp, err := r.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	r.mu.Lock()
	r.last = resp
	r.mu.Unlock()
	if resp.StatusCode/100 != 2 || (r.serves != nil && r.serves(resp)) {
		return resp, nil
	}
	quiet := *resp
	quiet.Header = resp.Header.Clone()
	quiet.Header.Del("Warning")
	return &quiet, nil
}

// WrappedRoundTripper returns the caller's transport (for client-go's
// utilities that look through wrappers).
func (r *responseRecorder) WrappedRoundTripper() http.RoundTripper { return r.next }

// lastResponse returns the last response received, nil before any.
func (r *responseRecorder) lastResponse() *http.Response {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// attempts returns how many requests were sent through next, redirects
// not counted.
func (r *responseRecorder) attempts() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sent
}

// replayNext makes the next request answered by resp (its status and
// headers as received, Warning headers included) with body as its body.
func (r *responseRecorder) replayNext(resp *http.Response, body io.ReadCloser) {
	replay := *resp
	replay.Body = body
	r.mu.Lock()
	r.replay = &replay
	r.mu.Unlock()
}
