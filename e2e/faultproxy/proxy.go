package faultproxy

import (
	"context"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Config configures a Proxy.
type Config struct {
	// Upstream is the API server's base URL, e.g. https://127.0.0.1:6443.
	Upstream *url.URL
	// Transport reaches Upstream (with its CA). It must not ask for
	// compression on its own (the proxy reads bodies to cut them); nil means
	// a clone of http.DefaultTransport with compression disabled.
	Transport http.RoundTripper
	// Seed drives every decision.
	Seed uint64
	// Rates are the faults' probabilities per applicable request.
	Rates Rates
	// ClassRates, when set for a class, replace Rates for its requests
	// (e.g. fewer relist-causing faults on watches than on lists).
	ClassRates map[Class]Rates
	// StallFor is how long Stall and StallStream hold; choose it longer than
	// the client's timeout. Default 10s.
	StallFor time.Duration
	// RetryAfter is the Retry-After header of a 429, in seconds. Default 1.
	RetryAfter int
	// MaxEvents bounds how many events (or, for LIST bodies, how many
	// percent of the body) a mid-stream fault lets through first: the
	// position is drawn from [0, MaxEvents). Default 50.
	MaxEvents int
	// Trace records a line per request in Stats.Trace.
	Trace bool
	// MinBackoff is the shortest gap after a failed request that counts as a
	// backoff wait of the client. Default 50ms.
	MinBackoff time.Duration
	// IndexPerClass numbers the requests of each class apart for the fault
	// draws: the k-th LIST, the k-th WatchList and the k-th watch draw from
	// (Seed, class, k) whatever came between, so that clients whose watches
	// differ in number (timing: client timeouts, events per stream) still
	// meet the same faults on their lists. Traces keep the overall index.
	IndexPerClass bool
}

// Proxy is the fault-injecting reverse proxy. Create it with New, serve it
// with Start (or use it as an http.Handler), and Close it.
type Proxy struct {
	// cfg is the defaulted configuration; read-only after New.
	cfg Config
	// next is the index of the next request.
	next atomic.Uint64
	// nextOf is, per class, the index the next request of the class draws
	// its fault from (Config.IndexPerClass).
	nextOf [numClasses]atomic.Uint64
	// quietFrom is, per class, the first draw index that gets no fault
	// (set by Quiesce and QuiesceFrom); math.MaxUint64 until then.
	quietFrom [numClasses]atomic.Uint64
	// ctx ends with Close, so that open streams end.
	ctx context.Context
	// cancel ends ctx.
	cancel context.CancelFunc
	// server is what Start started; nil when used as a plain handler.
	server *httptest.Server
	// mu guards stats and lastFailure.
	mu sync.Mutex
	// stats are the counters so far.
	stats Stats
	// lastFailure is when the last failed request ended; zero when the last
	// request succeeded or its gap was already measured.
	lastFailure time.Time
	// first is when the first traced request arrived.
	first time.Time
}

// New returns a proxy for cfg, or an error when its rates are invalid.
func New(cfg Config) (*Proxy, error) {
	if cfg.Upstream == nil {
		return nil, errors.New("faultproxy: Config.Upstream is required")
	}
	if err := cfg.Rates.validate(); err != nil {
		return nil, err
	}
	for _, r := range cfg.ClassRates {
		if err := r.validate(); err != nil {
			return nil, err
		}
	}
	if cfg.Transport == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.DisableCompression = true
		cfg.Transport = t
	}
	if cfg.StallFor == 0 {
		cfg.StallFor = 10 * time.Second
	}
	if cfg.RetryAfter == 0 {
		cfg.RetryAfter = 1
	}
	if cfg.MaxEvents <= 0 {
		cfg.MaxEvents = 50
	}
	if cfg.MinBackoff == 0 {
		cfg.MinBackoff = 50 * time.Millisecond
	}
	p := &Proxy{cfg: cfg, stats: newStats()}
	for c := range p.quietFrom {
		p.quietFrom[c].Store(math.MaxUint64)
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	return p, nil
}

// Start serves the proxy on a loopback port, over TLS (with a certificate
// of its own, see Certificate) when useTLS is set, and returns its URL.
func (p *Proxy) Start(useTLS bool) string {
	p.server = httptest.NewUnstartedServer(p)
	if useTLS {
		p.server.StartTLS()
	} else {
		p.server.Start()
	}
	return p.server.URL
}

// Server is the running server Start made (for its TLS certificate and
// client), or nil.
func (p *Proxy) Server() *httptest.Server { return p.server }

// Close ends every open stream and stops the server Start started. It is
// safe to call more than once.
func (p *Proxy) Close() {
	p.cancel()
	if p.server != nil {
		p.server.CloseClientConnections()
		p.server.Close()
	}
}

// Quiesce stops injecting faults into requests that arrive from now on
// (streams already open keep their planned fault); the proxy then only
// forwards and counts.
func (p *Proxy) Quiesce() { p.QuiesceFrom(Progress{}) }

// Progress is how far a proxy's fault draws have got: per class, the draw
// index of the next request of that class (with Config.IndexPerClass;
// otherwise every class holds the overall request count).
type Progress [numClasses]uint64

// Max returns the classwise maximum of a and b.
func (a Progress) Max(b Progress) Progress {
	for c := range a {
		a[c] = max(a[c], b[c])
	}
	return a
}

// Progress returns the proxy's progress so far.
func (p *Proxy) Progress() Progress {
	var out Progress
	for c := range out {
		if p.cfg.IndexPerClass {
			out[c] = p.nextOf[c].Load()
		} else {
			out[c] = p.next.Load()
		}
	}
	return out
}

// QuiesceFrom stops injecting faults into the requests that draw at or
// after n (per class); earlier draws (those still to come included) keep
// their planned fault. Proxies that serve the same seed to different
// clients, quiesced at the Max of their Progress, give every client the
// same faults however late a client's backoff brings its next request.
func (p *Proxy) QuiesceFrom(n Progress) {
	for c := range n {
		p.quietFrom[c].Store(n[c])
	}
}

// draw numbers a request of class: its overall index, and the index its
// fault is drawn from.
func (p *Proxy) draw(class Class) (index, drawn uint64) {
	index = p.next.Add(1) - 1
	drawn = index
	if p.cfg.IndexPerClass && class >= 0 && class < numClasses {
		drawn = p.nextOf[class].Add(1) - 1
	}
	return index, drawn
}

// Plan returns the fault, and its position, that request index of class c
// draws (what the proxy injects into it unless quiesced): tests use it to
// pick a seed that puts a fault where they want it.
func (p *Proxy) Plan(index uint64, c Class) (Fault, int) {
	pl := p.planFor(index, c)
	return pl.fault, pl.at
}

// plan is what the proxy will do to one request.
type plan struct {
	// index is the request's index.
	index uint64
	// class is the request's class.
	class Class
	// fault is the fault to inject, or None.
	fault Fault
	// at is where a mid-stream fault strikes: the number of events let
	// through first (for LIST bodies: percent of the body, at least 1).
	at int
}

// planFor draws the fault of draw index index from (Seed, index), with
// Config.IndexPerClass from (Seed, class, index): the same index and class
// always get the same plan.
func (p *Proxy) planFor(index uint64, class Class) plan {
	// NB: PCG streams seeded with neighbouring indices start out
	// correlated (runs of "no fault"); mixing both words first decorrelates
	// them.
	stream := mix64(p.cfg.Seed ^ mix64(index))
	if p.cfg.IndexPerClass {
		stream = mix64(stream ^ mix64(uint64(class)+1)) // the k-th of each class draws apart
	}
	rng := rand.New(rand.NewPCG(mix64(p.cfg.Seed), stream))
	u, at := rng.Float64(), rng.IntN(p.cfg.MaxEvents)
	pl := plan{index: index, class: class, at: at}
	if class >= 0 && class < numClasses && index >= p.quietFrom[class].Load() {
		return pl
	}
	rates := p.cfg.Rates
	if r, ok := p.cfg.ClassRates[class]; ok {
		rates = r
	}
	sum := 0.0
	for _, f := range Faults() {
		if !f.AppliesTo(class) {
			continue
		}
		sum += rates[f]
		if u < sum {
			pl.fault = f
			break
		}
	}
	switch pl.fault {
	case ResetListPage, TruncateList:
		pl.at = 1 + at*98/p.cfg.MaxEvents // 1..98 percent of the body
	case ResetWatchListAfterBookmark:
		pl.at = at % 5
	}
	return pl
}

// mix64 is the splitmix64 finalizer: a bijection that spreads nearby
// inputs over the whole range.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// classify tells what kind of request r is.
func classify(r *http.Request) Class {
	if r.Method != http.MethodGet {
		return Other
	}
	q := r.URL.Query()
	if w := q.Get("watch"); w != "true" && w != "1" {
		return List
	}
	if q.Get("sendInitialEvents") == "true" {
		return WatchList
	}
	return Watch
}

// ServeHTTP implements http.Handler: it plans the request's fault, forwards
// it (unless the fault answers it) and copies the response back, injecting
// the fault on the way.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	class := classify(r)
	index, drawn := p.draw(class)
	p.arrived(class)
	pl := p.planFor(drawn, class)
	pl.index = index
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	defer context.AfterFunc(p.ctx, cancel)()

	if pl.fault == Stall && !p.stall(ctx, pl) {
		return
	}
	if status := statusOf(pl.fault); status != 0 {
		p.trace(index, r, status)
		p.inject(pl)
		p.writeStatus(w, pl.fault, status)
		p.ended(true)
		return
	}
	resp, err := p.forward(ctx, r)
	if err == nil {
		p.trace(index, r, resp.StatusCode)
	} else {
		p.trace(index, r, 0)
	}
	if err != nil {
		http.Error(w, "faultproxy: upstream: "+err.Error(), http.StatusBadGateway)
		p.ended(true)
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 || class == Other {
		copyHeader(w.Header(), resp.Header)
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
		p.ended(resp.StatusCode >= 400)
		return
	}
	switch class {
	case List:
		p.ended(p.serveList(w, resp, pl))
	default:
		p.ended(p.serveStream(ctx, w, resp, pl))
	}
}

// stall holds the request for StallFor. It reports whether the request
// should go on (false: the client gave up, or the proxy closed).
func (p *Proxy) stall(ctx context.Context, pl plan) bool {
	p.inject(pl)
	t := time.NewTimer(p.cfg.StallFor)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		p.ended(true)
		return false
	}
}

// forward sends r upstream and returns the response. Hop-by-hop headers
// and Accept-Encoding are dropped, so bodies come back uncompressed.
func (p *Proxy) forward(ctx context.Context, r *http.Request) (*http.Response, error) {
	u := *p.cfg.Upstream
	u.Path = strings.TrimSuffix(u.Path, "/") + r.URL.Path
	u.RawQuery = r.URL.RawQuery
	out, err := http.NewRequestWithContext(ctx, r.Method, u.String(), r.Body)
	if err != nil {
		return nil, err
	}
	if r.ContentLength == 0 {
		out.Body = nil
	}
	out.ContentLength = r.ContentLength
	copyHeader(out.Header, r.Header)
	out.Header.Del("Accept-Encoding")
	return p.cfg.Transport.RoundTrip(out)
}

// hopHeaders are not forwarded.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

func copyHeader(dst, src http.Header) {
	for k, vs := range src {
		dst[k] = append([]string(nil), vs...)
	}
	for _, h := range hopHeaders {
		dst.Del(h)
	}
}
