package fastlw

import (
	"context"
	"io"
	"net/http"
	"sync"
	"time"
)

// responseRecorder is the transport of a siblingClient, which belongs to
// one watch. It sends each request through next (the caller's transport)
// and hands every response on as received, but for one that serves
// accepts (an answer fastlw reads itself): that one it keeps, and hands
// on in its place a copy whose body is a stand-in that yields nothing
// until fastlw closes the real one (heldBody). Request.Watch, which sent
// the request, then does with that answer's status and headers all it
// does on the plain path (negotiate a decoder, report the warnings),
// while fastlw takes the real body (takeServed). Every other answer, and
// every attempt and pause of Request.Watch's retries, is Request.Watch's
// own; their bodies are
// handed on wrapped, so that the ones no watch reads are closed, once,
// after Request.Watch returned (closeUnread), also the one of an answer it
// refuses and leaves open.
type responseRecorder struct {
	next http.RoundTripper
	// serves reports whether fastlw reads a response itself; nil means
	// none. Set before the first request, never after.
	serves func(*http.Response) bool
	// clientTimeout is the Timeout of the http.Client over this transport
	// (0 for none), and callerDeadline the deadline of the context the
	// watch was opened with (zero for none). Set before the first request,
	// never after.
	clientTimeout  time.Duration
	callerDeadline time.Time

	mu     sync.Mutex
	served *http.Response // the answer kept for fastlw, or nil; guarded by mu
	// handed are the bodies of the answers handed on, in order; guarded
	// by mu.
	handed []*closeOnce
}

// RoundTrip sends req through next; an answer that serves accepts is kept
// and a copy of it with a stand-in body (heldBody) is returned.
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
	held := &heldBody{closed: make(chan struct{})}
	standIn := *resp
	standIn.Body = held
	kept := *resp
	kept.Body = &keptBody{real: closeOnce{ReadCloser: resp.Body}, standIn: held,
		request: req, clientTimeout: r.clientTimeout, callerDeadline: r.callerDeadline}
	r.mu.Lock()
	earlier := r.served
	r.served = &kept
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

// takeServed returns the answer kept for fastlw, with its body (a
// *keptBody), and forgets it; nil when there is none.
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

// heldBody is the body Request.Watch gets in place of an answer fastlw
// reads: a Read blocks until it is closed and then reports io.EOF; nothing
// is ever read from it. It stays open as long as fastlw reads the real
// body (see keptBody).
//
// NB: it must not end sooner. When the caller's http.Client has a Timeout,
// the client ends the request's context as soon as the body it returned
// (this one) reaches EOF or is closed, and that context is also the real
// body's: an empty stand-in cut every such watch right after it opened.
type heldBody struct {
	closed chan struct{} // closed by the first Close
	once   sync.Once
}

// Read waits until h is closed and reports io.EOF.
func (h *heldBody) Read([]byte) (int, error) {
	<-h.closed
	return 0, io.EOF
}

// Close releases the Reads; later calls do nothing.
func (h *heldBody) Close() error {
	h.once.Do(func() { close(h.closed) })
	return nil
}

// keptBody is the body of an answer fastlw reads. Closing it closes the
// real body, then its stand-in, then calls onClose (set by openWatch
// before anything reads the body, to stop Request.Watch's watch over the
// stand-in): in that order, so that nothing ends the request's context
// while the real body is read. Each of the three is idempotent, so a
// second Close only repeats the first one's error.
type keptBody struct {
	real    closeOnce // the answer's own body
	standIn *heldBody
	// request is the request answered, whose context has the earlier of
	// the caller's deadline and the one the http.Client's Timeout gave
	// it; clientTimeout and callerDeadline are as in responseRecorder.
	request        *http.Request
	clientTimeout  time.Duration
	callerDeadline time.Time
	onClose        func() // nil for none; idempotent; set before the first Read, never after
}

// Read reads the real body. A read that fails once the http.Client's
// Timeout passed is reported as net/http reports it on the body it hands
// out: a timeout error (so that a watch cut by the client's Timeout ends
// quietly, as client-go's does, instead of with an error event and a
// relist). A read cut by the caller's own deadline is reported as is, as
// net/http does.
func (k *keptBody) Read(p []byte) (int, error) {
	n, err := k.real.Read(p)
	if err != nil && err != io.EOF && k.cutByClientTimeout() {
		err = &bodyTimeoutError{msg: err.Error() + " (Client.Timeout or context cancellation while reading body)"}
	}
	return n, err
}

// cutByClientTimeout reports whether the http.Client's Timeout has passed:
// its timer fired (it closes the request's Cancel, which the client sets
// for a transport it does not know, as this one), or the request's
// deadline passed and is not the caller's own.
//
// NB: net/http decides the same by a flag its timer sets, racing at that
// instant with the transport's read failing on the context's deadline (so
// even client-go's watch sometimes ends with an error event there); the
// deadline itself is the answer net/http gives once its timer ran. The
// Cancel channel covers a caller's deadline equal to the client's, which
// the request's deadline alone cannot tell from an earlier one.
func (k *keptBody) cutByClientTimeout() bool {
	if k.clientTimeout <= 0 {
		return false
	}
	select {
	case <-k.request.Cancel: // closed by the client's timer once it fired
		return true
	default:
	}
	deadline, ok := k.request.Context().Deadline()
	if !ok || time.Now().Before(deadline) {
		return false
	}
	return k.callerDeadline.IsZero() || deadline.Before(k.callerDeadline)
}

// bodyTimeoutError is a body read cut by the client's Timeout.
type bodyTimeoutError struct{ msg string }

func (e *bodyTimeoutError) Error() string   { return e.msg }
func (e *bodyTimeoutError) Timeout() bool   { return true }
func (e *bodyTimeoutError) Temporary() bool { return true }

// Is reports context.DeadlineExceeded, as net/http's own error does.
func (e *bodyTimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// Close closes the real body and the stand-in, then calls onClose.
func (k *keptBody) Close() error {
	err := k.real.Close()
	_ = k.standIn.Close()
	if k.onClose != nil {
		k.onClose()
	}
	return err
}
