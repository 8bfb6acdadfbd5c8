package fastlw_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	restwatch "k8s.io/client-go/rest/watch"
)

// The fake apiserver serves the pods of one namespace as JSON or protobuf,
// as the request's Accept header asks: paged lists with continue tokens,
// watches and WatchLists from a script, and the failures the tests need.
// It is built from the scenario and immutable afterwards but for the
// request log.

// watchEnd says how the fake server ends a watch after its script.
type watchEnd int

const (
	endClose watchEnd = iota // finish the response cleanly (the stream ends)
	endCut                   // drop the connection mid-stream (unexpected EOF)
	endHang                  // keep the stream open until the client goes
)

// watchStep is one frame of a watch script: an event to encode, or raw
// frame bytes per media type (for undecodable frames).
type watchStep struct {
	event *watch.Event
	raw   map[string][]byte
}

// scenario configures a fake apiserver.
type scenario struct {
	pods         []corev1.Pod
	rv           string      // the list's resource version
	watchSteps   []watchStep // the frames of every watch, after any initial events
	watchEnd     watchEnd
	expireTokens bool // continue tokens it hands out are expired when used
	cutList      bool // list bodies stop halfway and the connection drops
	tableList    bool // lists asked for as Table answer a Table (else 406)
	// onContinue, when set, is called as a request with a continue token
	// arrives, before it is answered.
	onContinue func(token string)
	// onWatch, when set, is called as a watch request arrives, before it
	// is answered.
	onWatch func()
}

// fakeAPIServer is a running fake apiserver.
type fakeAPIServer struct {
	scenario
	srv *httptest.Server

	mu       sync.Mutex
	requests []url.Values // the query of every request; guarded by mu
}

// testEnv is a fake apiserver and the HTTP transports of its clients.
type testEnv struct {
	server     *fakeAPIServer
	transports []*http.Transport
}

// startEnv starts a fake apiserver for sc; close it with env.close.
func startEnv(sc scenario) *testEnv {
	f := &fakeAPIServer{scenario: sc}
	if f.rv == "" {
		f.rv = "100"
	}
	f.srv = httptest.NewServer(f)
	return &testEnv{server: f}
}

// close drops the clients' connections and stops the server.
func (e *testEnv) close() {
	for _, tr := range e.transports {
		tr.CloseIdleConnections()
	}
	e.server.srv.CloseClientConnections()
	e.server.srv.Close()
}

// client returns a typed clientset's core/v1 REST client negotiating
// format: "json", "protobuf" (JSON as the second choice) or "table".
func (e *testEnv) client(t testing.TB, format string) rest.Interface {
	cfg := &rest.Config{Host: e.server.srv.URL, QPS: -1}
	switch format {
	case "protobuf":
		cfg.ContentType = runtime.ContentTypeProtobuf
		cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	case "table":
		cfg.AcceptContentTypes = "application/json;as=Table;v=v1;g=meta.k8s.io"
	}
	tr := &http.Transport{}
	e.transports = append(e.transports, tr)
	cs, err := kubernetes.NewForConfigAndClient(cfg, &http.Client{Transport: tr})
	if err != nil {
		t.Fatalf("clientset: %v", err)
	}
	return cs.CoreV1().RESTClient()
}

// requestLog returns the queries received so far.
func (f *fakeAPIServer) requestLog() []url.Values {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]url.Values(nil), f.requests...)
}

// ServeHTTP answers GETs of /api/v1/namespaces/ns/pods.
func (f *fakeAPIServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f.mu.Lock()
	f.requests = append(f.requests, q)
	f.mu.Unlock()
	if r.Method != http.MethodGet || r.URL.Path != "/api/v1/namespaces/ns/pods" {
		writeStatus(w, runtime.ContentTypeJSON, apierrors.NewNotFound(schema.GroupResource{Resource: r.URL.Path}, "").ErrStatus)
		return
	}
	accept := r.Header.Get("Accept")
	mediaType := runtime.ContentTypeJSON
	if strings.HasPrefix(accept, runtime.ContentTypeProtobuf) {
		mediaType = runtime.ContentTypeProtobuf
	}
	switch {
	case strings.Contains(accept, "as=Table") && (!f.tableList || q.Get("watch") == "true"):
		writeStatus(w, runtime.ContentTypeJSON, metav1.Status{Status: metav1.StatusFailure, Code: http.StatusNotAcceptable,
			Reason: metav1.StatusReasonNotAcceptable, Message: "only the following media types are accepted: application/json, application/vnd.kubernetes.protobuf"})
	case strings.Contains(accept, "as=Table"):
		w.Header().Set("Content-Type", "application/json;as=Table;v=v1;g=meta.k8s.io")
		fmt.Fprintf(w, `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":%q},"columnDefinitions":[],"rows":[]}`, f.rv)
	case q.Get("resourceVersion") == "1":
		writeStatus(w, mediaType, apierrors.NewResourceExpired("too old resource version: 1 ("+f.rv+")").ErrStatus)
	case q.Get("watch") == "true":
		if f.onWatch != nil {
			f.onWatch()
		}
		f.serveWatch(w, r, mediaType, q)
	default:
		f.serveList(w, mediaType, q)
	}
}

