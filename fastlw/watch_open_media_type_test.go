//go:build review

package fastlw_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	"github.com/kcache-go/cache/fastlw"
)

// These tests fail on main (build tag review): fastlw picks a watch
// stream's format from its first byte, not from the response's
// Content-Type as client-go's Request.Watch does, and relays a second,
// plain watch when the byte names no format it streams.

// watchOnce serves every request with contentType (none when empty: the
// server sniffs one) and body, and returns what a watch through lw gave
// and how many requests the server saw.
func watchOnce(t *testing.T, contentType, body string, lw func(rest.Interface) watchOutcome) (watchOutcome, int32) {
	return watchOnceWithCode(t, http.StatusOK, contentType, body, lw)
}

// watchOnceWithCode is watchOnce answering with code.
func watchOnceWithCode(t *testing.T, code int, contentType, body string, lw func(rest.Interface) watchOutcome) (watchOutcome, int32) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.WriteHeader(code)
		w.Write([]byte(body))
	}))
	defer srv.Close()
	defer srv.CloseClientConnections()
	out := lw(coreClientOf(t, srv))
	return out, requests.Load()
}

// TestAWatchAnsweredInAMediaTypeTheClientCannotStreamFailsToOpenAsOnClientGo:
// a 200 answer the client has no stream serializer for (a proxy's HTML
// page, YAML) makes client-go's Watch return the NegotiateError; fastlw
// must return the same error, after one request, not an ERROR event.
func TestAWatchAnsweredInAMediaTypeTheClientCannotStreamFailsToOpenAsOnClientGo(t *testing.T) {
	options := metav1.ListOptions{ResourceVersion: "100"}
	event := `{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"5"}}}` + "\n"
	for _, tt := range []struct{ contentType, body string }{
		{"text/html", "<html>sign in</html>\n"},
		{"application/yaml", "<html>sign in</html>\n"},
		{"", event}, // no Content-Type: the server sniffs text/plain
	} {
		t.Run("Content-Type "+tt.contentType, func(t *testing.T) {
			contentType, body := tt.contentType, tt.body
			plain, plainRequests := watchOnce(t, contentType, body, func(c rest.Interface) watchOutcome { return watchAll(t, clientGoPlain(c), options) })
			fast, fastRequests := watchOnce(t, contentType, body, func(c rest.Interface) watchOutcome {
				return watchAll(t, fastlw.NewFromClient(c, "pods", "ns", fields.Everything(), nil), options)
			})
			if plainRequests != fastRequests {
				t.Errorf("client-go sent %d requests, fastlw %d", plainRequests, fastRequests)
			}
			requireSameWatch(t, plain, fast)
		})
	}
}

// TestAWatchIsRequestedOnceAsOnClientGo: a JSON answer whose first byte
// is no JSON, and a protobuf stream whose first frame is over 16 MiB (its
// length prefix starts with a non-zero byte), are one request for
// client-go; fastlw opens the watch a second time.
func TestAWatchIsRequestedOnceAsOnClientGo(t *testing.T) {
	options := metav1.ListOptions{ResourceVersion: "100"}
	t.Run("a JSON answer starting with <", func(t *testing.T) {
		_, plain := watchOnce(t, "application/json", "<html/>\n", func(c rest.Interface) watchOutcome { return watchAll(t, clientGoPlain(c), options) })
		_, fast := watchOnce(t, "application/json", "<html/>\n", func(c rest.Interface) watchOutcome {
			return watchAll(t, fastlw.NewFromClient(c, "pods", "ns", fields.Everything(), nil), options)
		})
		if plain != fast {
			t.Errorf("client-go sent %d requests, fastlw %d", plain, fast)
		}
	})
	t.Run("a protobuf first frame over 16 MiB", func(t *testing.T) {
		sc := scenario{watchSteps: []watchStep{scriptEvent(watch.Added, bigPod("a", "101", 17<<20))}}
		count := func(lw func(rest.Interface) watchOutcome) int {
			env := startEnv(sc)
			defer env.close()
			lw(env.client(t, "protobuf"))
			return len(env.server.requestLog())
		}
		plain := count(func(c rest.Interface) watchOutcome { return watchAll(t, clientGoPlain(c), options) })
		fast := count(func(c rest.Interface) watchOutcome {
			return watchAll(t, fastlw.NewFromClient(c, "pods", "ns", fields.Everything(), nil), options)
		})
		if plain != fast {
			t.Errorf("client-go sent %d requests, fastlw %d", plain, fast)
		}
	})
}

// TestAWatchAnsweredWith204FailsToOpenAsOnClientGo: client-go's Watch
// accepts only 200 OK; fastlw's Request.Stream takes any 2xx, so a 204
// became an empty, error-free watch.
func TestAWatchAnsweredWith204FailsToOpenAsOnClientGo(t *testing.T) {
	options := metav1.ListOptions{ResourceVersion: "100"}
	plain, _ := watchOnceWithCode(t, http.StatusNoContent, "application/json", "", func(c rest.Interface) watchOutcome {
		return watchAll(t, clientGoPlain(c), options)
	})
	fast, _ := watchOnceWithCode(t, http.StatusNoContent, "application/json", "", func(c rest.Interface) watchOutcome {
		return watchAll(t, fastlw.NewFromClient(c, "pods", "ns", fields.Everything(), nil), options)
	})
	if (plain.err == nil) != (fast.err == nil) || len(plain.events) != len(fast.events) {
		t.Fatalf("client-go: err %v, %d events; fastlw: err %v, %d events", plain.err, len(plain.events), fast.err, len(fast.events))
	}
}
