package fastlw_test

import (
	"context"
	"io"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"

	cache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/fastlw"
)

// When the first attempt to open a watch fails at the connection and a
// retry then fails too, client-go's Request.Watch returns the retry's error
// wrapped with the first one's (its unexported wrapper: "<error> - error
// from a previous attempt: EOF"). fastlw's watches are opened by one
// Request.Watch that makes every attempt, so the type and the text are
// client-go's own.

// TestAWatchRetriedAfterAConnectionFailureFailsWithClientGosError plays
// each script to both sides and requires the same outcome (error type and
// text included).
func TestAWatchRetriedAfterAConnectionFailureFailsWithClientGosError(t *testing.T) {
	tests := []struct {
		name   string
		script []scriptedAnswer
		// deadline, when set, ends the watch's context this long after it
		// started (during the retry pause).
		deadline time.Duration
	}{
		{name: "an EOF, then a 410", script: []scriptedAnswer{{err: io.EOF}, {code: 410, contentType: "application/json", body: goneStatus}}},
		{name: "an EOF, then a 500", script: []scriptedAnswer{{err: io.EOF}, {code: 500, contentType: "application/json", body: goneStatus}}},
		{name: "an EOF, then 429s", script: []scriptedAnswer{{err: io.EOF}, {code: 429, retryAfter: "1"}}},
		{name: "an EOF, then a 201", script: []scriptedAnswer{{err: io.EOF}, {code: 201, contentType: "application/json", body: oneEventStream}}},
		{name: "an EOF, then the context ends during the pause", script: []scriptedAnswer{{err: io.EOF}}, deadline: 500 * time.Millisecond},
		// Stream's own retry pause: the context's end is a timeout to
		// fastlw, which then "retries" under the ended context.
		{name: "a 429 whose Retry-After outlasts the context", script: []scriptedAnswer{{code: 429, retryAfter: "5"}, streamOK}, deadline: 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				plain := runScript(t, tt.script, withDeadline(plainSide, tt.deadline), nil)
				fast := runScript(t, tt.script, withDeadline(fastSide, tt.deadline), nil)
				if plain.out.err == nil {
					t.Fatalf("client-go gave no error but %v", summary(plain.out.events))
				}
				requireSameWatch(t, plain.out, fast.out)
			})
		})
	}
}

// TestAWatchWhoseRetryTheRateLimiterCannotGrantInTimeFailsWithClientGosError
// lists once (taking the only token of a 0.2 QPS limiter), then watches
// under a 3 s deadline a server whose first watch attempt fails with an
// EOF: the retry would wait about 4 s for a token, past the deadline, so
// it is refused; fastlw must fail as client-go does.
func TestAWatchWhoseRetryTheRateLimiterCannotGrantInTimeFailsWithClientGosError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		script := []scriptedAnswer{{contentType: "application/json", body: string(encode(runtime.ContentTypeJSON, &corev1.PodList{}))}, {err: io.EOF}}
		slowLimiter := func(tr *scriptTransport) {
			tr.configureClient = func(cfg *rest.Config, _ *recordingWarnings) {
				cfg.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(0.2, 1)
			}
		}
		listThenWatch := func(lw func(rest.Interface) cache.ListerWatcherWithContext) watchSide {
			return func(t *testing.T, ctx context.Context, c rest.Interface) watchOutcome {
				source := lw(c)
				if _, err := source.ListWithContext(ctx, metav1.ListOptions{}); err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
				defer cancel()
				return watchAllIn(ctx, source, metav1.ListOptions{ResourceVersion: "100"})
			}
		}
		plain := runScript(t, script, listThenWatch(func(c rest.Interface) cache.ListerWatcherWithContext { return clientGoPlain(c) }), slowLimiter)
		fast := runScript(t, script, listThenWatch(func(c rest.Interface) cache.ListerWatcherWithContext {
			return fastlw.NewFromClient(c, "pods", "ns", fields.Everything(), nil)
		}), slowLimiter)
		if plain.out.err == nil {
			t.Fatalf("client-go gave no error but %v", summary(plain.out.events))
		}
		requireSameWatch(t, plain.out, fast.out)
	})
}

// withDeadline is side under a context that ends after d (0: side).
func withDeadline(side watchSide, d time.Duration) watchSide {
	if d == 0 {
		return side
	}
	return func(t *testing.T, ctx context.Context, c rest.Interface) watchOutcome {
		ctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		return side(t, ctx, c)
	}
}

// fastlw closes, once, the body of an answer Request.Watch refuses to
// stream, also when that answer comes to a retry after a connection
// failure (client-go leaves that body open).

// TestAWatchRetriedIntoAnAnswerRequestWatchCannotStreamClosesItsBody
// fails the first attempt with an EOF and answers the retry with an HTML
// page: fastlw gives client-go's error and closes the page's body once.
func TestAWatchRetriedIntoAnAnswerRequestWatchCannotStreamClosesItsBody(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		script := []scriptedAnswer{{err: io.EOF}, {contentType: "text/html", body: "<html/>"}}
		plain := runScript(t, script, plainSide, nil)
		fast := runScript(t, script, fastSide, nil)
		requireSameWatch(t, plain.out, fast.out)
		if len(fast.closes) != 1 || fast.closes[0] != 1 {
			t.Fatalf("fastlw closed the page's body %v times, want once (client-go: %v)", fast.closes, plain.closes)
		}
	})
}
