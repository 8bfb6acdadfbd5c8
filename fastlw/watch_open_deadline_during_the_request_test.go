//go:build review

package fastlw_test

import (
	"testing"
	"time"

	"go.uber.org/goleak"
)

// This test fails on main (build tag review): when the context's deadline
// passes while the server has not answered the watch, client-go's Watch
// returns its retry's error, "context deadline exceeded - error from a
// previous attempt: context deadline exceeded" (an unexported
// *rest.wrapPreviousError); fastlw's first attempt is Request.Stream, so
// Request.Watch, which it retries with, has no previous attempt to name:
// fastlw returns the bare context.DeadlineExceeded. Same request count,
// both an error; only the error's type and text differ.

// TestAWatchWhoseContextDeadlinePassesDuringTheRequestFailsAsOnClientGo
// opens a watch under a 50 ms deadline against a server that never
// answers.
func TestAWatchWhoseContextDeadlinePassesDuringTheRequestFailsAsOnClientGo(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	plain := requireSameWatchUnderDeadline(t, 50*time.Millisecond)
	if plain.err == nil {
		t.Fatalf("client-go gave no error but %v", summary(plain.events))
	}
}
