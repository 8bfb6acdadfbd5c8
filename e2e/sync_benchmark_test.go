package e2e

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
)

// The sync benchmark (issue 27): realistic pods (internal/realisticpods)
// created in the e2e kube-apiserver, synced by each configuration
// (syncConfigs) through each list path (paged List, WatchList) and each
// content type (JSON, protobuf), alternated, in rounds; then the same
// informer relists after an injected 410. `make e2e` runs a short variant
// (benchDefaultPods pods, one round); `make bench-e2e` the real one.

// benchDefaultPods and benchDefaultRounds are the short variant's sizes.
const (
	benchDefaultPods   = 500
	benchDefaultRounds = 1
)

// benchContentTypes are the content types, by client name.
var benchContentTypes = []string{"json", "protobuf"}

// benchSizes reads KCACHE_BENCH_E2E_PODS (comma-separated pod counts) and
// KCACHE_BENCH_E2E_ROUNDS.
func benchSizes(t *testing.T) (sizes []int, rounds int) {
	t.Helper()
	sizes, rounds = []int{benchDefaultPods}, benchDefaultRounds
	if v := os.Getenv("KCACHE_BENCH_E2E_PODS"); v != "" {
		sizes = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n <= 0 {
				t.Fatalf("KCACHE_BENCH_E2E_PODS=%q: want positive pod counts, comma-separated", v)
			}
			sizes = append(sizes, n)
		}
	}
	if v := os.Getenv("KCACHE_BENCH_E2E_ROUNDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("KCACHE_BENCH_E2E_ROUNDS=%q: want a positive number", v)
		}
		rounds = n
	}
	return sizes, rounds
}

// benchSelected reads KCACHE_BENCH_E2E_ONLY (comma-separated path/type
// pairs such as "List/json"; empty for all) and reports whether the list
// path mode and the content type ct are benchmarked.
func benchSelected(t *testing.T, mode, ct string) bool {
	t.Helper()
	only := os.Getenv("KCACHE_BENCH_E2E_ONLY")
	if only == "" {
		return true
	}
	for _, pair := range strings.Split(only, ",") {
		path, typ, ok := strings.Cut(strings.TrimSpace(pair), "/")
		if !ok {
			t.Fatalf("KCACHE_BENCH_E2E_ONLY=%q: want path/type pairs such as List/json", only)
		}
		if path == mode && typ == ct {
			return true
		}
	}
	return false
}

// benchClients are one clientset per content type: JSON only, and
// protobuf (with JSON accepted, as controllers ask).
func benchClients(t *testing.T) map[string]*kubernetes.Clientset {
	t.Helper()
	out := map[string]*kubernetes.Clientset{}
	for _, ct := range benchContentTypes {
		cfg := cluster.RESTConfig()
		cfg.ContentType = runtime.ContentTypeJSON
		cfg.AcceptContentTypes = runtime.ContentTypeJSON
		if ct == "protobuf" {
			cfg.ContentType = runtime.ContentTypeProtobuf
			cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
		}
		client, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		out[ct] = client
	}
	return out
}

func TestSyncingRealisticPodsFromTheAPIServerFillsEveryConfigurationsCacheAndMeasuresItsCost(t *testing.T) {
	sizes, rounds := benchSizes(t)
	clients := benchClients(t)
	for _, n := range sizes {
		t.Run(fmt.Sprintf("pods=%d", n), func(t *testing.T) {
			shape := populateBenchCluster(t, context.Background(), n, clients)
			keys := sampleKeys(shape)
			results := benchResults{}
			for round := 0; round < rounds; round++ {
				for _, mode := range syncModes {
					for _, ct := range benchContentTypes {
						if !benchSelected(t, mode.name, ct) {
							continue
						}
						for k := range syncConfigs {
							// Rotate the order every round, so that no
							// configuration always runs first.
							cfg := syncConfigs[(k+round)%len(syncConfigs)]
							s := measureSync(t, cfg, mode, clients[ct].CoreV1().RESTClient(), shape, keys)
							results.add(benchRow{cfg.name, mode.name, ct}, s)
							t.Logf("round %d: %-23s %-9s %-8s sync %s, relist %s", round+1, cfg.name, mode.name, ct,
								s.sync.elapsed.Round(timeResolution), s.relist.elapsed.Round(timeResolution))
						}
					}
				}
			}
			t.Logf("sync benchmark, medians of %d rounds:\n%s\n%s", rounds, benchMachine(shape, n), results.table())
		})
	}
}
