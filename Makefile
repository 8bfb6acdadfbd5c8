# kcache developer targets. `make test` is what CI runs.
GO      ?= go
PKGS    ?= ./...
APICOVER_DIR ?= ../shared/tools/apicover
BENCHTIME ?= 1x
BENCH   ?= .

.PHONY: test unit fmt-check vet conformance compat bench bench-rounds apicover e2e soak demo browser chromium

## test: everything CI checks (format, vet, unit + conformance tests with
## -race, the client-go v0.37 differential suite, the debug page in a
## headless browser, and the end-to-end suite against a real kube-apiserver
## and etcd)
test: fmt-check vet unit compat browser e2e

## unit: unit and conformance tests, with the race detector. Every go test
## has an explicit -timeout: the slowest package, conformance/, took 860 s
## at -cpu 1 beside two CPU hogs before its slowest differentials were cut
## (issue 29 item 18), so UNIT_TIMEOUT leaves more than twice that
UNIT_TIMEOUT ?= 40m
unit:
	$(GO) test -race -count=1 -timeout $(UNIT_TIMEOUT) $(PKGS)
	cd examples/controller-runtime && $(GO) test -race -count=1 -timeout 15m ./...
	cd cmd/kcache-switch && $(GO) test -race -count=1 -timeout 15m ./...

fmt-check:
	@out="$$(gofmt -l .)"; if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)
	cd e2e && $(GO) vet ./... && $(GO) vet -tags soak ./...
	cd browsertest && $(GO) vet ./...
	cd examples/controller-runtime && $(GO) vet ./...
	cd compat137 && $(GO) vet ./...
	cd cmd/kcache-switch && $(GO) vet ./...

## conformance: the differential suite against client-go's tools/cache
conformance:
	$(GO) test -race -count=1 -timeout $(UNIT_TIMEOUT) -v ./conformance/

## compat: the differential suite of the v0.37 API (typed handlers and
## indexers, ShutDownEventHandler, MutationCacheOptions) against client-go
## v0.37.2, in its own module (compat137/) that resolves client-go v0.37.2
compat:
	cd compat137 && $(GO) test -race -count=1 -timeout 15m ./...

## bench: kcache and client-go side by side (BENCH=regexp BENCHTIME=...)
bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -benchtime=$(BENCHTIME) ./benchmarks/

## bench-rounds: the side-by-side benchmarks in ROUNDS fresh processes of
## one test binary (BENCH=regexp, BENCHTIME=...), summarised by benchstat
## with client-go and kcache as columns: each side's median with its 95%
## confidence interval, and kcache's change against client-go (-50% is a
## ratio of 0.5). On a shared 2-core VM one process's time ratio moves by
## ±15% (the same binary, started twice at the same moment, differs that
## much), so a time ratio is only trusted over rounds. "vs base" is the
## ratio of the two medians; confidence intervals need ROUNDS >= 6. A `$`
## inside BENCH is written `$$`. ROUNDS_OUT=file keeps the raw output
ROUNDS     ?= 10
ROUNDS_OUT ?= /tmp/kcache-bench-rounds.txt
BENCHSTAT  ?= golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
bench-rounds:
	@set -e; dir="$$(mktemp -d)"; trap 'rm -rf "$$dir"' EXIT; \
	$(GO) test -c -o "$$dir/benchmarks.test" ./benchmarks/; \
	: > $(ROUNDS_OUT); \
	for r in $$(seq $(ROUNDS)); do \
		echo "bench-rounds: round $$r of $(ROUNDS)" >&2; \
		if ! (cd benchmarks && "$$dir/benchmarks.test" -test.run '^$$' -test.bench '$(BENCH)' -test.benchmem -test.benchtime=$(BENCHTIME)) >> $(ROUNDS_OUT); then \
			grep -E -e '--- FAIL|^FAIL|^panic' $(ROUNDS_OUT) >&2 || true; \
			echo "bench-rounds: round $$r failed (see $(ROUNDS_OUT))" >&2; exit 1; \
		fi; \
	done; \
	if ! grep -q '^Benchmark' $(ROUNDS_OUT); then echo "bench-rounds: no benchmark matches BENCH='$(BENCH)'" >&2; exit 1; fi
	$(GO) run $(BENCHSTAT) -col /impl $(ROUNDS_OUT)

## bench-memory: the realistic-pod memory benchmarks of both libraries in one
## run, with ratios: retained heap per cached pod (10k and 100k pods) and the
## initial-sync peak heap (100k, List and WatchList), each without and with
## the memory transforms (about 30 minutes on 2 idle cores, up to ~3 GiB;
## MEMORY_BENCH=regexp narrows, MEMORY_OUT=file keeps the raw output)
MEMORY_BENCH ?= BenchmarkRealisticPods
MEMORY_OUT   ?= /tmp/kcache-bench-memory.txt
.PHONY: bench-memory
bench-memory:
	$(GO) test -run '^$$' -bench '$(MEMORY_BENCH)' -benchmem -benchtime=1x -timeout 120m ./benchmarks/ | tee $(MEMORY_OUT)
	@echo
	$(GO) run ./benchmarks/cmd/ratios < $(MEMORY_OUT)
	@if grep -q '^FAIL' $(MEMORY_OUT); then echo "bench-memory: benchmarks failed (see $(MEMORY_OUT))" >&2; exit 1; fi

