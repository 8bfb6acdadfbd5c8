package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kcache-go/cache/clientgo"
	"github.com/kcache-go/cache/e2e/faultproxy"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	clientgocache "k8s.io/client-go/tools/cache"
)

// The differential of issue 27 item 2: kcache's typed factory on fastlw
// (its default for a real clientset) against the same factory on the plain
// path (WithPlainListWatch), each informer behind a fault proxy of its own
// with the same seed, for every fault kind on every request class it
// applies to, on both list paths. Writes go in lockstep (each one waits
// until both informers have delivered it), so both sides see every change
// in the same order whatever faults, retries and relists they meet.

// fastlwBaseObjects are created before the informers start: more than a
// LIST page of 500, so that a paged LIST takes two pages (fastlw prefetches
// the second) and a WatchList stream is long.
const fastlwBaseObjects = 520

// fastlwWrites are the fewest lockstep writes after the initial sync.
const fastlwWrites = 36

// fastlwMaxEvents bounds where mid-stream faults strike, so that they
// strike within the writes' events.
const fastlwMaxEvents = 12

// fastlwCase is one fault injected into one class of requests on one list
// path.
type fastlwCase struct {
	mode  syncMode
	kind  kind
	class faultproxy.Class
	fault faultproxy.Fault
}

// fastlwCases are every fault kind on every class it applies to, on both
// list paths: the paged LIST path on secrets (etcd, so pages of 500), the
// WatchList path on configmaps (the watch cache, which serves WatchList).
func fastlwCases() []fastlwCase {
	var out []fastlwCase
	for _, mode := range syncModes {
		k, first := secrets, faultproxy.List
		if mode.watchList {
			k, first = configMaps, faultproxy.WatchList
		}
		for _, class := range []faultproxy.Class{first, faultproxy.Watch} {
			for _, f := range faultproxy.Faults() {
				if f.AppliesTo(class) {
					out = append(out, fastlwCase{mode, k, class, f})
				}
			}
		}
	}
	return out
}

func TestTheTypedFactoryOnFastlwDeliversThePlainPathsDeltasInTheSameOrderUnderEveryFault(t *testing.T) {
	for _, tc := range fastlwCases() {
		t.Run(fmt.Sprintf("%s/%v on %v", tc.mode.name, tc.fault, tc.class), func(t *testing.T) {
			t.Cleanup(setWatchListClientGate(tc.mode.watchList))
			runFastlwCase(t, tc, typedFactorySide)
		})
	}
}

// fastlwSideNames are the names of the two factories compared, in order:
// the plain one first.
var fastlwSideNames = []string{"plain", "fastlw"}

// factorySide starts one side's informer: on the plain path or on fastlw.
type factorySide func(ctx context.Context, px proxied, name string, plain bool) *watcher

// typedFactorySide is the typed factory, WithPlainListWatch for the plain
// side.
func typedFactorySide(ctx context.Context, px proxied, name string, plain bool) *watcher {
	var options []informers.SharedInformerOption
	if plain {
		options = append(options, clientgo.WithPlainListWatch())
	}
	return factoryWatcher(ctx, px, name, options)
}

// runFastlwCase runs one case: both sides sync, meet tc's fault, follow the
// lockstep writes and converge; their deltas must be the writes, in order,
// on both.
func runFastlwCase(t *testing.T, tc fastlwCase, start factorySide) {
	ctx := context.Background()
	o := objectsIn(t, tc.kind, newNamespace(t, ctx, "fastlw-"+strings.ToLower(tc.mode.name)))
	base, err := populate(ctx, o, "base", fastlwBaseObjects, 8)
	if err != nil {
		t.Fatal(err)
	}
	rates := map[faultproxy.Class]faultproxy.Rates{tc.class: {tc.fault: 0.5}}
	seed := earlyFaultSeed(t, rates, tc.class, tc.fault)
	var proxies []*faultproxy.Proxy
	var ws []*watcher
	wctx, cancel := context.WithCancel(ctx)
	t.Cleanup(func() { stopWatchers(t, cancel, ws) })
	for i, name := range fastlwSideNames {
		px := newProxiedWith(t, o, seed, rates, fastlwMaxEvents)
		proxies = append(proxies, px.proxy)
		ws = append(ws, start(wctx, px, name, i == 0))
	}
	metFault := quiesceOnceMet(proxies, tc.fault)
	poll(t, 3*time.Minute, "initial sync", func() string {
		metFault()
		for _, w := range ws {
			if !w.synced() {
				return w.name + " has not synced"
			}
		}
		return ""
	})
	want := expectedDeltas(o, base)
	lockstepWrites(t, ctx, o, base, ws, want, metFault)
	for _, p := range proxies {
		p.Quiesce()
	}
	waitConverged(t, ctx, o, ws, fence(t, ctx, o), 3*time.Minute)
	for i, w := range ws {
		st := proxies[i].Stats()
		t.Logf("%s: requests %s; faults %v", w.name, st.Sequence, st.Log)
		if st.Injected[tc.fault] == 0 {
			t.Errorf("%s never met %v; its requests:\n    %s", w.name, tc.fault, strings.Join(st.Trace, "\n    "))
		}
	}
	requireAlikeListRequests(t, proxies[0].Stats().Sequence, proxies[1].Stats().Sequence)
	plain, fast := deltasOf(ws[0].rec), deltasOf(ws[1].rec)
	if d := diffDeltas(plain, fast); d != "" {
		t.Errorf("plain and fastlw delivered different deltas: %s", d)
	}
	if d := diffDeltas(want, fast); d != "" {
		t.Errorf("fastlw's deltas are not the writes: %s", d)
	}
	t.Logf("%d keys: plain and fastlw delivered the same deltas in the same order, the writes' own", len(fast))
}

