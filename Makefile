# kcache developer targets. `make test` is what CI runs.
GO      ?= go
PKGS    ?= ./...
APICOVER_DIR ?= ../shared/tools/apicover
BENCHTIME ?= 1x
BENCH   ?= .

.PHONY: test unit fmt-check vet conformance compat bench apicover e2e demo

## test: everything CI checks (format, vet, unit + conformance tests with
## -race, the client-go v0.37 differential suite, and the end-to-end suite
## against a real kube-apiserver and etcd)
test: fmt-check vet unit compat e2e

## unit: unit and conformance tests, with the race detector
unit:
	$(GO) test -race -count=1 $(PKGS)

fmt-check:
	@out="$$(gofmt -l .)"; if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)
	cd e2e && $(GO) vet ./...
	cd compat137 && $(GO) vet ./...

## conformance: the differential suite against client-go's tools/cache
conformance:
	$(GO) test -race -count=1 -v ./conformance/

## compat: the differential suite of the v0.37 API (typed handlers and
## indexers, ShutDownEventHandler, MutationCacheOptions) against client-go
## v0.37.2, in its own module (compat137/) that resolves client-go v0.37.2
compat:
	cd compat137 && $(GO) test -race -count=1 ./...

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

## demo: a SharedIndexInformer with three handlers on a simulated cluster
## (DEMO_ARGS="-duration=60s" or DEMO_ARGS="-kubeconfig ~/.kube/config")
DEMO_ARGS ?= -duration=20s
demo:
	$(GO) run ./cmd/kcache-demo $(DEMO_ARGS)
