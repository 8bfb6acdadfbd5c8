package fastlw_test

import (
	"testing"
	"testing/synctest"
)

// TestAWatchAnsweredToRetryLaterRetriesAsOnClientGo answers a watch's
// first attempt with a status and a Retry-After header of each kind
// (seconds, zero, an HTTP date, garbage, none) and the next with the
// stream: fastlw's Request.Stream retries, pauses and waits on the rate
// limiter exactly when client-go's Request.Watch does, and both give the
// same watch (under synctest: the pauses take no time).
func TestAWatchAnsweredToRetryLaterRetriesAsOnClientGo(t *testing.T) {
	tests := []struct {
		name       string
		code       int
		retryAfter string
	}{
		{"a 429 with Retry-After 2", 429, "2"},
		{"a 429 with Retry-After 0", 429, "0"},
		{"a 429 without Retry-After", 429, ""},
		{"a 429 with an HTTP date", 429, "Wed, 21 Oct 2015 07:28:00 GMT"},
		{"a 429 with garbage", 429, "soon"},
		{"a 500 with Retry-After 1", 500, "1"},
		{"a 502 with Retry-After 3", 502, "3"},
		{"a 503 without Retry-After", 503, ""},
		{"a 409 with Retry-After 1", 409, "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				script := []scriptedAnswer{{code: tt.code, retryAfter: tt.retryAfter, contentType: "application/json", body: goneStatus}, streamOK}
				plain := runScript(t, script, plainSide, nil)
				fast := runScript(t, script, fastSide, nil)
				requireSameWatch(t, plain.out, fast.out)
				if plain.requests != fast.requests || plain.elapsed != fast.elapsed || plain.waits != fast.waits {
					t.Fatalf("client-go: %d requests, %v, %d waits; fastlw: %d, %v, %d",
						plain.requests, plain.elapsed, plain.waits, fast.requests, fast.elapsed, fast.waits)
				}
				t.Logf("%d requests, %v, %d waits, %d events", plain.requests, plain.elapsed, plain.waits, len(plain.out.events))
			})
		})
	}
}
