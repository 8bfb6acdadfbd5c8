package fastlw_test

import (
	"io"
	"testing"
	"testing/synctest"
)

// TestAWatchRetriedAfterAConnectionFailureWaitsOnTheRateLimiterAsOnClientGo
// fails attempts to open a watch at the connection and counts the client's
// rate limiter's Waits: client-go's Request.Watch does not wait before a
// watch's first attempt but waits before every retry, the retries after a
// connection failure included; fastlw must wait as often, pause as long,
// send as many requests and give the same watch (under synctest: the
// pauses take no time).
func TestAWatchRetriedAfterAConnectionFailureWaitsOnTheRateLimiterAsOnClientGo(t *testing.T) {
	tests := []struct {
		name      string
		script    []scriptedAnswer
		wantWaits int32
	}{
		{"one EOF, then the stream", []scriptedAnswer{{err: io.EOF}, streamOK}, 1},
		{"one timeout, then the stream", []scriptedAnswer{{err: timeoutError{}}, streamOK}, 1},
		{"two EOFs, then a 201", []scriptedAnswer{{err: io.EOF}, {err: io.EOF}, {code: 201, contentType: "application/json", body: oneEventStream}}, 2},
		{"one EOF, a 429 with Retry-After, then the stream", []scriptedAnswer{{err: io.EOF}, {code: 429, retryAfter: "1"}, streamOK}, 2},
		{"an EOF on every attempt", []scriptedAnswer{{err: io.EOF}}, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				plain := runScript(t, tt.script, plainSide, nil)
				fast := runScript(t, tt.script, fastSide, nil)
				requireSameWatch(t, plain.out, fast.out)
				if plain.requests != fast.requests || plain.elapsed != fast.elapsed {
					t.Errorf("client-go sent %d requests in %v, fastlw %d in %v", plain.requests, plain.elapsed, fast.requests, fast.elapsed)
				}
				if plain.waits != tt.wantWaits || fast.waits != tt.wantWaits {
					t.Fatalf("rate limiter waits: client-go %d, fastlw %d, want %d", plain.waits, fast.waits, tt.wantWaits)
				}
			})
		})
	}
}
