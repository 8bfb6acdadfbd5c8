// Package benchmarks measures kcache against client-go's tools/cache side
// by side, in one `go test -bench` run, on the same pre-built data.
//
// Every benchmark has two sub-benchmarks, `.../impl=client-go` and
// `.../impl=kcache`, doing exactly the same work. The storage benchmarks
// (store_test.go) use 100,000 realistic pods (100 namespaces, 5,000 nodes,
// Deployment-like apps of 3 to 5 pods, owner references, containers with
// images, resources and env, status conditions) in an Indexer with three
// indices: namespace (MetaNamespaceIndexFunc), spec.nodeName and the app
// label. One benchmark op is one whole workload (for example: add all
// 100,000 pods), so the numbers stay meaningful with -benchtime=1x; the
// custom metric ns/obj divides by the objects touched. Next to wall time,
// every timed benchmark reports cpu-ns/op (and cpu-ns/obj, cpu-ns/query,
// cpu-ns/read): the CPU time of the whole process while timing, which other
// processes on a busy machine disturb far less than wall time; compare
// those when the machine is shared. Besides ns/op, B/op and allocs/op, BenchmarkStoreRetainedHeap reports retained-B/obj (live
// heap after building a 100,000-pod Indexer minus before, after a forced
// GC; the pods themselves are built beforehand and excluded), store-B/obj
// (the same for a plain Store), index-overhead-B/obj (the difference) and
// heap-inuse-B/obj (growth of in-use heap spans, fragmentation included).
//
// Run the benchmarks and print kcache/client-go ratios per metric with:
//
//	./benchmarks/compare.sh                          # every benchmark, BENCHTIME=3x
//	BENCH=BenchmarkStore COUNT=2 ./benchmarks/compare.sh  # the storage ones only
//
// which is
//
//	go test -run '^$' -bench . -benchmem -benchtime=3x -count=1 ./benchmarks/ | go run ./benchmarks/cmd/ratios
//
// A ratio below 1 means kcache is cheaper than client-go on that metric.
package benchmarks
