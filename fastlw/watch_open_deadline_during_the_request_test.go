package fastlw_test

import (
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestAWatchWhoseContextDeadlinePassesDuringTheRequestFailsAsOnClientGo
// opens a watch under a 50 ms deadline against a server that never
// answers: client-go's Watch returns its retry's error, "context deadline
// exceeded - error from a previous attempt: context deadline exceeded"
// (an unexported *rest.wrapPreviousError), and so must fastlw, after the
// same one request.
func TestAWatchWhoseContextDeadlinePassesDuringTheRequestFailsAsOnClientGo(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	plain := requireSameWatchUnderDeadline(t, 50*time.Millisecond)
	if plain.err == nil {
		t.Fatalf("client-go gave no error but %v", summary(plain.events))
	}
}
