package fastlw_test

import (
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/rest"

	"github.com/kcache-go/cache/fastlw"
)

// bodyCountingCloses is a response body that counts its Closes.
type bodyCountingCloses struct {
	io.Reader
	closes *atomic.Int32
}

// Close counts.
func (b bodyCountingCloses) Close() error {
	b.closes.Add(1)
	return nil
}

// TestAWatchAnswerRequestWatchRefusesHasItsBodyClosedOnce answers a watch
// with what Request.Watch refuses to open (an HTML page; a 429, then an
// HTML page): fastlw fails as client-go does and closes every body once,
// where client-go leaves the refused page's body open.
func TestAWatchAnswerRequestWatchRefusesHasItsBodyClosedOnce(t *testing.T) {
	html := func(req *http.Request, closes *atomic.Int32) *http.Response {
		answer := okAnswer(req, "text/html", nil)
		answer.Body = bodyCountingCloses{Reader: strings.NewReader("<html/>"), closes: closes}
		return answer
	}
	cases := []struct {
		name     string
		tooMany  int // 429s before the page
		wantOpen int32
	}{
		{"an HTML page", 0, 1},
		{"a 429, then an HTML page", 1, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run := func(lw func(rest.Interface) watcher) (watchOutcome, int32, int32) {
				var closes atomic.Int32
				transport := &cannedTransport{answer: func(req *http.Request, n int) (*http.Response, error) {
					if n <= tc.tooMany {
						answer := tooManyRequests(req)
						answer.Body = bodyCountingCloses{Reader: strings.NewReader(""), closes: &closes}
						answer.Header.Set("Retry-After", "0")
						return answer, nil
					}
					return html(req, &closes), nil
				}}
				out := watchAllIn(t.Context(), lw(cannedClient(t, transport)), metav1.ListOptions{ResourceVersion: "100"})
				return out, transport.requests.Load(), closes.Load()
			}
			plain, plainRequests, plainCloses := run(func(c rest.Interface) watcher { return clientGoPlain(c) })
			fast, fastRequests, fastCloses := run(func(c rest.Interface) watcher {
				return fastlw.NewFromClient(c, "pods", "ns", fields.Everything(), nil)
			})
			requireSameWatch(t, plain, fast)
			if plain.err == nil || plainRequests != fastRequests {
				t.Fatalf("client-go: %v after %d requests; fastlw %d requests", plain.err, plainRequests, fastRequests)
			}
			if fastCloses != fastRequests || plainRequests-plainCloses != tc.wantOpen {
				t.Errorf("fastlw closed %d of %d bodies, want all once; client-go left %d open, want %d",
					fastCloses, fastRequests, plainRequests-plainCloses, tc.wantOpen)
			}
		})
	}
}
