package fastlw_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	"github.com/kcache-go/cache/fastlw"
)

// timeoutError is a network error that timed out.
type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

// openFailure is how the first attempt to open a watch fails.
type openFailure struct {
	name string
	// first answers the first request; the later ones answer a stream of
	// one event.
	first func(req *http.Request) (*http.Response, error)
}

// oneEventStream is the stream the later attempts answer.
var oneEventStream = frame("ADDED", pod("a", "1", "")) + "\n"

// watchAfterFailure watches through lw over a client whose first request
// fails as failure says and whose later requests answer oneEventStream,
// and returns the outcome and the number of requests.
func watchAfterFailure(t *testing.T, failure openFailure, lw func(rest.Interface) watchOutcome) (watchOutcome, int32) {
	transport := &cannedTransport{answer: func(req *http.Request, n int) (*http.Response, error) {
		if n == 1 {
			return failure.first(req)
		}
		return okAnswer(req, "application/json", strings.NewReader(oneEventStream)), nil
	}}
	out := lw(cannedClient(t, transport))
	return out, transport.requests.Load()
}

// watcher is what watchAllIn watches through.
type watcher interface {
	WatchWithContext(context.Context, metav1.ListOptions) (watch.Interface, error)
}

// watchAllIn is watchAll under ctx.
func watchAllIn(ctx context.Context, lw watcher, options metav1.ListOptions) watchOutcome {
	w, err := lw.WatchWithContext(ctx, options)
	if err != nil {
		return watchOutcome{err: err}
	}
	defer w.Stop()
	var out watchOutcome
	for event := range w.ResultChan() {
		out.events = append(out.events, event)
	}
	return out
}

// TestAWatchWhoseConnectionDropsBeforeTheAnswerIsRetriedAsOnClientGo
// fails the first attempt to open a watch at the connection (an EOF, a
// timeout, a reset: what Request.Watch treats as retryable) or with a
// 429 asking to retry, and answers the next: client-go's Watch retries and
// gives the event; fastlw must send the same requests and give the same
// watch, whose stream it decodes itself (the retry stays on the fast
// path).
func TestAWatchWhoseConnectionDropsBeforeTheAnswerIsRetriedAsOnClientGo(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	failures := []openFailure{
		{"the connection closes before the answer", func(*http.Request) (*http.Response, error) { return nil, io.EOF }},
		{"the connection times out", func(*http.Request) (*http.Response, error) { return nil, timeoutError{} }},
		{"the connection is reset", func(*http.Request) (*http.Response, error) {
			return nil, fmt.Errorf("read tcp 127.0.0.1:1: connection reset by peer")
		}},
		{"a 429 with Retry-After", func(req *http.Request) (*http.Response, error) {
			answer := okAnswer(req, "application/json", strings.NewReader(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","code":429}`))
			answer.StatusCode, answer.Status = http.StatusTooManyRequests, "429 Too Many Requests"
			answer.Header.Set("Retry-After", "1")
			return answer, nil
		}},
	}
	options := metav1.ListOptions{ResourceVersion: "100"}
	for _, failure := range failures {
		t.Run(failure.name, func(t *testing.T) {
			plain, plainRequests := watchAfterFailure(t, failure, func(c rest.Interface) watchOutcome { return watchAll(t, clientGoPlain(c), options) })
			serializer := newObservedSerializer(nil)
			fast, fastRequests := watchAfterFailure(t, failure, func(c rest.Interface) watchOutcome {
				return watchAll(t, fastlw.NewFromClient(c, "pods", "ns", fields.Everything(), serializer), options)
			})
			if plainRequests != fastRequests {
				t.Errorf("client-go sent %d requests, fastlw %d", plainRequests, fastRequests)
			}
			requireSameWatch(t, plain, fast)
			if len(plain.events) != 1 {
				t.Fatalf("client-go gave %v, want the event of the second attempt", summary(plain.events))
			}
			if serializer.decodes.Load() != 1 {
				t.Errorf("fastlw decoded %d objects of the retried watch, want its 1: the retry left the fast path", serializer.decodes.Load())
			}
		})
	}
}

// TestAWatchWhoseContextDeadlinePassedFailsAsOnClientGo opens a watch
// under a context whose deadline passed before the request: client-go's
// Watch returns the context's error, not an empty watch.
func TestAWatchWhoseContextDeadlinePassedFailsAsOnClientGo(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	plain := requireSameWatchUnderDeadline(t, -time.Second)
	if plain.err == nil {
		t.Fatalf("client-go gave no error but %v", summary(plain.events))
	}
}

// requireSameWatchUnderDeadline watches, through client-go's ListWatch
// and through fastlw, under a context whose deadline is delay away, a
// server that never answers, and requires the same outcome and request
// count; it returns client-go's outcome.
func requireSameWatchUnderDeadline(t *testing.T, delay time.Duration) watchOutcome {
	t.Helper()
	options := metav1.ListOptions{ResourceVersion: "100"}
	hang := openFailure{"the server does not answer", func(req *http.Request) (*http.Response, error) {
		<-req.Context().Done()
		return nil, req.Context().Err()
	}}
	under := func(lw func(rest.Interface) watcher) func(rest.Interface) watchOutcome {
		return func(c rest.Interface) watchOutcome {
			ctx, cancel := context.WithTimeout(t.Context(), delay)
			defer cancel()
			return watchAllIn(ctx, lw(c), options)
		}
	}
	plain, plainRequests := watchAfterFailure(t, hang, under(func(c rest.Interface) watcher { return clientGoPlain(c) }))
	fast, fastRequests := watchAfterFailure(t, hang, under(func(c rest.Interface) watcher {
		return fastlw.NewFromClient(c, "pods", "ns", fields.Everything(), nil)
	}))
	if plainRequests != fastRequests {
		t.Errorf("client-go sent %d requests, fastlw %d", plainRequests, fastRequests)
	}
	requireSameWatch(t, plain, fast)
	return plain
}
