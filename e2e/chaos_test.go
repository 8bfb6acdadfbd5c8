package e2e

import (
	"context"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kcache-go/cache/e2e/faultproxy"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// chaosClientTimeout is the informers' client timeout (rest.Config.Timeout):
// it bounds every request, watches included, so a stall longer than it is
// given up by the client.
const chaosClientTimeout = 4 * time.Second

// chaosStall is how long the proxy stalls: longer than the client waits.
const chaosStall = 5 * time.Second

// chaosBaseObjects are created before the watchers start, so that a LIST
// from etcd (secrets) takes more than one page of 500.
const chaosBaseObjects = 600

// chaosRates are the fault probabilities per request of the chaos test,
// per class. Lists and WatchList streams (one per initial sync and relist)
// meet a fault about a third of the time. Watches, far more numerous, meet mostly
// faults after which informers simply rewatch (resets, cut events, stalls),
// and rarely ones that make them relist (410, 5xx, a stall before the
// headers), so that backoffs stay short enough for the test to end in time.
var chaosRates = map[faultproxy.Class]faultproxy.Rates{
	faultproxy.List: {
		faultproxy.ResetListPage: 0.10, faultproxy.TruncateList: 0.07, faultproxy.Stall: 0.03,
		faultproxy.TooManyRequests: 0.06, faultproxy.InternalError: 0.03,
		faultproxy.ServiceUnavailable: 0.03, faultproxy.GatewayTimeout: 0.03,
	},
	faultproxy.WatchList: {
		faultproxy.ResetWatchListBeforeBookmark: 0.15, faultproxy.ResetWatchListAfterBookmark: 0.15,
		faultproxy.TruncateStream: 0.05, faultproxy.Stall: 0.03, faultproxy.TooManyRequests: 0.05,
		faultproxy.InternalError: 0.03, faultproxy.ServiceUnavailable: 0.03, faultproxy.GatewayTimeout: 0.03,
	},
	faultproxy.Watch: {
		faultproxy.ResetWatch: 0.20, faultproxy.TruncateStream: 0.12, faultproxy.StallStream: 0.05,
		faultproxy.GoneWatch: 0.06, faultproxy.Stall: 0.02, faultproxy.TooManyRequests: 0.04,
		faultproxy.InternalError: 0.02, faultproxy.ServiceUnavailable: 0.02, faultproxy.GatewayTimeout: 0.02,
	},
}

// chaosSeed is the proxies' base seed; KCACHE_CHAOS_SEED overrides it to
// reproduce or vary a run.
func chaosSeed(t *testing.T) uint64 {
	t.Helper()
	if s := os.Getenv("KCACHE_CHAOS_SEED"); s != "" {
		seed, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("KCACHE_CHAOS_SEED=%q: %v", s, err)
		}
		return seed
	}
	return 15
}

// proxied is one watcher's own fault proxy and the objects reader that
// goes through it.
type proxied struct {
	// proxy injects the faults.
	proxy *faultproxy.Proxy
	// o lists and watches through proxy.
	o objects
	// client is the clientset o's REST client belongs to.
	client *kubernetes.Clientset
	// cfg is client's configuration (through proxy), for other clients.
	cfg *rest.Config
}

// newProxied starts a fault proxy in front of the API server with seed and
// rates, and returns the objects of direct's kind and namespace read
// through it. The proxy closes when the test ends.
func newProxied(t *testing.T, direct objects, seed uint64, rates map[faultproxy.Class]faultproxy.Rates) proxied {
	t.Helper()
	return newProxiedWith(t, direct, seed, rates, 150)
}