// serveList answers one page.
func (f *fakeAPIServer) serveList(w http.ResponseWriter, mediaType string, q url.Values) {
	token := q.Get("continue")
	if token != "" && f.onContinue != nil {
		f.onContinue(token)
	}
	if token == "expired" {
		writeStatus(w, mediaType, apierrors.NewResourceExpired("The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.").ErrStatus)
		return
	}
	start, _ := strconv.Atoi(strings.TrimPrefix(token, "c"))
	limit, _ := strconv.Atoi(q.Get("limit"))
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: f.rv}}
	end := len(f.pods)
	if limit > 0 && start+limit < end {
		end = start + limit
		remaining := int64(len(f.pods) - end)
		list.Continue, list.RemainingItemCount = "c"+strconv.Itoa(end), &remaining
		if f.expireTokens {
			list.Continue = "expired"
		}
	}
	list.Items = f.pods[start:end]
	body := encode(mediaType, list)
	if f.cutList {
		cutResponse(w, fmt.Sprintf("Content-Type: %s\r\nContent-Length: %d", mediaType, len(body)), func(out io.Writer) {
			out.Write(body[:len(body)/2])
		})
		return
	}
	w.Header().Set("Content-Type", mediaType)
	w.Write(body)
}

// serveWatch streams the initial events (for sendInitialEvents) and the
// script, then ends as the scenario says.
func (f *fakeAPIServer) serveWatch(w http.ResponseWriter, r *http.Request, mediaType string, q url.Values) {
	if f.watchEnd == endCut {
		cutResponse(w, "Content-Type: "+mediaType+";stream=watch\r\nTransfer-Encoding: chunked", func(out io.Writer) {
			chunked := httputil.NewChunkedWriter(out)
			f.writeWatch(chunked, mediaType, q, func() {})
		})
		return
	}
	w.Header().Set("Content-Type", mediaType+";stream=watch")
	w.WriteHeader(http.StatusOK)
	flush := w.(http.Flusher).Flush
	flush()
	f.writeWatch(w, mediaType, q, flush)
	if f.watchEnd == endHang {
		<-r.Context().Done()
	}
}

// writeWatch writes the watch frames to out, flushing after each.
func (f *fakeAPIServer) writeWatch(out io.Writer, mediaType string, q url.Values, flush func()) {
	info := serializerInfo(mediaType)
	frames := info.StreamSerializer.NewFrameWriter(out)
	events := restwatch.NewEncoder(streaming.NewEncoder(frames, info.StreamSerializer.Serializer), encoder(mediaType))
	steps := f.watchSteps
	if q.Get("sendInitialEvents") == "true" {
		steps = append(initialEvents(f.pods, f.rv), steps...)
	}
	for _, step := range steps {
		if step.event != nil {
			events.Encode(&watch.Event{Type: step.event.Type, Object: step.event.Object.DeepCopyObject()})
		} else {
			frames.Write(step.raw[mediaType])
		}
		flush()
	}
}

// initialEvents returns a WatchList's initial events: an ADDED per pod and
// the bookmark that ends them.
func initialEvents(pods []corev1.Pod, rv string) []watchStep {
	var steps []watchStep
	for i := range pods {
		steps = append(steps, watchStep{event: &watch.Event{Type: watch.Added, Object: &pods[i]}})
	}
	end := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: rv,
		Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}}
	return append(steps, watchStep{event: &watch.Event{Type: watch.Bookmark, Object: end}})
}

// cutResponse writes a raw HTTP/1.1 response head with the given header
// lines, lets body write part of a body, and drops the connection.
func cutResponse(w http.ResponseWriter, headers string, body func(out io.Writer)) {
	conn, rw, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	fmt.Fprintf(rw, "HTTP/1.1 200 OK\r\n%s\r\n\r\n", headers)
	body(rw)
	rw.Flush()
}

// writeStatus answers with a Status object and its code.
func writeStatus(w http.ResponseWriter, mediaType string, status metav1.Status) {
	w.Header().Set("Content-Type", mediaType)
	w.WriteHeader(int(status.Code))
	w.Write(encode(mediaType, &status))
}

// serializerInfo returns client-go's scheme serializer for mediaType.
func serializerInfo(mediaType string) runtime.SerializerInfo {
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), mediaType)
	if !ok {
		panic("no serializer for " + mediaType)
	}
	return info
}

// encoder returns an encoder of core/v1 objects as mediaType.
func encoder(mediaType string) runtime.Encoder {
	return scheme.Codecs.EncoderForVersion(serializerInfo(mediaType).Serializer, corev1.SchemeGroupVersion)
}

// encode encodes a copy of obj as mediaType (encoding sets the kind on the
// object it encodes, and the scenario's objects are shared).
func encode(mediaType string, obj runtime.Object) []byte {
	data, err := runtime.Encode(encoder(mediaType), obj.DeepCopyObject())
	if err != nil {
		panic(err)
	}
	return data
}
