# kcache developer targets. `make test` is what CI runs.
GO      ?= go
PKGS    ?= ./...
APICOVER_DIR ?= ../shared/tools/apicover
BENCHTIME ?= 1x
BENCH   ?= .

.PHONY: test unit fmt-check vet conformance bench apicover e2e soak demo

## test: everything CI checks (format, vet, unit + conformance tests with
## -race, and the end-to-end suite against a real kube-apiserver and etcd)
test: fmt-check vet unit e2e

## unit: unit and conformance tests, with the race detector
unit:
	$(GO) test -race -count=1 $(PKGS)

fmt-check:
	@out="$$(gofmt -l .)"; if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)
	cd e2e && $(GO) vet ./... && $(GO) vet -tags soak ./...

## conformance: the differential suite against client-go's tools/cache
conformance:
	$(GO) test -race -count=1 -v ./conformance/

## bench: kcache and client-go side by side (BENCH=regexp BENCHTIME=...)
bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -benchtime=$(BENCHTIME) ./benchmarks/

## apicover: exported-API coverage against client-go v0.36.2
apicover:
	cd $(APICOVER_DIR) && $(GO) run . $(CURDIR)

## e2e: only the end-to-end tests against a real kube-apiserver and etcd
## (built once into ~/.cache/kcache-e2e, or $$KCACHE_E2E_BIN_DIR; the first
## build takes several minutes, later runs reuse the binaries)
e2e:
	cd e2e && $(GO) test -count=1 -timeout 60m -v ./...

## soak: informers of both libraries behind fault-injecting proxies under
## steady churn, sampling goroutines and heap every 30s (not in CI;
## SOAK_DURATION=5m to shorten, default 15m)
SOAK_DURATION ?= 15m
soak:
	cd e2e && KCACHE_SOAK_DURATION=$(SOAK_DURATION) $(GO) test -tags soak -count=1 -timeout 0 -run 'TestSoak' -v .

## demo: a SharedIndexInformer with three handlers on a simulated cluster
## (DEMO_ARGS="-duration=60s" or DEMO_ARGS="-kubeconfig ~/.kube/config")
DEMO_ARGS ?= -duration=20s
demo:
	$(GO) run ./cmd/kcache-demo $(DEMO_ARGS)
