package fastlw_test

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"testing/synctest"

	"k8s.io/client-go/rest"
)

// goneStatus is a 410 Gone Status as JSON.
const goneStatus = `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Gone","code":410}`

// TestEveryWatchAnswersBodyIsClosedExactlyOnce plays each script to
// client-go's watch and to fastlw's, each read to its end: fastlw gives
// the same watch and closes every body it was handed exactly once, the
// answers it streams, those it hands to Request.Watch and those retried
// alike, also when the watch's context ends as the answer arrives.
// (client-go's own Request.Watch leaves the body of an answer whose media
// type it cannot stream open; fastlw closes it.)
func TestEveryWatchAnswersBodyIsClosedExactlyOnce(t *testing.T) {
	tests := []struct {
		name   string
		script []scriptedAnswer
		// cancel ends the watch's context as the first request arrives.
		cancel bool
	}{
		{name: "a 200 stream", script: []scriptedAnswer{streamOK}},
		{name: "a 201 stream", script: []scriptedAnswer{{code: 201, contentType: "application/json", body: oneEventStream}}},
		{name: "a 204", script: []scriptedAnswer{{code: http.StatusNoContent, contentType: "application/json"}}},
		{name: "an HTML page", script: []scriptedAnswer{{contentType: "text/html", body: "<html/>"}}},
		{name: "no Content-Type", script: []scriptedAnswer{{body: oneEventStream}}},
		{name: "a 410", script: []scriptedAnswer{{code: 410, contentType: "application/json", body: goneStatus}}},
		{name: "a 429, then a 201", script: []scriptedAnswer{{code: 429, retryAfter: "1"}, {code: 201, contentType: "application/json", body: oneEventStream}}},
		{name: "a 200 stream as the context ends", script: []scriptedAnswer{streamOK}, cancel: true},
		{name: "a 201 stream as the context ends", script: []scriptedAnswer{{code: 201, contentType: "application/json", body: oneEventStream}}, cancel: true},
		{name: "an HTML page as the context ends", script: []scriptedAnswer{{contentType: "text/html", body: "<html/>"}}, cancel: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				side, configure := cancelledAtFirstAnswer(plainSide, tt.cancel)
				plain := runScript(t, tt.script, side, configure)
				side, configure = cancelledAtFirstAnswer(fastSide, tt.cancel)
				fast := runScript(t, tt.script, side, configure)
				requireSameWatch(t, plain.out, fast.out)
				if plain.requests != fast.requests || len(fast.closes) != int(fast.requests) {
					t.Fatalf("client-go sent %d requests, fastlw %d (%d bodies)", plain.requests, fast.requests, len(fast.closes))
				}
				if slices.ContainsFunc(fast.closes, func(n int32) bool { return n != 1 }) {
					t.Fatalf("fastlw closed the bodies %v times, want each once (client-go: %v)", fast.closes, plain.closes)
				}
			})
		})
	}
}

// cancelledAtFirstAnswer is side, and how to configure its transport so
// that, when cancel, the watch's context ends as the first request reaches
// the transport (sent, not yet answered).
func cancelledAtFirstAnswer(side watchSide, cancel bool) (watchSide, func(*scriptTransport)) {
	if !cancel {
		return side, nil
	}
	var stop context.CancelFunc // set before the first request is sent
	cancelling := func(t *testing.T, ctx context.Context, c rest.Interface) watchOutcome {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stop = cancel
		return side(t, ctx, c)
	}
	configure := func(tr *scriptTransport) {
		tr.onAnswer = func(n int) {
			if n == 1 {
				stop()
			}
		}
	}
	return cancelling, configure
}
