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
// client-go's watch ends quietly after the event: for a transport net/http
// does not know, its Timeout timer runs whatever the caller's deadline and
// marks the body's read error a timeout. So must fastlw's (keptBody sees
// the timer by the request's Cancel, which the timer closes; the request's
// deadline alone cannot tell this case from a caller's deadline before the
// client's, which ends with an Error event). Under real clocks the two
// deadlines are never equal to the nanosecond; synctest makes them so.
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
