package e2e

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientfeatures "k8s.io/client-go/features"
)

// initialSyncObjects is how many objects of each kind the initial-sync test
// lists.
const initialSyncObjects = 5000

// initialSyncRounds is how often each (library, mode) pair syncs; the table
// shows the median.
const initialSyncRounds = 5

// syncMode is one way of getting the initial state.
type syncMode struct {
	// name labels the mode in the table.
	name string
	// watchList is the WatchListClient gate during the sync.
	watchList bool
}

// syncModes are WatchList (the 1.36 default) and paged List.
var syncModes = []syncMode{{"WatchList", true}, {"List", false}}

// syncLibrary is one informer implementation.
type syncLibrary struct {
	// name labels the column.
	name string
	// start starts the informer.
	start watcherFactory
}

var syncLibraries = []syncLibrary{{"kcache", kcacheInformer}, {"client-go", clientGoInformer}}

// TestInitialSync… syncs configmaps (watch cache: a List with
// resourceVersion=0 comes back whole, in one page) and secrets (etcd: the
// List is paged, 500 per page), so both List shapes are covered.
func TestInitialSyncOfFiveThousandObjectsMatchesADirectListThroughWatchListAndThroughList(t *testing.T) {
	for _, k := range bothKinds {
		t.Run(k.resource, func(t *testing.T) {
			ctx := context.Background()
			o := objectsIn(t, k, newNamespace(t, ctx, "initial-sync-"+k.resource))
			start := time.Now()
			if _, err := populate(ctx, o, "obj", initialSyncObjects, 8); err != nil {
				t.Fatal(err)
			}
			t.Logf("created %d %s in %s", initialSyncObjects, k.resource, time.Since(start).Round(time.Millisecond))
			server, _, err := o.serverSnapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(server) != initialSyncObjects {
				t.Fatalf("direct LIST returned %d %s, want %d", len(server), k.resource, initialSyncObjects)
			}

			times := map[string][]time.Duration{}
			pages := map[string]int64{}
			for round := 0; round < initialSyncRounds; round++ {
				for _, mode := range syncModes {
					for _, lib := range syncLibraries {
						d, p := timeInitialSync(t, o, server, lib, mode)
						key := mode.name + "/" + lib.name
						times[key] = append(times[key], d)
						pages[mode.name] = p
					}
				}
			}
			t.Logf("initial sync of %d %s (median of %d runs; from start to HasSynced of informer and handler):\n%s",
				initialSyncObjects, k.resource, initialSyncRounds, syncTable(times, pages))
		})
	}
}

// timeInitialSync runs one informer of lib in mode until it has synced,
// checks that its cache equals server, stops it and returns the time from
// its start to HasSynced and the number of List pages it fetched.
func timeInitialSync(t *testing.T, o objects, server snapshot, lib syncLibrary, mode syncMode) (time.Duration, int64) {
	t.Helper()
	restore := setWatchListClientGate(mode.watchList)
	defer restore()
	ctx, cancel := context.WithCancel(context.Background())
	var ws []*watcher
	defer func() { stopWatchers(t, cancel, ws) }()

	start := time.Now()
	w, err := lib.start(ctx, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	ws = append(ws, w)
	deadline := start.Add(time.Minute)
	for !w.synced() {
		if time.Now().After(deadline) {
			t.Fatalf("%s via %s: not synced after a minute", lib.name, mode.name)
		}
		time.Sleep(time.Millisecond)
	}
	elapsed := time.Since(start)

	if d := server.diff(snapshotOf(o.kind, w.cached())); d != "" {
		t.Errorf("%s via %s: cache differs from the direct LIST: %s", lib.name, mode.name, d)
	}
	if d := w.rec.checkFinals(server); d != "" {
		t.Errorf("%s via %s: handler: %s", lib.name, mode.name, d)
	}
	streams, lists := w.lw.streams.Load(), w.lw.lists.Load()
	if mode.watchList && (streams != 1 || lists != 0) || !mode.watchList && (streams != 0 || lists != 1) {
		t.Errorf("%s via %s: made %d WatchList streams and %d lists", lib.name, mode.name, streams, lists)
	}
	t.Logf("%-9s via %-9s synced %d objects in %s (lists=%d pages=%d watchlist-streams=%d)",
		lib.name, mode.name, len(w.cached()), elapsed.Round(time.Millisecond), lists, w.lw.pages.Load(), streams)
	return elapsed, w.lw.pages.Load()
}

// syncTable renders median sync times: one row per mode, kcache and
// client-go side by side, with the List pages each sync fetched.
func syncTable(times map[string][]time.Duration, pages map[string]int64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "    %-10s %11s %10s %10s %17s\n", "mode", "List pages", "kcache", "client-go", "kcache/client-go")
	for _, mode := range syncModes {
		kc := median(times[mode.name+"/kcache"])
		cg := median(times[mode.name+"/client-go"])
		fmt.Fprintf(&b, "    %-10s %11d %10s %10s %17.2f\n", mode.name, pages[mode.name],
			kc.Round(time.Millisecond), cg.Round(time.Millisecond), kc.Seconds()/cg.Seconds())
	}
	return b.String()
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// watchListGate overrides the WatchListClient gate while a test asks it to
// and defers every other gate to the gates it replaced. kcache and client-go
// both read the gates from k8s.io/client-go/features, so one override
// switches both. TestMain installs it once, before anything reads a gate
// (replacing gates later makes client-go log a warning on every switch).
type watchListGate struct {
	// base answers every other gate, and WatchListClient when not overridden.
	base clientfeatures.Gates
	// override is nil, or the WatchListClient setting a test asked for.
	override atomic.Pointer[bool]
}

func (g *watchListGate) Enabled(f clientfeatures.Feature) bool {
	if f == clientfeatures.WatchListClient {
		if on := g.override.Load(); on != nil {
			return *on
		}
	}
	return g.base.Enabled(f)
}

// gates is the override TestMain installed.
var gates *watchListGate

// installGates puts gates in place of client-go's feature gates.
func installGates() {
	gates = &watchListGate{base: clientfeatures.FeatureGates()}
	clientfeatures.ReplaceFeatureGates(gates)
}

// gateMu keeps gate overrides from overlapping.
var gateMu sync.Mutex

// setWatchListClientGate sets WatchListClient for the process and returns
// the function that restores the default.
func setWatchListClientGate(on bool) (restore func()) {
	gateMu.Lock()
	gates.override.Store(&on)
	return func() {
		gates.override.Store(nil)
		gateMu.Unlock()
	}
}
