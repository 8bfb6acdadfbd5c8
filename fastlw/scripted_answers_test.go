package fastlw_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/metrics"

	"github.com/kcache-go/cache/fastlw"
)

// A script is the answers of a canned server, one per request in order
// (the last one answers every later request). The same script is played
// to client-go's ListWatch and to fastlw, each on a client of its own, and
// what each side did is recorded: the outcome, the requests, the closes of
// the bodies, the warnings reported, the rate limiter's waits, client-go's
// request metrics and the (fake, under synctest) time spent.

// scriptedAnswer is one answer of a script.
type scriptedAnswer struct {
	err         error  // the transport fails with err (no response)
	code        int    // 0 is 200
	contentType string // "" sends none
	body        string
	warning     string // sent as a Warning header when set
	retryAfter  string // sent as a Retry-After header when set
	// After the body, a read fails with cutErr (the context's error when
	// nil) when cut is set: at once, or, when hangs, once the request's
	// context ended (see cutBody).
	cut, hangs bool
	cutErr     error
	// boundToRequest makes every Read fail with the request context's
	// error once that context ended, as a real transport's body does,
	// however much of the body is left.
	boundToRequest bool
}

// streamOK is a 200 JSON watch stream of one event.
var streamOK = scriptedAnswer{contentType: "application/json", body: oneEventStream}

// scriptRun is what one side did with a script.
type scriptRun struct {
	out      watchOutcome
	requests int32
	closes   []int32  // per body handed out, how often it was closed
	warnings []string // the texts the warning handler was given, in order
	waits    int32    // the rate limiter's Waits
	metrics  []string // client-go's request metrics, in order
	elapsed  time.Duration
}

// scriptTransport answers with a script and counts the requests and the
// closes of the bodies it hands out. Safe for concurrent use.
type scriptTransport struct {
	script []scriptedAnswer
	// onAnswer, when set, runs with the request's number (from 1) before it
	// is answered.
	onAnswer func(n int)
	// configureClient, when set, configures the client built over this
	// transport, given the recorder of its warnings (how the client reports
	// to it, its rate limiter, ...); nil makes the recorder the client's
	// WarningHandlerWithContext.
	configureClient func(cfg *rest.Config, warnings *recordingWarnings)
	// clientTimeout is the Timeout of the http.Client over this transport.
	clientTimeout time.Duration

	requests atomic.Int32
	mu       sync.Mutex
	bodies   []*closeCountingBody
}

// RoundTrip answers req with its answer of the script; a request whose
// context already ended fails with the context's error and is not counted,
// as a real transport sends nothing then.
func (s *scriptTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	n := int(s.requests.Add(1))
	if s.onAnswer != nil {
		s.onAnswer(n)
	}
	a := s.script[min(n, len(s.script))-1]
	if a.err != nil {
		return nil, a.err
	}
	var body io.Reader = strings.NewReader(a.body)
	if a.cut {
		body = &cutBody{stream: body, ctx: req.Context(), cutErr: a.cutErr, atOnce: !a.hangs}
	}
	if a.boundToRequest {
		body = requestBoundReader{r: body, ctx: req.Context()}
	}
	resp := okAnswer(req, a.contentType, body)
	if a.contentType == "" {
		resp.Header.Del("Content-Type")
	}
	if a.code != 0 {
		resp.StatusCode, resp.Status = a.code, http.StatusText(a.code)
	}
	if a.warning != "" {
		resp.Header.Set("Warning", `299 - "`+a.warning+`"`)
	}
	if a.retryAfter != "" {
		resp.Header.Set("Retry-After", a.retryAfter)
	}
	counted := &closeCountingBody{ReadCloser: resp.Body}
	resp.Body = counted
	s.mu.Lock()
	s.bodies = append(s.bodies, counted)
	s.mu.Unlock()
	return resp, nil
}

// requestBoundReader reads r until ctx ends, then fails with ctx's error.
type requestBoundReader struct {
	r   io.Reader
	ctx context.Context
}

// Read reads r unless ctx ended.
func (b requestBoundReader) Read(p []byte) (int, error) {
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	return b.r.Read(p)
}

// closes returns, per body handed out, how often it was closed.
func (s *scriptTransport) closes() []int32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]int32, len(s.bodies))
	for i, b := range s.bodies {
		out[i] = b.closes.Load()
	}
	return out
}

// closeCountingBody counts its Close calls.
type closeCountingBody struct {
	io.ReadCloser
	closes atomic.Int32
}

// Close counts, and closes the body.
func (b *closeCountingBody) Close() error {
	b.closes.Add(1)
	return b.ReadCloser.Close()
}

// recordingWarnings keeps the texts of the warnings it is given.
type recordingWarnings struct {
	mu    sync.Mutex
	texts []string
}

// HandleWarningHeaderWithContext records the warning's text.
func (r *recordingWarnings) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, text string) {
	r.HandleWarningHeader(0, "", text)
}

// HandleWarningHeader records the warning's text.
func (r *recordingWarnings) HandleWarningHeader(_ int, _ string, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.texts = append(r.texts, text)
}