// listRequestSlack is how many more (or fewer) list requests, LISTs and
// WatchList streams, one side may send than the other: the API server's
// compaction ends a watch with a 410, and so causes a relist, at moments
// of its own (in 99 pairs of make test's runs, 2 differed, by one).
const listRequestSlack = 2

// requireAlikeListRequests fails unless the sides' request sequences
// (faultproxy's Stats.Sequence) hold as many list requests, within
// listRequestSlack: equal deltas alone do not show that fastlw behaves
// (it once relisted after every watch and still converged).
func requireAlikeListRequests(t *testing.T, plain, fast string) {
	t.Helper()
	lists := func(seq string) int { return strings.Count(seq, "l") + strings.Count(seq, "s") }
	if p, f := lists(plain), lists(fast); f > p+listRequestSlack || p > f+listRequestSlack {
		t.Errorf("plain sent %d list requests, fastlw %d:\nplain  %s\nfastlw %s", p, f, plain, fast)
	}
}

// factoryWatcher starts the secrets or configmaps informer of a kcache
// typed factory on px's clientset (scoped to px's namespace) with a
// recorder.
func factoryWatcher(ctx context.Context, px proxied, name string, options []informers.SharedInformerOption) *watcher {
	options = append([]informers.SharedInformerOption{informers.WithNamespace(px.o.ns)}, options...)
	factory := clientgo.NewSharedInformerFactoryWithOptions(px.client, 0, options...)
	generic, err := factory.ForResource(schema.GroupVersionResource{Version: "v1", Resource: px.o.kind.resource})
	if err != nil {
		panic(err)
	}
	return startedWatcher(px, name, generic.Informer(), func() { factory.StartWithContext(ctx); factory.Shutdown() })
}

// startedWatcher records inf's notifications and calls run, which runs inf
// until the test's context is done and returns once it returned.
func startedWatcher(px proxied, name string, inf clientgocache.SharedIndexInformer, run func()) *watcher {
	rec := newRecorder(px.o.kind)
	reg, err := inf.AddEventHandler(rec)
	if err != nil {
		panic(err)
	}
	w := &watcher{
		name: name, rec: rec, cached: inf.GetStore().List, lastRV: inf.LastSyncResourceVersion,
		synced: func() bool { return inf.HasSynced() && reg.HasSynced() },
		done:   make(chan struct{}),
	}
	go func() { defer close(w.done); run() }()
	return w
}

// quiesceOnceMet returns a check that stops each proxy's faulting once its
// side has met fault and reports whether every side has. Quiescing each
// side on its own keeps relists the API server's compaction causes (at
// moments of its own) from holding one side in backoff past the polls
// while the other, luckier, side has not met the fault yet.
func quiesceOnceMet(proxies []*faultproxy.Proxy, fault faultproxy.Fault) func() bool {
	return func() bool {
		all := true
		for _, p := range proxies {
			if p.Stats().Injected[fault] == 0 {
				all = false
				continue
			}
			p.Quiesce()
		}
		return all
	}
}