// newProxiedWith is newProxied with mid-stream faults drawn in the first
// maxEvents events.
func newProxiedWith(t *testing.T, direct objects, seed uint64, rates map[faultproxy.Class]faultproxy.Rates, maxEvents int) proxied {
	t.Helper()
	upstreamCfg := cluster.RESTConfig()
	upstreamCfg.DisableCompression = true
	transport, err := rest.TransportFor(upstreamCfg)
	if err != nil {
		t.Fatal(err)
	}
	upstream, err := url.Parse(cluster.APIServerURL)
	if err != nil {
		t.Fatal(err)
	}
	p, err := faultproxy.New(faultproxy.Config{
		Upstream: upstream, Transport: transport, Seed: seed, ClassRates: rates,
		StallFor: chaosStall, MaxEvents: maxEvents, Trace: true, IndexPerClass: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	addr := p.Start(false)
	t.Cleanup(p.Close)

	base := cluster.RESTConfig()
	cfg := &rest.Config{
		Host: addr, BearerToken: base.BearerToken, QPS: base.QPS, Burst: base.Burst,
		Timeout: chaosClientTimeout,
	}
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return proxied{proxy: p, o: objects{kind: direct.kind, rc: client.CoreV1().RESTClient(), ns: direct.ns}, client: client, cfg: cfg}
}

// chaosSide is one kind under chaos: its namespace, read directly, and
// kcache's informer, kcache's Reflector+Indexer and client-go's informer,
// each behind a proxy of its own with the same seed.
type chaosSide struct {
	// o reads and writes directly, bypassing the proxies.
	o objects
	// ws are the watchers, in chaosWatchers order.
	ws []*watcher
	// proxies are the watchers' proxies, in the same order.
	proxies []*faultproxy.Proxy
}

// chaosWatchers are the watchers of every side, in table order.
var chaosWatchers = []watcherFactory{kcacheInformer, kcacheReflector, clientGoInformer}

// chaosWatcherNames label the table's columns.
var chaosWatchersNames = []string{"kcache informer", "kcache Reflector", "client-go informer"}

// startChaosSide creates a namespace for k and starts the three watchers,
// each through its own proxy seeded with seed: a library that makes the
// same requests as another meets the same faults.
func startChaosSide(t *testing.T, ctx context.Context, k kind, prefix string, seed uint64, rates map[faultproxy.Class]faultproxy.Rates) *chaosSide {
	t.Helper()
	s := &chaosSide{o: objectsIn(t, k, newNamespace(t, ctx, prefix+"-"+k.resource))}
	if _, err := populate(ctx, s.o, "base", chaosBaseObjects, 8); err != nil {
		t.Fatal(err)
	}
	var through []objects
	for range chaosWatchers {
		px := newProxied(t, s.o, seed, rates)
		s.proxies = append(s.proxies, px.proxy)
		through = append(through, px.o)
	}
	// Watchers start after the proxies, so they stop before them.
	wctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { stopWatchers(t, cancel, s.ws) })
	for i, f := range chaosWatchers {
		w, err := f(wctx, through[i], nil)
		if err != nil {
			t.Fatal(err)
		}
		s.ws = append(s.ws, w)
	}
	return s
}

// chaosResult is one side's figures per watcher, in chaosWatchers order.
type chaosResult struct {
	// stats are the proxies' counters.
	stats []faultproxy.Stats
	// relists are the full syncs after the first.
	relists []int64
	// rewatches are the plain watches started.
	rewatches []int64
}

// add sums o into r.
func (r *chaosResult) add(o chaosResult) {
	if r.stats == nil {
		r.stats = make([]faultproxy.Stats, len(o.stats))
		r.relists = make([]int64, len(o.stats))
		r.rewatches = make([]int64, len(o.stats))
	}
	for i := range o.stats {
		r.stats[i].Add(o.stats[i])
		r.relists[i] += o.relists[i]
		r.rewatches[i] += o.rewatches[i]
	}
}

// result collects s's figures.
func (s *chaosSide) result() chaosResult {
	var r chaosResult
	for i, w := range s.ws {
		r.stats = append(r.stats, s.proxies[i].Stats())
		r.relists = append(r.relists, w.lw.initialSyncs()-1)
		r.rewatches = append(r.rewatches, w.lw.watches.Load())
	}
	return r
}

func TestInformersBehindAFaultInjectingProxyLoseNothingAndRelistNoMoreThanClientGo(t *testing.T) {
	seed := chaosSeed(t)
	t.Logf("fault proxy seed %d (KCACHE_CHAOS_SEED reproduces or varies it)", seed)
	var total chaosResult
	for _, mode := range syncModes {
		t.Run(mode.name, func(t *testing.T) {
			// The gate stays set until the watchers have stopped.
			t.Cleanup(setWatchListClientGate(mode.watchList))
			res := chaosRun(t, mode.name, seed, chaosRates, churnSpec{writers: 4, keysPerWriter: 150, ops: 5000})
			t.Logf("fault table, %s (configmaps and secrets, one proxy per watcher, seed %d):\n%s", mode.name, seed, chaosTable(res))
			total.add(res)
		})
	}
	if t.Failed() || total.stats == nil {
		return
	}
	t.Logf("fault table, both list paths:\n%s", chaosTable(total))
	checkNoMoreThanClientGo(t, total, len(syncModes)*len(bothKinds))
}

// chaosRun runs one list path: both kinds at once, each with its three
// watchers behind proxies, under spec's churn per kind; then it checks that
// every watcher converged to the server without a change out of order, and
// returns the figures summed over both kinds.
func chaosRun(t *testing.T, label string, seed uint64, rates map[faultproxy.Class]faultproxy.Rates, spec churnSpec) chaosResult {
	t.Helper()
	ctx := context.Background()
	var sides []*chaosSide
	for i, k := range bothKinds {
		sides = append(sides, startChaosSide(t, ctx, k, "chaos-"+strings.ToLower(label), seed+uint64(i), rates))
	}
	for _, s := range sides {
		waitSynced(t, s.ws, 2*time.Minute)
	}
	start := time.Now()
	err := parallel(len(sides), func(i int) error {
		sp := spec
		sp.seed = seed + uint64(i)
		res, err := churn(ctx, sides[i].o, sp)
		if err == nil {
			t.Logf("%s: %d writers made %s", sides[i].o.kind.resource, sp.writers, res)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d writes in %s", spec.ops*len(sides), time.Since(start).Round(time.Millisecond))
	// Faults stop with the writes: every watcher then converges without
	// new ones, and the figures cover the same window for every library.
	// NB: the window is a request count per class, not a moment: each proxy
	// of a side still faults the requests its busiest peer has already
	// made, so a library whose (jittered) backoff brings its next request a
	// moment after the writes stop still meets the fault its peers met.
	for _, s := range sides {
		var n faultproxy.Progress
		for _, p := range s.proxies {
			n = n.Max(p.Progress())
		}
		for _, p := range s.proxies {
			p.QuiesceFrom(n)
		}
	}
	var res chaosResult
	for _, s := range sides {
		waitConverged(t, ctx, s.o, s.ws, fence(t, ctx, s.o), 3*time.Minute)
		for _, w := range s.ws {
			if w.rec == nil {
				continue
			}
			if d := w.rec.checkOrder(); d != "" {
				t.Errorf("%s %s: a handler saw changes out of order: %s", s.o.kind.resource, w.name, d)
			}
		}
		logCounts(t, label+" "+s.o.kind.resource, s.ws)
		for i, w := range s.ws {
			st := s.proxies[i].Stats()
			t.Logf("%s %s: requests %s; faults %v", s.o.kind.resource, w.name, st.Sequence, st.Log)
			if os.Getenv("KCACHE_CHAOS_TRACE") != "" {
				t.Logf("%s %s: trace:\n    %s", s.o.kind.resource, w.name, strings.Join(st.Trace, "\n    "))
			}
		}
		res.add(s.result())
	}
	return res
}
