package fastlw_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/iotest"

	"go.uber.org/goleak"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kcache-go/cache/fastlw"
)

// These tests run client-go's ListWatch (cg.NewListWatchFromClient, the
// plain path, as a black box) and fastlw over the same canned HTTP answers,
// delivered in odd read patterns, and require the same events, pages,
// errors (text included) and number of requests.

// cannedTransport answers every request with answer (n counts the requests
// from 1) and counts them; safe for concurrent use.
type cannedTransport struct {
	answer   func(req *http.Request, n int) (*http.Response, error)
	requests atomic.Int32
}

// RoundTrip answers req.
func (c *cannedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return c.answer(req, int(c.requests.Add(1)))
}

// cannedClient returns a typed clientset's core/v1 REST client (JSON) whose
// requests go to transport.
func cannedClient(t *testing.T, transport http.RoundTripper) rest.Interface {
	t.Helper()
	cs, err := kubernetes.NewForConfigAndClient(&rest.Config{Host: "http://canned.invalid", QPS: -1}, &http.Client{Transport: transport})
	if err != nil {
		t.Fatal(err)
	}
	return cs.CoreV1().RESTClient()
}

// errClosedBody is what a canned body reads once closed, as an HTTP
// response body does.
var errClosedBody = errors.New("http: read on closed response body")

// cannedBody is a response body over an in-memory reader; reads after
// Close fail. Safe for a Close concurrent with a Read.
type cannedBody struct {
	mu     sync.Mutex
	r      io.Reader
	closed bool
}

// Read reads from the canned reader unless the body is closed.
func (b *cannedBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return 0, errClosedBody
	}
	return b.r.Read(p)
}

// Close makes every later Read fail.
func (b *cannedBody) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	return nil
}

// okAnswer is a 200 answer of contentType whose body reads r.
func okAnswer(req *http.Request, contentType string, r io.Reader) *http.Response {
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": []string{contentType}}, Body: &cannedBody{r: r}, Request: req,
	}
}

// readShape is a pattern of reads a body is delivered in.
type readShape struct {
	name string
	wrap func(io.Reader) io.Reader
}

// readShapes are the patterns every canned body is delivered in: all at
// once, one byte per Read, and odd splits that put read boundaries
// everywhere relative to frames, strings and escapes.
var readShapes = []readShape{
	{"whole", func(r io.Reader) io.Reader { return r }},
	{"one byte per read", iotest.OneByteReader},
	{"odd splits", func(r io.Reader) io.Reader { return &splitReader{r: r, sizes: []int{3, 1, 7, 2, 13, 5, 64}} }},
}

// splitReader returns at most sizes[i] bytes on the i-th Read (cycling).
type splitReader struct {
	r     io.Reader
	sizes []int
	next  int
}

// Read reads the next split.
func (s *splitReader) Read(p []byte) (int, error) {
	n := s.sizes[s.next%len(s.sizes)]
	s.next++
	return s.r.Read(p[:min(n, len(p))])
}

// bodyEnd is how a canned watch body ends after its bytes.
type bodyEnd struct {
	name string
	err  error // nil: a clean end (io.EOF)
}

// bodyEnds are the ends of a watch body: clean, truncated (an HTTP body
// cut short reads io.ErrUnexpectedEOF), reset (a probable EOF), and a read
// error that is none of those.
var bodyEnds = []bodyEnd{
	{"a clean end", nil},
	{"a truncated body", io.ErrUnexpectedEOF},
	{"a connection reset", syscall.ECONNRESET},
	{"another read error", errors.New("tls: bad record MAC")},
}

// failingReader returns err on every Read.
type failingReader struct{ err error }

// Read fails.
func (r failingReader) Read([]byte) (int, error) { return 0, r.err }

// bodyReader reads body, then ends as end says, in shape's reads.
func bodyReader(body string, shape readShape, end bodyEnd) io.Reader {
	var r io.Reader = strings.NewReader(body)
	if end.err != nil {
		r = io.MultiReader(r, failingReader{end.err})
	}
	return shape.wrap(r)
}

// watchCanned watches through lw over a client whose every answer is a
// 200 JSON watch stream of body (read in shape, ended as end says), and
// returns the outcome and the number of requests.
func watchCanned(t *testing.T, body string, shape readShape, end bodyEnd, lw func(rest.Interface) watchOutcome) (watchOutcome, int32) {
	transport := &cannedTransport{answer: func(req *http.Request, _ int) (*http.Response, error) {
		return okAnswer(req, "application/json", bodyReader(body, shape, end)), nil
	}}
	out := lw(cannedClient(t, transport))
	return out, transport.requests.Load()
}

