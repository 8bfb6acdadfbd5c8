package fastlw_test

import (
	"testing"

	"go.uber.org/goleak"
)

// A JSON watch answer may start with any JSON value (client-go's framer
// frames it, and the event decoder rejects it) or with a byte order mark;
// fastlw reads the format from the Content-Type, never from the first
// byte, so such an answer is one request, as on client-go.

// TestAJSONWatchStartingWithAnyValueButAnObjectIsRequestedOnceAsOnClientGo
// answers a JSON watch whose first value is an array, a string, a number,
// a literal, or a byte order mark before an event: one request on
// client-go, the same events and errors.
func TestAJSONWatchStartingWithAnyValueButAnObjectIsRequestedOnceAsOnClientGo(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	event := frame("ADDED", pod("a", "1", ""))
	for _, start := range []string{`[1]`, `"s"`, `5`, `-1`, `null`, `true`, "\ufeff"} {
		t.Run(start, func(t *testing.T) {
			requireSameCannedWatch(t, start+event, bodyEnds[0])
		})
	}
}
