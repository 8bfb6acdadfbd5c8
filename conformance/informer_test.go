package conformance

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// informerMinScenarios is the least number of scenario files the suite
// accepts, so that a lost testdata directory cannot pass silently.
const informerMinScenarios = 30

// informerScenarioDir holds the informer scenarios.
var informerScenarioDir = filepath.Join("..", "testdata", "informer")

// TestInformerGivesTheSameNotificationsCacheAndSyncStatesAsClientGo plays
// every scenario of testdata/informer, in every queue mode, against
// client-go's SharedIndexInformer and kcache's, and requires identical
// traces: per-handler notification sequences, cache and index contents,
// HasSynced of the informer and of every registration after every step,
// errors, transform calls and source calls. Modes change process-global
// feature gates, so nothing here runs in parallel.
func TestInformerGivesTheSameNotificationsCacheAndSyncStatesAsClientGo(t *testing.T) {
	informerCompareScenarios(t, informerBuildKcache, "kcache", true)
}

// informerCompareScenarios plays every scenario of testdata/informer in
// every queue mode it runs in against client-go's informer and the one
// build makes (named subject in the failure), and requires identical
// traces; watchList also requires client-go's trace to show the WatchList
// path where the mode turns it on.
func informerCompareScenarios(t *testing.T, build func(lw *informerScriptedSource, resync time.Duration, indexers []string) informerUnderTest, subject string, watchList bool) {
	scenarios := informerLoadScenarios(t, informerScenarioDir)
	if len(scenarios) < informerMinScenarios {
		t.Fatalf("found %d scenarios in %s, want at least %d", len(scenarios), informerScenarioDir, informerMinScenarios)
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			for _, mode := range informerModes {
				if !informerRunsIn(sc, mode.Name) {
					continue
				}
				t.Run(mode.Name, func(t *testing.T) {
					informerSetGates(t, mode.Gates)
					want := informerPlay(t, sc, informerBuildClientGo)
					got := informerPlay(t, sc, build)
					if informerTraceIsEmpty(want) {
						t.Fatal("client-go produced an empty trace; the scenario observes nothing")
					}
					if watchList {
						informerRequireWatchListUse(t, want)
					}
					if !reflect.DeepEqual(want, got) {
						t.Errorf("%s differs from client-go:\n%s", subject, informerDiff(want, got))
					}
				})
			}
		})
	}
}

// informerRequireWatchListUse fails a WatchList mode whose client-go trace
// shows no WatchList request, so that the mode cannot silently degrade to
// List and Watch.
func informerRequireWatchListUse(t *testing.T, want informerTrace) {
	t.Helper()
	if !informerWatchListOn() || len(want.SourceCalls) == 0 {
		return
	}
	if !strings.Contains(want.SourceCalls[0], "initial-events=true") {
		t.Fatalf("WatchList mode, but client-go's first source call is %q", want.SourceCalls[0])
	}
}

// informerTraceIsEmpty reports whether a trace holds no observation at all.
func informerTraceIsEmpty(tr informerTrace) bool {
	for _, events := range tr.Handlers {
		for _, e := range events {
			if !strings.HasPrefix(e, "-- ") {
				return false
			}
		}
	}
	return len(tr.Checks) <= 1
}

// informerDiff describes where two traces differ, part by part.
func informerDiff(want, got informerTrace) string {
	var b strings.Builder
	lines := func(part string, w, g []string) { informerDiffPart(&b, informerDiffOneLine, part, w, g) }
	names := map[string]bool{}
	for n := range want.Handlers {
		names[n] = true
	}
	for n := range got.Handlers {
		names[n] = true
	}
	for n := range names {
		lines("handler "+n, want.Handlers[n], got.Handlers[n])
	}
	lines("syncs", want.Syncs, got.Syncs)
	lines("checks", want.Checks, got.Checks)
	lines("errors", want.Errors, got.Errors)
	lines("source calls", want.SourceCalls, got.SourceCalls)
	if want.TransformCalls != got.TransformCalls {
		fmt.Fprintf(&b, "transform calls: client-go %d, kcache %d\n", want.TransformCalls, got.TransformCalls)
	}
	return b.String()
}
