// Package dropin shows that kcache is a drop-in replacement for client-go's
// k8s.io/client-go/tools/cache.
//
// upstream/program.go is a controller-style program written against client-go:
// stores, indexers, a DeltaFIFO and a RealFIFO used directly, a shared index
// informer fed by the fake controller source with a plain and a filtering
// handler, cache sync waits, index queries, a generic lister, a delete the
// watch missed (DeletedFinalStateUnknown), handler removal and shutdown. It
// writes a deterministic transcript of everything it observes.
//
// kcache/program.go is the same file with only the two import lines changed
// (k8s.io/client-go/tools/cache -> github.com/kcache-go/cache and
// k8s.io/client-go/tools/cache/testing -> github.com/kcache-go/cache/testing);
// `go generate ./examples/dropin` rewrites it from the client-go copy.
//
// dropin_test.go runs in CI with the rest of `go test -race ./...`. It checks
// that the kcache copy is byte for byte the client-go copy with the import
// lines rewritten, that both programs produce the same transcript, that the
// transcript contains the expected events, and that no goroutines leak.
package dropin
