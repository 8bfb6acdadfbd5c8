package fastlw_test

import (
	"errors"
	"io"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// TestEveryWatchAnswerUnderAClientTimeoutEndsAsOnClientGo plays each
// script through an http.Client with a Timeout (rest.Config.Timeout) to
// client-go's watch and to fastlw's: the events, the error, the number of
// requests, the warnings, client-go's request metrics and the time spent
// must be client-go's, and fastlw must close every body exactly once,
// whether the stream ends, breaks, or is cut by the Timeout (also after a
// retry, whose attempt gets a Timeout of its own).
func TestEveryWatchAnswerUnderAClientTimeoutEndsAsOnClientGo(t *testing.T) {
	canceled := errors.New("net/http: request canceled")
	cutByTimeout := scriptedAnswer{contentType: "application/json", body: oneEventStream, warning: "w", cut: true, hangs: true, cutErr: canceled}
	tests := []struct {
		name   string
		script []scriptedAnswer
	}{
		{"a stream cut by the Timeout, the transport reporting a canceled request", []scriptedAnswer{cutByTimeout}},
		{"a stream cut by the Timeout, the transport reporting the context's error",
			[]scriptedAnswer{{contentType: "application/json", body: oneEventStream, cut: true, hangs: true}}},
		{"a stream cut by the Timeout mid-frame",
			[]scriptedAnswer{{contentType: "application/json", body: oneEventStream + oneEventStream[:25], cut: true, hangs: true, cutErr: canceled}}},
		{"a stream cut by the Timeout before its first byte",
			[]scriptedAnswer{{contentType: "application/json", cut: true, hangs: true, cutErr: canceled}}},
		{"a stream the server ends", []scriptedAnswer{{contentType: "application/json", body: oneEventStream, warning: "w"}}},
		{"a stream broken before the Timeout",
			[]scriptedAnswer{{contentType: "application/json", body: oneEventStream, cut: true, cutErr: errors.New("malformed chunked encoding")}}},
		{"a stream broken by an unexpected EOF", []scriptedAnswer{{contentType: "application/json", body: oneEventStream, cut: true, cutErr: io.ErrUnexpectedEOF}}},
		{"a 200 with an empty body", []scriptedAnswer{{contentType: "application/json"}}},
		{"a 410", []scriptedAnswer{{code: 410, contentType: "application/json", body: goneStatus}}},
		{"a 429, then a stream cut by the Timeout", []scriptedAnswer{{code: 429, retryAfter: "1", warning: "slow down"}, cutByTimeout}},
		{"an EOF, then a stream cut by the Timeout", []scriptedAnswer{{err: io.EOF}, cutByTimeout}},
	}
	withTimeout := func(tr *scriptTransport) { tr.clientTimeout = 30 * time.Second }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				plain := runScript(t, tt.script, plainSide, withTimeout)
				fast := runScript(t, tt.script, fastSide, withTimeout)
				requireSameScriptRun(t, plain, fast)
			})
		})
	}
}

// requireSameScriptRun fails unless fastlw's run of a script is client-go's
// (the closes aside: fastlw must close each body once, see
// TestEveryWatchAnswersBodyIsClosedExactlyOnce).
func requireSameScriptRun(t *testing.T, plain, fast scriptRun) {
	t.Helper()
	requireSameWatch(t, plain.out, fast.out)
	if plain.requests != fast.requests || len(plain.closes) != len(fast.closes) {
		t.Fatalf("client-go sent %d requests (%d bodies), fastlw %d (%d bodies)", plain.requests, len(plain.closes), fast.requests, len(fast.closes))
	}
	if slices.ContainsFunc(fast.closes, func(n int32) bool { return n != 1 }) {
		t.Fatalf("fastlw closed the bodies %v times, want each once (client-go: %v)", fast.closes, plain.closes)
	}
	if !slices.Equal(plain.warnings, fast.warnings) {
		t.Fatalf("warnings differ:\nclient-go %q\nfastlw    %q", plain.warnings, fast.warnings)
	}
	if !slices.Equal(plain.metrics, fast.metrics) {
		t.Fatalf("request metrics differ:\nclient-go %q\nfastlw    %q", plain.metrics, fast.metrics)
	}
	if plain.waits != fast.waits || plain.elapsed != fast.elapsed {
		t.Fatalf("client-go waited %d times for %v, fastlw %d times for %v", plain.waits, plain.elapsed, fast.waits, fast.elapsed)
	}
}
