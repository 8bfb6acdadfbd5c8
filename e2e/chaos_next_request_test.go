package e2e

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kcache-go/cache/e2e/faultproxy"
)

// nextRequestCase is one fault injected into every request of a class: the
// first few requests each informer makes then show how it reacts.
type nextRequestCase struct {
	// watchList is the WatchListClient gate.
	watchList bool
	// class and fault are what is injected; at is the position the first
	// faulted request draws (events, or percent of a LIST body).
	class faultproxy.Class
	fault faultproxy.Fault
	at    int
}

// nextRequestCases cover every fault on the request where it first
// applies: the initial WatchList stream or LIST, or the first watch.
func nextRequestCases() []nextRequestCase {
	var out []nextRequestCase
	for at := 0; at < 5; at++ {
		out = append(out, nextRequestCase{true, faultproxy.WatchList, faultproxy.ResetWatchListAfterBookmark, at})
	}
	out = append(out,
		nextRequestCase{true, faultproxy.WatchList, faultproxy.ResetWatchListBeforeBookmark, 5},
		nextRequestCase{true, faultproxy.WatchList, faultproxy.TruncateStream, 5},
		nextRequestCase{false, faultproxy.List, faultproxy.ResetListPage, 40},
		nextRequestCase{false, faultproxy.List, faultproxy.TruncateList, 40},
	)
	for _, f := range []faultproxy.Fault{faultproxy.ResetWatch, faultproxy.TruncateStream, faultproxy.GoneWatch} {
		out = append(out, nextRequestCase{false, faultproxy.Watch, f, 1})
	}
	for _, f := range []faultproxy.Fault{faultproxy.InternalError, faultproxy.ServiceUnavailable, faultproxy.GatewayTimeout, faultproxy.TooManyRequests} {
		out = append(out,
			nextRequestCase{true, faultproxy.WatchList, f, -1},
			nextRequestCase{false, faultproxy.List, f, -1},
			nextRequestCase{false, faultproxy.Watch, f, -1})
	}
	return out
}

// TestAfterEachKindOfFaultKcacheMakesTheSameNextRequestsAsClientGo injects
// one kind of fault into every request of one class (so the informer meets
// it again on each retry) and compares the first three requests kcache's
// and client-go's informers make: their classes and list options
// (resourceVersion values aside, as they depend on the writes).
func TestAfterEachKindOfFaultKcacheMakesTheSameNextRequestsAsClientGo(t *testing.T) {
	for _, tc := range nextRequestCases() {
		mode := "List"
		if tc.watchList {
			mode = "WatchList"
		}
		t.Run(fmt.Sprintf("%s/%v on %v at %d", mode, tc.fault, tc.class, tc.at), func(t *testing.T) {
			t.Cleanup(setWatchListClientGate(tc.watchList))
			rates := map[faultproxy.Class]faultproxy.Rates{tc.class: {tc.fault: 1}}
			// The proxies number requests per class: the first request of
			// tc.class draws index 0 (for watches: the first after the
			// initial sync).
			seed := seedFor(t, rates, 0, tc.class, tc.fault, tc.at)
			got := firstRequests(t, seed, rates, []watcherFactory{kcacheInformer, clientGoInformer}, 3)
			t.Logf("seed %d:\n    kcache:    %s\n    client-go: %s", seed, strings.Join(got[0], " | "), strings.Join(got[1], " | "))
			if fmt.Sprint(got[0]) != fmt.Sprint(got[1]) {
				t.Errorf("after %v on a %v request, kcache asked %q, client-go %q", tc.fault, tc.class, got[0], got[1])
			}
		})
	}
}

// seedFor returns a seed whose request index of class c draws fault f at
// position at (any position when at < 0), under rates.
func seedFor(t *testing.T, rates map[faultproxy.Class]faultproxy.Rates, index uint64, c faultproxy.Class, f faultproxy.Fault, at int) uint64 {
	t.Helper()
	for seed := uint64(1); seed < 100000; seed++ {
		p, err := faultproxy.New(faultproxy.Config{Upstream: mustParse(t, cluster.APIServerURL), Seed: seed, ClassRates: rates, MaxEvents: 150, IndexPerClass: true})
		if err != nil {
			t.Fatal(err)
		}
		if gf, gat := p.Plan(index, c); gf == f && (at < 0 || gat == at) {
			return seed
		}
	}
	t.Fatalf("no seed puts %v at %d", f, at)
	return 0
}

// firstRequests starts each factory's informer behind its own proxy (seed,
// rates) on a namespace with steady writes and returns the first n
// requests each proxy saw (class and list options, resourceVersion values
// blanked), waiting up to 30s for them.
func firstRequests(t *testing.T, seed uint64, rates map[faultproxy.Class]faultproxy.Rates, factories []watcherFactory, n int) [][]string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := objectsIn(t, configMaps, newNamespace(t, ctx, "repro"))
	if _, err := populate(ctx, o, "obj", 20, 4); err != nil {
		t.Fatal(err)
	}
	go steadyWrites(ctx, o)
	var proxies []*faultproxy.Proxy
	wctx, stop := context.WithCancel(ctx)
	var ws []*watcher
	for _, f := range factories {
		px := newProxied(t, o, seed, rates)
		proxies = append(proxies, px.proxy)
		w, err := f(wctx, px.o, nil)
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	defer stopWatchers(t, stop, ws)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		done := true
		for _, p := range proxies {
			done = done && len(p.Stats().Trace) >= n
		}
		if done {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	out := make([][]string, len(proxies))
	for i, p := range proxies {
		for _, line := range p.Stats().Trace {
			f := strings.Fields(line) // #i +t class opts -> status
			req := f[2] + " " + rvValue.ReplaceAllString(strings.Join(f[3:len(f)-2], " "), "resourceVersion=N")
			if len(out[i]) < n {
				out[i] = append(out[i], strings.TrimSpace(req))
			}
		}
		for len(out[i]) < n {
			out[i] = append(out[i], "none")
		}
	}
	return out
}

// rvValue matches a resourceVersion option with its value.
var rvValue = regexp.MustCompile(`resourceVersion=[0-9]+`)

// steadyWrites updates one object every 100ms until ctx ends, so that
// streams carry events after their bookmark.
func steadyWrites(ctx context.Context, o objects) {
	obj, err := o.create(ctx, o.kind.build("ticker", dataFor(0)))
	for v := 1; err == nil && ctx.Err() == nil; v++ {
		time.Sleep(100 * time.Millisecond)
		next := o.kind.build("ticker", dataFor(v))
		mustMeta(next).SetResourceVersion(mustMeta(obj).GetResourceVersion())
		obj, err = o.update(ctx, next)
	}
}

func mustParse(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
