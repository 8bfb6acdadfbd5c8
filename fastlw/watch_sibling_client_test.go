package fastlw_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	cache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/fastlw"
)

// seenRequest is what the caller's transport saw of one request.
type seenRequest struct {
	method, url string
	header      http.Header
}

// streamingTransport answers every request with a 200 JSON watch stream of
// body and records what it was sent. Safe for concurrent use.
type streamingTransport struct {
	body []byte
	mu   sync.Mutex
	seen []seenRequest
}

// RoundTrip records req and answers it.
func (s *streamingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	s.mu.Lock()
	s.seen = append(s.seen, seenRequest{req.Method, req.URL.String(), req.Header.Clone()})
	s.mu.Unlock()
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"application/json;stream=watch"}},
		Body:    io.NopCloser(bytes.NewReader(s.body)),
		Request: req,
	}, nil
}

// requests returns the requests seen so far and forgets them.
func (s *streamingTransport) requests() []seenRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := s.seen
	s.seen = nil
	return seen
}

// TestAWatchIsTheCallersRequestThroughItsOwnTransport builds a clientset
// as client-go's own constructor does (authentication, user agent and a
// path prefix wrapped around the caller's transport): fastlw's watch, sent
// through the sibling of the client, reaches the caller's transport with
// exactly client-go's request (method, URL, every header) and gives the
// same events.
func TestAWatchIsTheCallersRequestThroughItsOwnTransport(t *testing.T) {
	transport := &streamingTransport{body: watchStream(runtime.ContentTypeJSON, threeEvents()...)}
	cs, err := kubernetes.NewForConfig(&rest.Config{
		Host: "http://kcache.invalid/prefix", BearerToken: "secret", UserAgent: "kcache-test/1",
		QPS: -1, Transport: transport,
	})
	if err != nil {
		t.Fatal(err)
	}
	client := cs.CoreV1().RESTClient()
	options := metav1.ListOptions{ResourceVersion: "100", LabelSelector: "a=b"}
	plain := watchAll(t, clientGoPlain(client), options)
	plainSent := transport.requests()
	serializer := newObservedSerializer(nil)
	fast := watchAll(t, fastlw.NewFromClient(client, "pods", "ns", fields.Everything(), serializer), options)
	fastSent := transport.requests()
	requireSameWatch(t, plain, fast)
	if len(plainSent) != 1 || !reflect.DeepEqual(plainSent, fastSent) {
		t.Fatalf("requests differ:\nclient-go %+v\nfastlw    %+v", plainSent, fastSent)
	}
	if plainSent[0].header.Get("Authorization") != "Bearer secret" {
		t.Fatalf("the request has no authentication: %v", plainSent[0].header)
	}
	if serializer.decodes.Load() == 0 {
		t.Fatal("fastlw did not decode the stream itself")
	}
}

// countingLimiter is a rate limiter that never waits and counts its Waits.
type countingLimiter struct{ waits atomic.Int32 }

func (l *countingLimiter) TryAccept() bool              { return true }
func (l *countingLimiter) Accept()                      {}
func (l *countingLimiter) Stop()                        {}
func (l *countingLimiter) QPS() float32                 { return 1 }
func (l *countingLimiter) Wait(_ context.Context) error { l.waits.Add(1); return nil }

// TestAWatchOpensWithoutTheRateLimiterAndRetriesWithItAsOnClientGo counts
// the client's rate limiter's Waits: client-go's Request.Watch does not
// wait on it before a watch's first attempt, but does before a retry (a
// 429 with Retry-After), and a list waits once; fastlw waits exactly as
// often (Request.Stream would wait before the first attempt too).
func TestAWatchOpensWithoutTheRateLimiterAndRetriesWithItAsOnClientGo(t *testing.T) {
	stream := watchStream(runtime.ContentTypeJSON, threeEvents()...)
	tests := []struct {
		name      string
		tooMany   int // requests answered 429 Retry-After: 0 first
		watch     bool
		wantWaits int32
	}{
		{name: "a watch answered at once", watch: true, wantWaits: 0},
		{name: "a watch answered after one 429", tooMany: 1, watch: true, wantWaits: 1},
		{name: "a list", wantWaits: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var requests atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if int(requests.Add(1)) <= tt.tooMany {
					w.Header().Set("Retry-After", "0")
					w.WriteHeader(http.StatusTooManyRequests)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				if r.URL.Query().Get("watch") == "true" {
					w.Write(stream)
					return
				}
				w.Write(encode(runtime.ContentTypeJSON, &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "100"}, Items: newPods(2)}))
			}))
			defer srv.Close()
			defer srv.CloseClientConnections()
			waits := func(lw func(rest.Interface) cache.ListerWatcherWithContext) int32 {
				requests.Store(0)
				limiter := &countingLimiter{}
				listOrWatch(t, lw(coreClientOf(t, srv, func(c *rest.Config) { c.RateLimiter = limiter })), tt.watch)
				return limiter.waits.Load()
			}
			plain := waits(func(c rest.Interface) cache.ListerWatcherWithContext { return clientGoPlain(c) })
			fast := waits(func(c rest.Interface) cache.ListerWatcherWithContext {
				return fastlw.NewFromClient(c, "pods", "ns", fields.Everything(), nil)
			})
			if plain != tt.wantWaits || fast != tt.wantWaits {
				t.Fatalf("rate limiter waits: client-go %d, fastlw %d, want %d", plain, fast, tt.wantWaits)
			}
		})
	}
}