// earlyFaultSeed returns a seed whose first request of class c draws f
// early in its stream (or body), so that both sides meet it.
func earlyFaultSeed(t *testing.T, rates map[faultproxy.Class]faultproxy.Rates, c faultproxy.Class, f faultproxy.Fault) uint64 {
	t.Helper()
	for seed := uint64(1); seed < 100000; seed++ {
		p, err := faultproxy.New(faultproxy.Config{Upstream: mustParse(t, cluster.APIServerURL), Seed: seed, ClassRates: rates, MaxEvents: fastlwMaxEvents, IndexPerClass: true})
		if err != nil {
			t.Fatal(err)
		}
		if gf, at := p.Plan(0, c); gf == f && at <= 4 {
			return seed
		}
	}
	t.Fatalf("no seed puts %v early on the first %v request", f, c)
	return 0
}

// delta is one notification as the differential compares it.
type delta = notification

// deltasOf returns, per key, the changes r's handler saw (see changesOf),
// leaving out the fence objects.
func deltasOf(r *recorder) map[string][]delta {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string][]delta{}
	for key, h := range r.history {
		if !strings.Contains(key, "/zz-fence-") {
			out[key] = changesOf(h)
		}
	}
	return out
}

// changesOf returns the changes among one key's notifications, in order:
// an update that repeats the previous notification's resourceVersion and
// data (a relist replacing an object by itself) is no change and left out,
// and a delete keeps only its op (a watch event and a relist report
// different resourceVersions for the same deletion).
func changesOf(h []notification) []delta {
	var ds []delta
	for _, n := range h {
		if n.op == "delete" {
			n = delta{op: "delete"}
		}
		if last := len(ds) - 1; last >= 0 && n.op == "update" && ds[last].op != "delete" && ds[last].rv == n.rv && ds[last].data == n.data {
			continue
		}
		ds = append(ds, n)
	}
	return ds
}

// diffDeltas returns "" when a and b hold the same deltas per key.
func diffDeltas(a, b map[string][]delta) string {
	var bad []string
	for key, da := range a {
		if db := b[key]; fmt.Sprint(da) != fmt.Sprint(db) {
			bad = append(bad, fmt.Sprintf("%s: %v vs %v", key, da, db))
		}
	}
	for key := range b {
		if _, ok := a[key]; !ok {
			bad = append(bad, "only the second has "+key)
		}
	}
	return summarize(bad)
}

// expectedDeltas starts the expected deltas: an add of every base object.
func expectedDeltas(o objects, base []runtime.Object) map[string][]delta {
	want := map[string][]delta{}
	for _, obj := range base {
		m := mustMeta(obj)
		want[o.ns+"/"+m.GetName()] = []delta{{op: "add", rv: m.GetResourceVersion(), data: o.kind.data(obj)}}
	}
	return want
}

// lockstepWrites makes writes (creates, and updates and deletes of base
// objects, in turn), each after every watcher delivered the one before, and
// appends each to want: at least fastlwWrites, and more until done reports
// true (a fault on a watch that comes late needs events), as long as base
// objects last.
func lockstepWrites(t *testing.T, ctx context.Context, o objects, base []runtime.Object, ws []*watcher, want map[string][]delta, done func() bool) {
	t.Helper()
	for i := 0; i < len(base) && (!done() || i < fastlwWrites); i++ {
		var obj runtime.Object
		var err error
		name := mustMeta(base[i]).GetName()
		d := delta{op: "delete"}
		switch i % 3 {
		case 0:
			name = fmt.Sprintf("new-%03d", i)
			obj, err = o.create(ctx, o.kind.build(name, dataFor(i)))
			d.op = "add"
		case 1:
			next := o.kind.build(name, dataFor(i))
			mustMeta(next).SetResourceVersion(mustMeta(base[i]).GetResourceVersion())
			obj, err = o.update(ctx, next)
			d.op = "update"
		default:
			err = o.delete(ctx, name)
		}
		if err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		if obj != nil {
			d.rv, d.data = mustMeta(obj).GetResourceVersion(), o.kind.data(obj)
		}
		key := o.ns + "/" + name
		want[key] = append(want[key], d)
		poll(t, 2*time.Minute, fmt.Sprintf("write %d (%s %s) delivered", i, d.op, name), func() string {
			for _, w := range ws {
				if got, all := lastDelta(w.rec, key); got != d {
					return fmt.Sprintf("%s's last change for %s is %v (of %v)", w.name, key, got, all)
				}
			}
			return ""
		})
	}
}

// lastDelta returns r's last change for key (see changesOf), and all of
// them for a failure to show.
func lastDelta(r *recorder, key string) (delta, []delta) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ds := changesOf(r.history[key])
	if len(ds) == 0 {
		return delta{}, nil
	}
	return ds[len(ds)-1], ds
}