## apicover: exported-API coverage against client-go v0.36.2
apicover:
	cd $(APICOVER_DIR) && $(GO) run . $(CURDIR)

## layers: the root package as a layered graph of its files, with every
## reference that runs back up (see ARCHITECTURE.md); `make unit` runs its
## test, which fails on a new one
.PHONY: layers
layers:
	$(GO) run ./internal/cmd/layers

## e2e: only the end-to-end tests against a real kube-apiserver and etcd
## (built once into ~/.cache/kcache-e2e, or $$KCACHE_E2E_BIN_DIR; the first
## build takes several minutes, later runs reuse the binaries)
e2e:
	cd e2e && $(GO) test -count=1 -timeout 60m -v ./...

## bench-e2e: the real-server sync benchmark (not in `make test`; `make e2e`
## runs a 500-pod, one-round variant of it): BENCH_E2E_PODS realistic pods
## (internal/realisticpods) created in the e2e kube-apiserver, synced by
## client-go, client-go with controller-runtime's TransformStripManagedFields,
## kcache, kcache with fastlw and kcache with fastlw and transform.Recommended,
## through paged List and WatchList, as JSON and protobuf, alternated over
## BENCH_E2E_ROUNDS rounds; prints the medians (sync time, CPU seconds, peak
## and retained heap, the same for a relist after a 410) with ratios to
## client-go, the machine and the shape. Wants a quiet machine: 10k pods,
## 3 rounds took 8 minutes on 2 idle cores (README); 50k is not yet run
## BENCH_E2E_ONLY (say List/json,WatchList/json) runs only those paths
## and content types.
BENCH_E2E_PODS   ?= 10000,50000
BENCH_E2E_ROUNDS ?= 3
BENCH_E2E_ONLY   ?=
.PHONY: bench-e2e
bench-e2e:
	cd e2e && KCACHE_BENCH_E2E_PODS=$(BENCH_E2E_PODS) KCACHE_BENCH_E2E_ROUNDS=$(BENCH_E2E_ROUNDS) KCACHE_BENCH_E2E_ONLY=$(BENCH_E2E_ONLY) $(GO) test -count=1 -timeout 0 -run 'TestSyncingRealisticPods' -v .

## profile-e2e: CPU and heap profiles of the WatchList JSON sync of
## PROFILE_PODS of bench-e2e's pods, one per setup, into PROFILE_DIR (not in CI)
PROFILE_DIR  ?= $(CURDIR)/e2e-profiles
PROFILE_PODS ?= 10000
.PHONY: profile-e2e
profile-e2e:
	mkdir -p $(PROFILE_DIR)
	cd e2e && KCACHE_BENCH_E2E_PROFILE=$(PROFILE_DIR) KCACHE_BENCH_E2E_PODS=$(PROFILE_PODS) $(GO) test -tags profile -count=1 -timeout 0 -run 'TestProfilingTheWatchListJSONSync' -v .

## soak: informers of both libraries behind fault-injecting proxies under
## steady churn, sampling goroutines and heap every 30s (not in CI;
## SOAK_DURATION=5m to shorten, default 15m)
SOAK_DURATION ?= 15m
soak:
	cd e2e && KCACHE_SOAK_DURATION=$(SOAK_DURATION) $(GO) test -tags soak -count=1 -timeout 0 -run 'TestSoak' -v .

## demo: a SharedIndexInformer with three handlers on a simulated cluster;
## serves /debug/kcache and /metrics on a loopback port and prints the URLs
## (DEMO_ARGS="-duration=60s", "-listen=127.0.0.1:8080" or "-kubeconfig ~/.kube/config")
DEMO_ARGS ?= -duration=20s
demo:
	$(GO) run ./cmd/kcache-demo $(DEMO_ARGS)

## chromium: Debian's chromium for the browser test; apt runs only when no
## chromium binary is found (CHROMIUM=/path skips the lookup)
CHROMIUM ?= $(shell command -v chromium || command -v chromium-browser || command -v google-chrome || true)
chromium:
	@if [ -n "$(CHROMIUM)" ] && [ -x "$(CHROMIUM)" ]; then echo "chromium: $(CHROMIUM)"; \
	elif command -v chromium >/dev/null 2>&1; then echo "chromium: $$(command -v chromium)"; \
	else echo "chromium not found; installing Debian's chromium"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends chromium; fi

## browser: the /debug/kcache page of a running demo, loaded in headless
## chromium (screenshot path in the output; KCACHE_SCREENSHOT=... moves it)
browser: chromium
	cd browsertest && $(GO) test -count=1 -timeout 10m -v ./...
