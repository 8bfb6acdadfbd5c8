//go:build review

package fastlw_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"
)

// TestAWatchCutWhenTheCallersDeadlineIsTheClientsEndsAsOnClientGo cuts a
// stream of one event at a deadline that is both the caller's and the
// http.Client's Timeout (the caller's context and the client's Timeout of
// the same length, set at the same fake instant), the transport (not one
// of net/http's own) reporting a canceled request.
//
// WHAT DIFFERS (fails on main 67ef32b): client-go's watch ends quietly
// after the event: for a transport net/http does not know, its Timeout
// timer runs whatever the caller's deadline, and marks the body's read
// error a timeout. fastlw's keptBody rewrites only when the request's
// deadline is before the caller's (net/http's rule for its own
// transports, which then start no timer), so it gives an Error event
// ("unable to decode an event from the watch stream: net/http: request
// canceled") and the reflector relists. Under real clocks the two
// deadlines are never equal to the nanosecond (the client's is taken
// later), so this is reachable only in fake time; the exact rule would
// depend on the caller's transport kind (see net/http's
// knownRoundTripperImpl), or on watching req.Cancel, which net/http's
// timer closes right after it notes the timeout.
func TestAWatchCutWhenTheCallersDeadlineIsTheClientsEndsAsOnClientGo(t *testing.T) {
	var plain, fast watchOutcome
	for _, side := range []struct {
		watch watchSide
		out   *watchOutcome
	}{{plainSide, &plain}, {fastSide, &fast}} {
		synctest.Test(t, func(t *testing.T) {
			transport := cuttingTransport{cutErr: errors.New("net/http: request canceled")}
			client := scriptClientWith(t, &http.Client{Transport: transport, Timeout: 30 * time.Second})
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			*side.out = side.watch(t, ctx, client)
		})
	}
	requireSameWatch(t, plain, fast)
}
