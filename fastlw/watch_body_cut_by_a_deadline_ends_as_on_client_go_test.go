package fastlw_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// cutBody yields a watch stream and then fails with the error a
// transport reports there (cutErr, or the context's own error when nil):
// at once when atOnce, else once its request's context ended.
type cutBody struct {
	stream io.Reader
	ctx    context.Context
	cutErr error
	atOnce bool
}

// Read reads the stream, then waits for the context (unless atOnce) and
// fails.
func (b *cutBody) Read(p []byte) (int, error) {
	if n, err := b.stream.Read(p); err != io.EOF {
		return n, err
	}
	if !b.atOnce {
		<-b.ctx.Done()
		// Let net/http's timer goroutine, woken at the same instant, note
		// its timeout first (as it mostly does against a real server).
		synctest.Wait()
	}
	if b.cutErr != nil {
		return 0, b.cutErr
	}
	return 0, b.ctx.Err()
}

// Close does nothing; the stream ends with the context.
func (b *cutBody) Close() error { return nil }

// cuttingTransport answers every request with one event and then a body
// cut with cutErr (see cutBody).
type cuttingTransport struct {
	cutErr error
	atOnce bool
}

// RoundTrip answers req with a stream of one event.
func (c cuttingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	return &http.Response{
		StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body:    &cutBody{stream: strings.NewReader(oneEventStream), ctx: req.Context(), cutErr: c.cutErr, atOnce: c.atOnce},
		Request: req,
	}, nil
}

// TestAWatchBodyCutByADeadlineEndsAsOnClientGo plays a stream of one event
// that a deadline then cuts: the http.Client's Timeout (net/http reports
// such a read as a timeout on the body it hands out, whatever the
// transport said) or the caller's context. client-go's watch and fastlw's
// must end alike: quietly after the event for a timeout, with an error
// event for a body that failed for another reason before any deadline.
// Under synctest the deadlines pass in fake time, so each row is exact
// (against a real server, which error the transport reports is a race).
func TestAWatchBodyCutByADeadlineEndsAsOnClientGo(t *testing.T) {
	cases := []struct {
		name          string
		clientTimeout time.Duration
		callerTimeout time.Duration // 0: the caller's context never ends
		cutErr        error
		atOnce        bool // the body fails right after the event, before any deadline
		wantEvents    int
	}{
		{name: "the client's Timeout, the transport reporting a canceled request", clientTimeout: 30 * time.Second,
			cutErr: errors.New("net/http: request canceled"), wantEvents: 1},
		{name: "the client's Timeout, the transport reporting the context's error", clientTimeout: 30 * time.Second,
			wantEvents: 1},
		{name: "the caller's deadline, no client Timeout", callerTimeout: 30 * time.Second, wantEvents: 1},
		{name: "the caller's deadline before the client's Timeout", clientTimeout: time.Minute, callerTimeout: 30 * time.Second,
			cutErr: errors.New("net/http: request canceled"), wantEvents: 2},
		// net/http's timer runs for a transport it does not know whatever
		// the caller's deadline, and marks the cut a timeout; fastlw sees it
		// by the request's Cancel (under real clocks the two deadlines are
		// never equal; synctest makes them so).
		{name: "the caller's deadline equal to the client's Timeout", clientTimeout: 30 * time.Second, callerTimeout: 30 * time.Second,
			cutErr: errors.New("net/http: request canceled"), wantEvents: 1},
		{name: "a broken stream while the client's Timeout runs", clientTimeout: time.Minute,
			cutErr: errors.New("malformed chunked encoding"), atOnce: true, wantEvents: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var plain, fast watchOutcome
			for _, side := range []struct {
				watch watchSide
				out   *watchOutcome
			}{{plainSide, &plain}, {fastSide, &fast}} {
				synctest.Test(t, func(t *testing.T) {
					client := scriptClientWith(t, &http.Client{Transport: cuttingTransport{cutErr: tc.cutErr, atOnce: tc.atOnce}, Timeout: tc.clientTimeout})
					ctx := t.Context()
					if tc.callerTimeout > 0 {
						var cancel context.CancelFunc
						ctx, cancel = context.WithTimeout(ctx, tc.callerTimeout)
						defer cancel()
					}
					*side.out = side.watch(t, ctx, client)
				})
			}
			requireSameWatch(t, plain, fast)
			if len(fast.events) != tc.wantEvents {
				t.Fatalf("fastlw delivered %v, want %d events", summary(fast.events), tc.wantEvents)
			}
		})
	}
}
