package fastlw_test

import (
	"io"
	"slices"
	"testing"
	"testing/synctest"
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
