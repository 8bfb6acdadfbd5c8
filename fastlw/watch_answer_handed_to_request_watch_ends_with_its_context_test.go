package fastlw_test

import (
	"testing"

	"go.uber.org/goleak"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"

	cache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/fastlw"
)

// TestAWatchHandedToRequestWatchEndsWithItsContext watches a stream that
// stays open in a media type fastlw's serializer does not stream (JSON, its
// stream serializer taken away), so that fastlw hands the answer to
// Request.Watch; ending the watch by its context or by Stop gives the
// events client-go gives, nothing but an Error after, closes the channel
// and leaves no goroutine.
func TestAWatchHandedToRequestWatchEndsWithItsContext(t *testing.T) {
	for _, end := range []struct {
		name     string
		byCancel bool
	}{{"Stop", false}, {"context cancelled", true}} {
		t.Run(end.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			env := startEnv(scenario{watchSteps: changes(), watchEnd: endHang})
			defer env.close()
			client := env.client(t, "json")
			serializer := narrowed(func(m string) (bool, bool) { return true, m != runtime.ContentTypeJSON })
			n := len(changes())
			plainBefore, plainAfter := readThenEnd(t, cache.NewListWatchFromClient(client, "pods", "ns", fields.Everything()), n, end.byCancel)
			fastBefore, fastAfter := readThenEnd(t, fastlw.NewFromClient(client, "pods", "ns", fields.Everything(), serializer), n, end.byCancel)
			requireSameWatch(t, watchOutcome{events: plainBefore}, watchOutcome{events: fastBefore})
			if end.byCancel {
				requireSameWatch(t, watchOutcome{events: plainAfter}, watchOutcome{events: fastAfter})
			}
			requireOnlyErrors(t, plainAfter, fastAfter)
			if got := watchRequests(env.server); got != 2 {
				t.Fatalf("%d watch requests, want one a side", got)
			}
		})
	}
}
