package benchmarks

import (
	"runtime"
	"testing"
	"time"

	kcache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/transform"
)

// transformsUnderBench are the memory transforms measured, with "none" as
// the reference.
var transformsUnderBench = []struct {
	name string
	fn   kcache.TransformFunc
}{
	{"none", nil},
	{"StripManagedFields", transform.StripManagedFields},
	{"StripLastAppliedConfiguration", transform.StripLastAppliedConfiguration},
	{"InternStrings", transform.InternStrings},
	{"ShareIdenticalPodParts", transform.ShareIdenticalPodParts},
	{"Recommended", transform.Recommended},
}

// transformRetained decodes every benchmark pod with decode, applies fn to
// each (unless nil) and returns the live heap then held by the pods (and by
// anything the transform keeps, such as the unique package's map), after a
// forced GC, minus the live heap before decoding.
func transformRetained(decode func([]byte) interface{}, fn kcache.TransformFunc) int64 {
	data := transformPodsJSON()
	before := liveHeap()
	pods := make([]interface{}, len(data))
	for i, d := range data {
		pods[i] = decode(d)
		if fn != nil {
			var err error
			if pods[i], err = fn(pods[i]); err != nil {
				panic(err)
			}
		}
	}
	retained := liveHeap() - before
	runtime.KeepAlive(pods)
	return retained
}

// BenchmarkTransformRetainedHeap reports retained-B/pod: the live heap per
// pod of 10,000 decoded pods (Deployments of 10 pods in 50 namespaces, each
// with managed fields of three managers and the last-applied annotation;
// see transformPodJSON) after each transform, next to no transform
// (transform=none), for typed pods, Unstructured and PartialObjectMetadata.
// The decoded pods are what an informer stores; the saving of a transform
// is its retained-B/pod subtracted from none's.
func BenchmarkTransformRetainedHeap(b *testing.B) {
	for _, dec := range transformDecoders {
		for _, tr := range transformsUnderBench {
			b.Run("kind="+dec.kind+"/transform="+tr.name, func(b *testing.B) {
				transformPodsJSON()
				var total int64
				for i := 0; i < b.N; i++ {
					total += transformRetained(dec.decode, tr.fn)
				}
				b.ReportMetric(float64(total)/float64(b.N)/transformPodCount, "retained-B/pod")
			})
		}
	}
}

// BenchmarkTransformCost reports the cost of one transform call on a freshly
// decoded pod (ns/op, B/op, allocs/op; decoding is not timed), and, as
// "again", on a pod the transform already saw (what a second Replace of
// stored objects costs).
func BenchmarkTransformCost(b *testing.B) {
	for _, dec := range transformDecoders {
		for _, tr := range transformsUnderBench[1:] {
			for _, again := range []bool{false, true} {
				name := "kind=" + dec.kind + "/transform=" + tr.name
				if again {
					name += "/again"
				}
				b.Run(name, func(b *testing.B) { transformCost(b, transformPodsJSON(), dec.decode, tr.fn, again) })
			}
		}
	}
}

// transformCost times fn on b.N pods decoded from data, decoded in untimed
// batches of transformCostBatch; with again, each pod is transformed once
// untimed first.
// Besides ns/op it reports cpu-ns/op, the process's CPU time while timed
// (less disturbed by other processes on a shared machine).
func transformCost(b *testing.B, data [][]byte, decode func([]byte) interface{}, fn kcache.TransformFunc, again bool) {
	const transformCostBatch = 1000
	batch := make([]interface{}, transformCostBatch)
	var cpu time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; done += len(batch) {
		b.StopTimer()
		n := min(len(batch), b.N-done)
		for i := 0; i < n; i++ {
			batch[i] = decode(data[(done+i)%len(data)])
			if again {
				_, _ = fn(batch[i])
			}
		}
		b.StartTimer()
		since := storeProcessCPU()
		for _, obj := range batch[:n] {
			if _, err := fn(obj); err != nil {
				b.Fatal(err)
			}
		}
		cpu += storeProcessCPU() - since
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}
