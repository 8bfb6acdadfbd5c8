package fastlw_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	restwatch "k8s.io/client-go/rest/watch"

	"github.com/kcache-go/cache/fastlw"
)

// answer is how a test server answers every request.
type answer struct {
	code int // 0 is 200
	// contentType is the Content-Type header; "" sets none, so the
	// server sniffs one (text/plain for these bodies), unless noType.
	contentType string
	// noType sends no Content-Type header at all.
	noType bool
	// warning, when set, is sent as a Warning header.
	warning string
	body    []byte
}

// answerServer starts a server that answers every request with a and
// counts the requests; it closes with the test.
func answerServer(t *testing.T, a answer) (*httptest.Server, *atomic.Int32) {
	requests := new(atomic.Int32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		switch {
		case a.noType:
			w.Header()["Content-Type"] = nil
		case a.contentType != "":
			w.Header().Set("Content-Type", a.contentType)
		}
		if a.warning != "" {
			w.Header().Set("Warning", `299 - "`+a.warning+`"`)
		}
		w.WriteHeader(max(a.code, http.StatusOK))
		w.Write(a.body)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(srv.CloseClientConnections)
	return srv, requests
}

// coreClientOf returns a typed clientset's core/v1 REST client of srv
// (JSON), on its own transport, whose idle connections close when the test
// ends; configure, when not nil, adjusts the configuration first.
func coreClientOf(t *testing.T, srv *httptest.Server, configure ...func(*rest.Config)) rest.Interface {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	cfg := &rest.Config{Host: srv.URL, QPS: -1}
	for _, c := range configure {
		c(cfg)
	}
	cs, err := kubernetes.NewForConfigAndClient(cfg, &http.Client{Transport: tr})
	if err != nil {
		t.Fatal(err)
	}
	return cs.CoreV1().RESTClient()
}

// watchOnce serves every request with contentType (none when empty: the
// server sniffs one) and body, and returns what a watch through lw gave
// and how many requests the server saw.
func watchOnce(t *testing.T, contentType, body string, lw func(rest.Interface) watchOutcome) (watchOutcome, int32) {
	return watchOnceWithCode(t, http.StatusOK, contentType, body, lw)
}

// watchOnceWithCode is watchOnce answering with code.
func watchOnceWithCode(t *testing.T, code int, contentType, body string, lw func(rest.Interface) watchOutcome) (watchOutcome, int32) {
	srv, requests := answerServer(t, answer{code: code, contentType: contentType, body: []byte(body)})
	out := lw(coreClientOf(t, srv))
	return out, requests.Load()
}

// watchStream returns a watch stream of events framed and encoded in
// mediaType, as an apiserver writes it.
func watchStream(mediaType string, events ...watch.Event) []byte {
	var out bytes.Buffer
	info := serializerInfo(mediaType)
	frames := info.StreamSerializer.NewFrameWriter(&out)
	encoder := restwatch.NewEncoder(streaming.NewEncoder(frames, info.StreamSerializer.Serializer), encoder(mediaType))
	for _, event := range events {
		if err := encoder.Encode(&watch.Event{Type: event.Type, Object: event.Object.DeepCopyObject()}); err != nil {
			panic(err)
		}
	}
	return out.Bytes()
}

// threeEvents are the events of the streams the answers carry.
func threeEvents() []watch.Event {
	return []watch.Event{
		{Type: watch.Added, Object: podAt("a", "101")},
		{Type: watch.Modified, Object: podAt("a", "102")},
		{Type: watch.Deleted, Object: podAt("a", "103")},
	}
}

// TestAWatchAnswerIsReadByItsContentTypeAsOnClientGo answers one watch
// request, on one server, to client-go's watch and to fastlw's, with each
// status, Content-Type and body pair: the outcomes (events, or the error
// opening the watch, its request URL included) are the same, each side
// sends one request, and fastlw decodes the stream itself when it is a 200
// in a media type its serializer streams (parameters ignored; the rows
// whose stream fails before its first object show it by the error only);
// any other answer is handed to Request.Watch as received.
func TestAWatchAnswerIsReadByItsContentTypeAsOnClientGo(t *testing.T) {
	jsonEvents := watchStream(runtime.ContentTypeJSON, threeEvents()...)
	protobufEvents := watchStream(runtime.ContentTypeProtobuf, threeEvents()...)
	const (
		itself   = iota // fastlw decodes the stream's objects itself
		handed          // Request.Watch reads the answer (fastlw decodes nothing)
		noObject        // the stream fails before any object: no decode on either path
	)
	html := []byte("<html>sign in</html>\n")
	tests := []struct {
		name    string
		answer  answer
		decoder int
	}{
		{"JSON", answer{contentType: "application/json", body: jsonEvents}, itself},
		{"JSON with a charset", answer{contentType: "application/json;charset=utf-8", body: jsonEvents}, itself},
		{"JSON with stream=watch", answer{contentType: "application/json;stream=watch", body: jsonEvents}, itself},
		{"protobuf to a JSON client", answer{contentType: "application/vnd.kubernetes.protobuf;stream=watch", body: protobufEvents}, itself},
		{"JSON named protobuf", answer{contentType: "application/vnd.kubernetes.protobuf;stream=watch", body: jsonEvents}, noObject},
		{"an HTML page named JSON", answer{contentType: "application/json", body: html}, noObject},
		{"no Content-Type at all", answer{noType: true, body: jsonEvents}, handed},
		{"a Content-Type that does not parse", answer{contentType: "json", body: jsonEvents}, handed},
		{"sniffed text/plain", answer{body: jsonEvents}, handed},
		{"an HTML page", answer{contentType: "text/html", body: html}, handed},
		{"YAML (no stream serializer)", answer{contentType: "application/yaml", body: []byte("type: ADDED\n")}, handed},
		{"201 Created", answer{code: http.StatusCreated, contentType: "application/json", body: jsonEvents}, handed},
		{"204 No Content", answer{code: http.StatusNoContent, contentType: "application/json"}, handed},
	}
	options := metav1.ListOptions{ResourceVersion: "100"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, requests := answerServer(t, tt.answer)
			client := coreClientOf(t, srv)
			plain := watchAll(t, clientGoPlain(client), options)
			plainRequests := requests.Swap(0)
			serializer := newObservedSerializer(nil)
			fast := watchAll(t, fastlw.NewFromClient(client, "pods", "ns", fields.Everything(), serializer), options)
			requireSameWatch(t, plain, fast)
			if plainRequests != 1 || requests.Load() != 1 {
				t.Errorf("client-go sent %d requests, fastlw %d; want 1 each", plainRequests, requests.Load())
			}
			if decoded := serializer.decodes.Load() > 0; decoded != (tt.decoder == itself) {
				t.Errorf("fastlw decoded objects itself: %v, want %v", decoded, tt.decoder == itself)
			}
		})
	}
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
// client-go, and for fastlw.
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
// accepts only 200 OK (Request.Stream would take any 2xx).
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
