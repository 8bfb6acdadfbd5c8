package fastlw_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	cache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/fastlw"
)

// selectorTransport answers each watch by its label selector "answer=<kind>-<i>":
// every watch has its own answers, counted per selector, and the events
// it streams carry the selector in the pod's name. Safe for concurrent use.
type selectorTransport struct {
	mu   sync.Mutex
	seen map[string]int // requests per selector
}

// watchKinds are the kinds of answer a selector asks for: a 200 stream, a
// 201, an HTML page, a 410, a 429 then the stream, an EOF then the stream,
// a redirect to the stream, and a 503 then a redirect to a 201.
var watchKinds = []string{"stream", "created", "html", "gone", "throttled", "dropped", "moved", "unavailable"}

// RoundTrip answers req as its selector and its count say.
func (s *selectorTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	selector := strings.TrimPrefix(req.URL.Query().Get("labelSelector"), "answer=")
	s.mu.Lock()
	s.seen[selector]++
	n := s.seen[selector]
	s.mu.Unlock()
	kind, _, _ := strings.Cut(selector, "-")
	stream := func() (*http.Response, error) {
		body := frame("ADDED", pod(selector, "1", "")) + frame("MODIFIED", pod(selector, "2", ""))
		return okAnswer(req, "application/json", strings.NewReader(body)), nil
	}
	answer := func(code int, contentType, body string, header ...string) (*http.Response, error) {
		resp := okAnswer(req, contentType, strings.NewReader(body))
		resp.StatusCode, resp.Status = code, http.StatusText(code)
		for i := 0; i+1 < len(header); i += 2 {
			resp.Header.Set(header[i], header[i+1])
		}
		return resp, nil
	}
	redirected := req.URL.Query().Get("redirected") == "true"
	switch {
	case kind == "created", kind == "unavailable" && redirected:
		return answer(http.StatusCreated, "application/json", oneEventStream)
	case kind == "html":
		return answer(http.StatusOK, "text/html", "<html>"+selector+"</html>")
	case kind == "gone":
		return answer(http.StatusGone, "application/json", goneStatus)
	case kind == "throttled" && n == 1:
		return answer(http.StatusTooManyRequests, "application/json", "{}", "Retry-After", "1")
	case kind == "unavailable" && n == 1:
		return answer(http.StatusServiceUnavailable, "application/json", "{}", "Retry-After", "1")
	case kind == "dropped" && n == 1:
		return nil, io.EOF
	case (kind == "moved" || kind == "unavailable") && !redirected:
		return answer(http.StatusTemporaryRedirect, "text/plain", "", "Location", req.URL.String()+"&redirected=true")
	}
	return stream()
}

// TestConcurrentWatchesOfOneListerWatcherEachGetTheirOwnAnswer opens, at
// once through one fastlw ListerWatcher, watches whose answers differ (a
// stream, a 201, an HTML page, a 410, retries after a 429, a 503 or an
// EOF, redirects), several of each kind: every watch gives what
// client-go's watch gives for its own answers, alone, and as many
// requests. Run under -race it also proves the per-watch recorders share
// nothing unguarded; under synctest the pauses take no time.
func TestConcurrentWatchesOfOneListerWatcherEachGetTheirOwnAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const each = 4
		var selectors []string
		for _, kind := range watchKinds {
			for i := range each {
				selectors = append(selectors, fmt.Sprintf("%s-%d", kind, i))
			}
		}
		watchOf := func(lw cache.ListerWatcherWithContext, selector string) watchOutcome {
			return watchAllIn(t.Context(), lw, metav1.ListOptions{ResourceVersion: "100", LabelSelector: "answer=" + selector})
		}
		plainTransport := &selectorTransport{seen: map[string]int{}}
		plain := clientGoPlain(cannedClient(t, plainTransport))
		want := map[string]watchOutcome{}
		for _, selector := range selectors {
			want[selector] = watchOf(plain, selector)
		}
		fastTransport := &selectorTransport{seen: map[string]int{}}
		fast := fastlw.NewFromClient(cannedClient(t, fastTransport), "pods", "ns", fields.Everything(), nil)
		got := make([]watchOutcome, len(selectors))
		var wg sync.WaitGroup
		for i, selector := range selectors {
			wg.Go(func() { got[i] = watchOf(fast, selector) })
		}
		wg.Wait()
		for i, selector := range selectors {
			if (len(want[selector].events) == 2) == (want[selector].err != nil) {
				t.Fatalf("%s: client-go gave %v, %v; want the two events or an error", selector, summary(want[selector].events), want[selector].err)
			}
			requireSameWatch(t, want[selector], got[i])
			if plainTransport.seen[selector] != fastTransport.seen[selector] {
				t.Fatalf("%s: client-go sent %d requests, fastlw %d", selector, plainTransport.seen[selector], fastTransport.seen[selector])
			}
		}
	})
}