// requireSameCannedWatch watches body in every read shape and with end,
// through client-go's ListWatch and through fastlw, and requires the same
// outcome and request count; it returns client-go's outcome in the last
// shape.
func requireSameCannedWatch(t *testing.T, body string, end bodyEnd) watchOutcome {
	t.Helper()
	options := metav1.ListOptions{ResourceVersion: "100"}
	var plain watchOutcome
	for _, shape := range readShapes {
		var plainRequests, fastRequests int32
		plain, plainRequests = watchCanned(t, body, shape, end, func(c rest.Interface) watchOutcome { return watchAll(t, clientGoPlain(c), options) })
		fast, fastRequests := watchCanned(t, body, shape, end, func(c rest.Interface) watchOutcome {
			return watchAll(t, fastlw.NewFromClient(c, "pods", "ns", fields.Everything(), nil), options)
		})
		if plainRequests != fastRequests {
			t.Fatalf("%s: client-go sent %d requests, fastlw %d", shape.name, plainRequests, fastRequests)
		}
		t.Logf("%s: %d events %v", shape.name, len(plain.events), summary(plain.events))
		requireSameWatch(t, plain, fast)
	}
	return plain
}

// pod is a small pod object as watch events carry it; annotation is
// spliced into its annotations (JSON members, may be empty).
func pod(name, rv, annotations string) string {
	return `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"` + name + `","namespace":"ns","resourceVersion":"` + rv +
		`","annotations":{` + annotations + `}},"spec":{"containers":[{"name":"c","image":"i"}]}}`
}

// frame is a watch event frame of eventType around object.
func frame(eventType, object string) string {
	return `{"type":"` + eventType + `","object":` + object + `}`
}

// oddWatchBodies are watch streams of odd shape and content, each with the
// number of events client-go's path gives for it (Error events included),
// so that the sameness is not the sameness of two empty watches.
var oddWatchBodies = []struct {
	name   string
	body   string
	events int
}{
	{"frames separated by spaces, tabs and CRLF, with whitespace inside",
		" \t\r\n" + `{ "type" : "ADDED" ,` + "\r\n\t" + `"object" :` + pod("a", "1", "") + " }\r\n\t  " + frame("MODIFIED", pod("a", "2", "")) + "\r\n", 2},
	{"frames back to back", frame("ADDED", pod("a", "1", "")) + frame("DELETED", pod("a", "2", "")), 2},
	{"a trailing partial frame", frame("ADDED", pod("a", "1", "")) + "\n" + `{"type":"MODIFIED","obj`, 1},
	{"an empty body", "", 0},
	{"only whitespace", " \r\n\t \n", 0},
	{"an escaped type key", `{"\u0074ype":"ADDED","object":` + pod("a", "1", "") + "}\n" + frame("MODIFIED", pod("a", "2", "")), 2},
	{"an escaped kind key in the object", frame("ADDED", strings.Replace(pod("a", "1", ""), `"kind"`, `"kin\u0064"`, 1)), 1},
	{"an escaped event type", frame(`AD\u0044ED`, pod("a", "1", "")), 1},
	{"type twice", `{"type":"ADDED","type":"DELETED","object":` + pod("a", "1", "") + "}", 1},
	{"object twice", `{"type":"ADDED","object":` + pod("a", "1", "") + `,"object":` + pod("b", "2", "") + "}", 1},
	{"kind twice in the object", frame("ADDED", strings.Replace(pod("a", "1", ""), `"kind":"Pod"`, `"kind":"Service","kind":"Pod"`, 1)), 1},
	{"Kind in another case beside kind", frame("ADDED", strings.Replace(pod("a", "1", ""), `"kind":"Pod"`, `"kind":"Pod","Kind":"Service"`, 1)), 1},
	{"TYPE in capitals", `{"TYPE":"ADDED","object":` + pod("a", "1", "") + "}", 1},
	{"the object before the type, and extra members", `{"object":` + pod("a", "1", "") + `,"extra":{"x":[1,"]"]},"type":"ADDED","n":null}`, 1},
	{"an object of another kind than the resource's", frame("ADDED", `{"kind":"Service","apiVersion":"v1","metadata":{"name":"s","resourceVersion":"3"}}`), 1},
	{"an object of an unknown group version", frame("ADDED", `{"kind":"Pod","apiVersion":"v9","metadata":{"name":"a"}}`), 1},
	{"an object without a kind", frame("ADDED", `{"apiVersion":"v1","metadata":{"name":"a","kind":"Pod"}}`), 1},
	{"a null object", frame("ADDED", "null"), 1},
	{"an object that is a string, then one that is an array", frame("ADDED", `"Pod"`) + frame("ADDED", `[1]`), 1},
	{"an object that is a number", frame("ADDED", "-0"), 1},
	{"a kind nested deeper only", frame("ADDED", `{"apiVersion":"v1","spec":{"kind":"Pod"}}`), 1},
	{"escaped quotes and backslashes near brackets", frame("ADDED", pod("a", "1", `"q":"}\"{[\\","b":"\\\\","c":"\\\"}]"`)) + frame("MODIFIED", pod("a", "2", `"e":"\\"`)), 2},
	{"unicode, escaped and raw, and a surrogate pair", frame("ADDED", pod("a", "1", `"u":"名前 é \u00e9 \ud83d\ude00 \ud800"`)), 1},
	{"invalid UTF-8 in a string", frame("ADDED", pod("a", "1", "\"x\":\"\xff\xfe\xc3\"")), 1},
	{"numbers like 1e400 and -0", frame("ADDED", strings.Replace(pod("a", "1", ""), `"spec":{`, `"spec":{"priority":-0,`, 1)) +
		frame("ADDED", strings.Replace(pod("b", "2", ""), `"spec":{`, `"spec":{"priority":1e400,`, 1)), 2},
	{"a number between frames", frame("ADDED", pod("a", "1", "")) + " 5 " + frame("ADDED", pod("b", "2", "")), 2},
	{"mismatched brackets in a frame", frame("ADDED", pod("a", "1", "")) + `{"type":"ADDED","object":{"a":[}]}` + frame("ADDED", pod("b", "2", "")), 2},
	{"a control character in a string", frame("ADDED", pod("a", "1", "\"x\":\"\t\"")), 1},
	{"an object nested beyond encoding/json's depth", frame("ADDED", `{"apiVersion":"v1","kind":"Pod","x":`+strings.Repeat("[", 10001)+strings.Repeat("]", 10001)+"}"), 1},
	{"an ERROR event of 410 Expired inside the stream, then more events",
		frame("ADDED", pod("a", "1", "")) + frame("ERROR", `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 1 (5)","reason":"Expired","code":410}`) +
			frame("MODIFIED", pod("a", "2", "")), 3},
	{"ERROR events of odd codes", frame("ERROR", `{"kind":"Status","apiVersion":"v1","status":"Failure","code":0}`) +
		frame("ERROR", `{"kind":"Status","apiVersion":"v1","status":"Failure","code":999,"reason":"Odd"}`) +
		frame("ERROR", `{"kind":"Status","apiVersion":"v1","code":-1}`) + frame("ERROR", `{"kind":"Status","apiVersion":"v1","code":"410"}`), 4},
	{"an ERROR event whose object is a pod", frame("ERROR", pod("a", "1", "")), 1},
	{"a BOOKMARK ending the initial events", frame("BOOKMARK", `{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"9","annotations":{"k8s.io/initial-events-end":"true"}}}`), 1},
	{"an unknown event type", frame("ADDED", pod("a", "1", "")) + frame("CHANGED", pod("a", "2", "")), 2},
}

