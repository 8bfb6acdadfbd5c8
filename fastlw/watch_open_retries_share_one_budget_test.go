package fastlw_test

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestAWatchOpensWithAtMostTenRetriesInAllAsOnClientGo answers a watch's
// first attempts with retryable answers (a 429 or a 503 with Retry-After)
// and every later one with a connection failure: client-go's Request.Watch
// retries ten times in all, whatever each attempt met, and then gives an
// empty watch; fastlw must send as many requests, pause as long and give
// the same watch (under synctest: the pauses take no time).
func TestAWatchOpensWithAtMostTenRetriesInAllAsOnClientGo(t *testing.T) {
	tests := []struct {
		name   string
		script []scriptedAnswer
	}{
		{"an EOF on every attempt", []scriptedAnswer{{err: io.EOF}}},
		{"a 429, then an EOF on every attempt", []scriptedAnswer{{code: 429, retryAfter: "1"}, {err: io.EOF}}},
		{"a 503 and a 429, then a timeout on every attempt", []scriptedAnswer{{code: 503, retryAfter: "2"}, {code: 429, retryAfter: "1"}, {err: timeoutError{}}}},
		{"an EOF, a 429, then an EOF on every attempt", []scriptedAnswer{{err: io.EOF}, {code: 429, retryAfter: "1"}, {err: io.EOF}}},
		{"ten 429s, then an EOF", append(slices.Repeat([]scriptedAnswer{{code: 429, retryAfter: "1"}}, 10), scriptedAnswer{err: io.EOF})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				plain := runScript(t, tt.script, plainSide, nil)
				fast := runScript(t, tt.script, fastSide, nil)
				requireSameWatch(t, plain.out, fast.out)
				if plain.requests != 11 || fast.requests != plain.requests || fast.elapsed != plain.elapsed {
					t.Fatalf("client-go sent %d requests in %v, fastlw %d in %v; want 11 on both (one attempt, ten retries)",
						plain.requests, plain.elapsed, fast.requests, fast.elapsed)
				}
			})
		})
	}
}

// redirectingTransport answers every request first with a redirect to
// itself (one more query parameter), and the redirected requests with a
// 429 asking to retry after a second, then with EOFs; it counts every
// HTTP request, redirects included. Safe for concurrent use.
type redirectingTransport struct {
	requests, redirected atomic.Int32
}

// RoundTrip answers req.
func (r *redirectingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r.requests.Add(1)
	if req.URL.Query().Get("redirected") != "true" {
		resp := okAnswer(req, "text/plain", strings.NewReader(""))
		resp.StatusCode, resp.Status = http.StatusTemporaryRedirect, "307 Temporary Redirect"
		resp.Header.Set("Location", req.URL.String()+"&redirected=true")
		return resp, nil
	}
	if r.redirected.Add(1) == 1 {
		resp := okAnswer(req, "application/json", strings.NewReader("{}"))
		resp.StatusCode, resp.Status = http.StatusTooManyRequests, "429 Too Many Requests"
		resp.Header.Set("Retry-After", "1")
		return resp, nil
	}
	return nil, io.EOF
}

// TestAWatchWhoseAttemptsAreRedirectedRetriesTenTimesInAllAsOnClientGo
// redirects every attempt once, answers the first redirected one with a
// 429 and the later ones with an EOF: a redirect is part of its attempt,
// so both sides make eleven attempts of two HTTP requests each, in as
// long, and give the same watch.
func TestAWatchWhoseAttemptsAreRedirectedRetriesTenTimesInAllAsOnClientGo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		run := func(side watchSide) (watchOutcome, int32, time.Duration) {
			transport := &redirectingTransport{}
			start := time.Now()
			out := side(t, t.Context(), cannedClient(t, transport))
			return out, transport.requests.Load(), time.Since(start)
		}
		plain, plainRequests, plainElapsed := run(plainSide)
		fast, fastRequests, fastElapsed := run(fastSide)
		requireSameWatch(t, plain, fast)
		if plainRequests != 22 || fastRequests != plainRequests || fastElapsed != plainElapsed {
			t.Fatalf("client-go sent %d requests in %v, fastlw %d in %v; want 22 on both (eleven redirected attempts)",
				plainRequests, plainElapsed, fastRequests, fastElapsed)
		}
	})
}
