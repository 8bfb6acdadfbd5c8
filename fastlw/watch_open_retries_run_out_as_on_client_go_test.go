package fastlw_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kcache-go/cache/fastlw"
)

// openAttempts is how a watch's attempts are answered, by attempt (from
// 1): a connection failure, a 429 asking to retry after a second, or a
// stream of one event.
type openAttempts func(req *http.Request, n int) (*http.Response, error)

// failAtTheConnection fails every attempt with err.
func failAtTheConnection(err error) openAttempts {
	return func(*http.Request, int) (*http.Response, error) { return nil, err }
}

// tooManyRequests is a 429 answer asking to retry after a second.
func tooManyRequests(req *http.Request) *http.Response {
	answer := okAnswer(req, "application/json", strings.NewReader(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","code":429}`))
	answer.StatusCode, answer.Status = http.StatusTooManyRequests, "429 Too Many Requests"
	answer.Header.Set("Retry-After", "1")
	return answer
}

// openRun is what one side did opening a watch: its outcome, the requests
// sent, the rate limiter's waits and the (fake) time it took.
type openRun struct {
	out      watchOutcome
	requests int32
	waits    int32
	took     time.Duration
}

// openUnder opens a watch through the ListerWatcher lw makes of a client
// whose attempts are answered by attempts, under a context that ends
// after within (none when 0), and reads it to its end; it must run in a
// synctest bubble, whose fake clock times it.
func openUnder(t *testing.T, attempts openAttempts, within time.Duration, lw func(rest.Interface) watcher) openRun {
	transport := &cannedTransport{answer: attempts}
	limiter := &countingLimiter{}
	cs, err := kubernetes.NewForConfigAndClient(&rest.Config{Host: "http://canned.invalid", RateLimiter: limiter}, &http.Client{Transport: transport})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := t.Context(), context.CancelFunc(func() {})
	if within > 0 {
		ctx, cancel = context.WithTimeout(ctx, within)
	}
	defer cancel()
	start := time.Now()
	out := watchAllIn(ctx, lw(cs.CoreV1().RESTClient()), metav1.ListOptions{ResourceVersion: "100"})
	return openRun{out: out, requests: transport.requests.Load(), waits: limiter.waits.Load(), took: time.Since(start)}
}

// TestAWatchWhoseRetriesRunOutOrWhoseContextEndsInAPauseEndsAsOnClientGo
// opens, on client-go's watch and on fastlw's, watches whose attempts
// fail at the connection, also every one of them, or are answered 429,
// under contexts that end during a pause or not at all: both sides send
// the same attempts, wait on the rate limiter as often (never before the
// first attempt), pause as long (on synctest's fake clock), and end the
// same (events, an empty watch, or the same error); a watch that gets its
// stream after retries is decoded by fastlw.
func TestAWatchWhoseRetriesRunOutOrWhoseContextEndsInAPauseEndsAsOnClientGo(t *testing.T) {
	stream := func(req *http.Request) *http.Response {
		return okAnswer(req, "application/json", strings.NewReader(oneEventStream))
	}
	cases := []struct {
		name     string
		attempts openAttempts
		within   time.Duration
		want     openRun // client-go's requests, waits and time, as observed
		// wantErr and wantEvents are client-go's answer, as observed: its
		// error's text ("" for none), and how many events its watch gave.
		wantErr    string
		wantEvents int
	}{
		// Once the retries run out, an empty watch and no error.
		{"every attempt closes before the answer", failAtTheConnection(io.EOF), 0, openRun{requests: 11, waits: 10, took: 10 * time.Second}, "", 0},
		{"every attempt times out", failAtTheConnection(timeoutError{}), 0, openRun{requests: 11, waits: 10, took: 10 * time.Second}, "", 0},
		// NB: the pause ends with the context, and the next attempt is
		// still sent (the canned transport answers it without looking at
		// the context) before the context's error, wrapped, is returned.
		{"the context ends in the first pause", failAtTheConnection(io.EOF), 500 * time.Millisecond, openRun{requests: 2, waits: 1, took: 500 * time.Millisecond},
			"context deadline exceeded - error from a previous attempt: EOF", 0},
		{"EOF, 429, EOF, then the stream", func(req *http.Request, n int) (*http.Response, error) {
			switch n {
			case 1, 3:
				return nil, io.EOF
			case 2:
				return tooManyRequests(req), nil
			}
			return stream(req), nil
		}, 0, openRun{requests: 4, waits: 3, took: 3 * time.Second}, "", 1},
		{"nine failures, then the stream on the last attempt", func(req *http.Request, n int) (*http.Response, error) {
			if n <= 10 {
				return nil, io.EOF
			}
			return stream(req), nil
		}, 0, openRun{requests: 11, waits: 10, took: 10 * time.Second}, "", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				plain := openUnder(t, tc.attempts, tc.within, func(c rest.Interface) watcher { return clientGoPlain(c) })
				serializer := newObservedSerializer(nil)
				fast := openUnder(t, tc.attempts, tc.within, func(c rest.Interface) watcher {
					return fastlw.NewFromClient(c, "pods", "ns", fields.Everything(), serializer)
				})
				requireSameOpenRun(t, tc.want, plain, fast)
				if decoded := serializer.decodes.Load(); decoded != int64(len(plain.out.events)) {
					t.Errorf("fastlw decoded %d objects of a watch of %d events", decoded, len(plain.out.events))
				}
				gotErr := ""
				if plain.out.err != nil {
					gotErr = plain.out.err.Error()
				}
				if gotErr != tc.wantErr || len(plain.out.events) != tc.wantEvents {
					t.Errorf("client-go answered %q and %v, want error %q and %d events", gotErr, summary(plain.out.events), tc.wantErr, tc.wantEvents)
				}
			})
		})
	}
}

// requireSameOpenRun requires the same outcome of plain and fast, and
// want's requests, waits and time of each.
func requireSameOpenRun(t *testing.T, want, plain, fast openRun) {
	t.Helper()
	requireSameWatch(t, plain.out, fast.out)
	for _, side := range []struct {
		name string
		run  openRun
	}{{"client-go", plain}, {"fastlw", fast}} {
		if side.run.requests != want.requests || side.run.waits != want.waits || side.run.took != want.took {
			t.Errorf("%s: %d requests, %d waits, took %v; want %d, %d, %v", side.name,
				side.run.requests, side.run.waits, side.run.took, want.requests, want.waits, want.took)
		}
	}
}