// TestOddWatchBodiesGiveClientGosEventsAndErrorsInEveryReadPattern runs
// every odd body in every read shape, ending cleanly, and requires
// fastlw's outcome to be client-go's (and client-go's to have the number
// of events the case names).
func TestOddWatchBodiesGiveClientGosEventsAndErrorsInEveryReadPattern(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, tt := range oddWatchBodies {
		t.Run(tt.name, func(t *testing.T) {
			plain := requireSameCannedWatch(t, tt.body, bodyEnds[0])
			if len(plain.events) != tt.events || plain.err != nil {
				t.Fatalf("client-go gave %d events and error %v, the case expects %d events: %v", len(plain.events), plain.err, tt.events, summary(plain.events))
			}
		})
	}
}

// TestWatchBodiesEndingInReadErrorsGiveClientGosEventsAndErrors ends a
// few bodies (between frames, inside a frame, inside a string, after an
// escape) with each kind of read error, in every read shape.
func TestWatchBodiesEndingInReadErrorsGiveClientGosEventsAndErrors(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	first := frame("ADDED", pod("z", "0", "")) + "\n"
	second := frame("ADDED", pod("a", "1", `"q":"x\"y"`))
	escape := strings.Index(second, `x\"y`)
	bodies := map[string]string{
		"between frames":      first + second + "\n",
		"inside a frame":      first + second[:len(second)-20],
		"inside a string":     first + second[:escape+1],
		"right after a \\":    first + second[:escape+2],
		"inside the envelope": first + `{"type":"ADD`,
	}
	for name, body := range bodies {
		for _, end := range bodyEnds {
			t.Run(name+"/"+end.name, func(t *testing.T) {
				plain := requireSameCannedWatch(t, body, end)
				if len(plain.events) == 0 {
					t.Fatalf("client-go gave no event: the body is not the case meant")
				}
			})
		}
	}
}

// TestAWatchStreamOfRealisticPodsInOddReadsGivesClientGosEvents streams
// realistic pods (the fixtures' encoding, with every field a pod carries)
// in every read shape.
func TestAWatchStreamOfRealisticPodsInOddReadsGivesClientGosEvents(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var body bytes.Buffer
	for i, p := range newPods(20) {
		eventType := []string{"ADDED", "MODIFIED", "DELETED"}[i%3]
		body.WriteString(frame(eventType, string(encode("application/json", &p))) + "\n")
	}
	plain := requireSameCannedWatch(t, body.String(), bodyEnds[0])
	if len(plain.events) != 20 {
		t.Fatalf("client-go gave %d events, want 20", len(plain.events))
	}
}
