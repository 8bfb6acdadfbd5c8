//go:build profile

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// profiledConfigs are the configurations the sync profile compares.
var profiledConfigs = []string{"client-go", "kcache+fastlw", "kcache+fastlw+Rec", "kcache+fastlw+Rec early"}

// TestProfilingTheWatchListJSONSyncWritesACPUAndAHeapProfilePerConfiguration
// (build tag profile: `make profile-e2e`) needs KCACHE_BENCH_E2E_PROFILE, a
// directory: for the first
// size of KCACHE_BENCH_E2E_PODS it syncs each of profiledConfigs once
// through WatchList as JSON and writes <config>.cpu.pprof (the process, from
// Run to HasSynced) and <config>.heap.pprof (the in-use heap of the last
// garbage collection before HasSynced: the sync's peak or near it).
func TestProfilingTheWatchListJSONSyncWritesACPUAndAHeapProfilePerConfiguration(t *testing.T) {
	dir := os.Getenv("KCACHE_BENCH_E2E_PROFILE")
	if dir == "" {
		t.Fatal("KCACHE_BENCH_E2E_PROFILE: set it to the directory the profiles go to (make profile-e2e does)")
	}
	sizes, _ := benchSizes(t)
	clients := benchClients(t)
	populateBenchCluster(t, context.Background(), sizes[0], clients)
	defer setWatchListClientGate(true)()
	for _, cfg := range syncConfigs {
		if !profiled(cfg.name) {
			continue
		}
		name := strings.ReplaceAll(strings.ReplaceAll(cfg.name, "+", "_"), " ", "_")
		elapsed := profileSync(t, cfg, clients["json"].CoreV1().RESTClient(), filepath.Join(dir, name))
		t.Logf("%s: synced %d pods in %s", cfg.name, sizes[0], elapsed.Round(time.Millisecond))
	}
}

// profiled reports whether name is one of profiledConfigs.
func profiled(name string) bool {
	for _, p := range profiledConfigs {
		if p == name {
			return true
		}
	}
	return false
}

// profileSync syncs cfg once, profiling the CPU from Run to HasSynced
// into prefix.cpu.pprof, and writes the heap profile at HasSynced into
// prefix.heap.pprof.
func profileSync(t *testing.T, cfg syncConfig, rc rest.Interface, prefix string) time.Duration {
	t.Helper()
	settledHeap()
	cpu, err := os.Create(prefix + ".cpu.pprof")
	if err != nil {
		t.Fatal(err)
	}
	defer cpu.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	if err := pprof.StartCPUProfile(cpu); err != nil {
		t.Fatal(err)
	}
	ri, err := cfg.start(ctx, rc)
	if err != nil {
		pprof.StopCPUProfile()
		t.Fatal(err)
	}
	waitFor(t, fmt.Sprintf("%s: initial sync", cfg.name), 5*time.Minute, ri.synced)
	pprof.StopCPUProfile()
	elapsed := time.Since(start)
	heap, err := os.Create(prefix + ".heap.pprof")
	if err != nil {
		t.Fatal(err)
	}
	defer heap.Close()
	if err := pprof.Lookup("heap").WriteTo(heap, 0); err != nil {
		t.Fatal(err)
	}
	cancel()
	<-ri.done
	return elapsed
}