// scriptClient returns a typed clientset's core/v1 REST client (JSON)
// whose requests go to transport, reporting warnings to warnings and
// waiting on limiter, through an http.Client with timeout as its Timeout,
// then configured by configure (nil: warnings as its
// WarningHandlerWithContext).
func scriptClient(t *testing.T, transport http.RoundTripper, timeout time.Duration, warnings *recordingWarnings, limiter *countingLimiter, configure func(*rest.Config, *recordingWarnings)) rest.Interface {
	t.Helper()
	cfg := &rest.Config{Host: "http://script.invalid", QPS: -1, RateLimiter: limiter}
	if configure == nil {
		cfg.WarningHandlerWithContext = warnings
	} else {
		configure(cfg, warnings)
	}
	return coreV1ClientOver(t, cfg, &http.Client{Transport: transport, Timeout: timeout})
}

// watchSide is how one side watches through a client.
type watchSide func(t *testing.T, ctx context.Context, c rest.Interface) watchOutcome

// plainSide watches through client-go's ListWatch.
func plainSide(t *testing.T, ctx context.Context, c rest.Interface) watchOutcome {
	return watchAllIn(ctx, clientGoPlain(c), metav1.ListOptions{ResourceVersion: "100"})
}

// fastSide watches through fastlw.
func fastSide(t *testing.T, ctx context.Context, c rest.Interface) watchOutcome {
	return watchAllIn(ctx, fastlw.NewFromClient(c, "pods", "ns", fields.Everything(), nil), metav1.ListOptions{ResourceVersion: "100"})
}

// runScript plays script to side on a new client and records what it did;
// configure, when not nil, adjusts the transport first. Call it inside a
// synctest bubble: pauses then take no time and elapsed is exact.
func runScript(t *testing.T, script []scriptedAnswer, side watchSide, configure func(*scriptTransport)) scriptRun {
	transport := &scriptTransport{script: script}
	if configure != nil {
		configure(transport)
	}
	warnings, limiter := &recordingWarnings{}, &countingLimiter{}
	client := scriptClient(t, transport, transport.clientTimeout, warnings, limiter, transport.configureClient)
	recorded := startMetrics()
	start := time.Now()
	out := side(t, t.Context(), client)
	return scriptRun{
		out: out, requests: transport.requests.Load(), closes: transport.closes(),
		warnings: warnings.texts, waits: limiter.waits.Load(), metrics: recorded(), elapsed: time.Since(start),
	}
}

// clientMetrics records client-go's request metrics; registered once for
// the test binary (client-go takes only the first registration).
var clientMetrics = &metricsRecorder{}

// registerMetrics registers clientMetrics with client-go.
var registerMetrics = sync.OnceFunc(func() {
	metrics.Register(metrics.RegisterOpts{
		RequestLatency:     latencyRecorder{clientMetrics, "latency"},
		RateLimiterLatency: latencyRecorder{clientMetrics, "rate-limiter"},
		RequestResult:      resultRecorder{clientMetrics, "result"},
		RequestRetry:       retryRecorder{clientMetrics},
		ResponseSize:       sizeRecorder{clientMetrics, "response-size"},
	})
})

// startMetrics starts recording client-go's request metrics afresh and
// returns the function that returns those recorded since.
func startMetrics() func() []string {
	registerMetrics()
	clientMetrics.mu.Lock()
	clientMetrics.seen = nil
	clientMetrics.mu.Unlock()
	return func() []string {
		clientMetrics.mu.Lock()
		defer clientMetrics.mu.Unlock()
		return append([]string(nil), clientMetrics.seen...)
	}
}

// metricsRecorder keeps the metrics client-go reports, as text.
type metricsRecorder struct {
	mu   sync.Mutex
	seen []string
}

func (m *metricsRecorder) add(s string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seen = append(m.seen, s)
}

type latencyRecorder struct {
	m    *metricsRecorder
	name string
}

func (l latencyRecorder) Observe(_ context.Context, verb string, u url.URL, _ time.Duration) {
	l.m.add(l.name + " " + verb + " " + u.Path)
}

type resultRecorder struct {
	m    *metricsRecorder
	name string
}

func (r resultRecorder) Increment(_ context.Context, code, method, _ string) {
	r.m.add(r.name + " " + code + " " + method)
}

type retryRecorder struct{ m *metricsRecorder }

func (r retryRecorder) IncrementRetry(_ context.Context, code, method, _ string) {
	r.m.add("retry " + code + " " + method)
}

type sizeRecorder struct {
	m    *metricsRecorder
	name string
}

func (s sizeRecorder) Observe(_ context.Context, verb, _ string, size float64) {
	s.m.add(fmt.Sprintf("%s %s %v", s.name, verb, size))
}

// scriptClientWith returns a typed clientset's core/v1 REST client (JSON)
// whose requests go through httpClient, unthrottled.
func scriptClientWith(t *testing.T, httpClient *http.Client) rest.Interface {
	return coreV1ClientOver(t, &rest.Config{Host: "http://script.invalid", QPS: -1}, httpClient)
}

// coreV1ClientOver returns the core/v1 REST client of a typed clientset
// built from cfg over httpClient.
func coreV1ClientOver(t *testing.T, cfg *rest.Config, httpClient *http.Client) rest.Interface {
	t.Helper()
	cs, err := kubernetes.NewForConfigAndClient(cfg, httpClient)
	if err != nil {
		t.Fatal(err)
	}
	return cs.CoreV1().RESTClient()
}