// listOrWatch lists once through lw, or watches once and reads the watch
// to its end.
func listOrWatch(t *testing.T, lw cache.ListerWatcherWithContext, watching bool) {
	if watching {
		watchAll(t, lw, metav1.ListOptions{ResourceVersion: "100"})
		return
	}
	if _, err := lw.ListWithContext(t.Context(), metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
}

// countingWarnings is a warning handler that counts the warnings it is
// given.
type countingWarnings struct{ n atomic.Int32 }

func (c *countingWarnings) HandleWarningHeaderWithContext(context.Context, int, string, string) {
	c.n.Add(1)
}

// TestAWatchAnswersWarningsAreReportedAsOnClientGo sends each answer with
// a Warning header to client-go's watch and to fastlw's, each through a
// client with its own warning handler: the handler is called as often on
// both (client-go reports the warnings of a watch answer only once it
// negotiated a decoder for it, so never those of an HTML page).
func TestAWatchAnswersWarningsAreReportedAsOnClientGo(t *testing.T) {
	stream := watchStream(runtime.ContentTypeJSON, threeEvents()...)
	tests := []struct {
		name      string
		answer    answer
		wantCalls int32
	}{
		{"a JSON stream", answer{contentType: "application/json", body: stream}, 1},
		{"no Content-Type at all", answer{noType: true, body: stream}, 1},
		{"an HTML page", answer{contentType: "text/html", body: []byte("<html/>")}, 0},
		{"204 No Content", answer{code: http.StatusNoContent, contentType: "application/json"}, -1},
		{"410 Gone", answer{code: http.StatusGone, contentType: "application/json",
			body: encode(runtime.ContentTypeJSON, &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusGone, Reason: metav1.StatusReasonGone})}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := tt.answer
			a.warning = "deprecated"
			srv, _ := answerServer(t, a)
			calls := func(lw func(rest.Interface) cache.ListerWatcherWithContext) int32 {
				warnings := &countingWarnings{}
				client := coreClientOf(t, srv, func(c *rest.Config) { c.WarningHandlerWithContext = warnings })
				watchAll(t, lw(client), metav1.ListOptions{ResourceVersion: "100"})
				return warnings.n.Load()
			}
			plain := calls(func(c rest.Interface) cache.ListerWatcherWithContext { return clientGoPlain(c) })
			fast := calls(func(c rest.Interface) cache.ListerWatcherWithContext {
				return fastlw.NewFromClient(c, "pods", "ns", fields.Everything(), nil)
			})
			if plain != fast || (tt.wantCalls >= 0 && plain != tt.wantCalls) {
				t.Fatalf("warning handler calls: client-go %d, fastlw %d, want %d (-1: as client-go)", plain, fast, tt.wantCalls)
			}
		})
	}
}

// otherClient is a rest.Interface that is not a *rest.RESTClient.
type otherClient struct{ rest.Interface }

// TestAWatchWhoseAnswerCannotBeSeenIsThePlainPath: with a client that is
// not a *rest.RESTClient, or with client-go's ClientsAllowCBOR gate on,
// fastlw cannot see a watch answer's Content-Type; the watch is then
// Request.Watch's (fastlw's serializer decodes nothing) and gives
// client-go's events.
func TestAWatchWhoseAnswerCannotBeSeenIsThePlainPath(t *testing.T) {
	tests := []struct {
		name      string
		allowCBOR bool
		client    func(rest.Interface) rest.Interface
	}{
		{name: "a client that is no *rest.RESTClient", client: func(c rest.Interface) rest.Interface { return otherClient{c} }},
		{name: "ClientsAllowCBOR on", allowCBOR: true, client: func(c rest.Interface) rest.Interface { return c }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.ClientsAllowCBOR, tt.allowCBOR)
			env := startEnv(scenario{watchSteps: changes()})
			defer env.close()
			client := env.client(t, "json")
			options := metav1.ListOptions{ResourceVersion: "100"}
			plain := watchAll(t, clientGoPlain(client), options)
			serializer := newObservedSerializer(nil)
			fast := watchAll(t, fastlw.NewFromClient(tt.client(client), "pods", "ns", fields.Everything(), serializer), options)
			requireSameWatch(t, plain, fast)
			if len(plain.events) == 0 || serializer.decodes.Load() != 0 {
				t.Fatalf("%d events; fastlw decoded %d times, want the plain path's events and no decode of its own", len(plain.events), serializer.decodes.Load())
			}
		})
	}
}
