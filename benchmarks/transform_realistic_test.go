package benchmarks

import (
	"testing"

	kcache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/internal/realisticpods"
	"github.com/kcache-go/cache/transform"
)

// realisticTransformPods is how many realistic pods the cost benchmark
// cycles through (templates, apps and nodes as in the memory benchmarks).
const realisticTransformPods = 5_000

// BenchmarkTransformCostRealisticPods reports the cost of a transform call
// per realistic pod (internal/realisticpods: 1–3 containers, volumes,
// probes, full status), decoded as an informer decodes it (ns/op, B/op,
// allocs/op, cpu-ns/op; decoding is not timed), for a freshly decoded pod
// and, as "again", for a pod the transform already saw; the last one is
// ShareIdenticalPodParts opted in after the recommended transform.
func BenchmarkTransformCostRealisticPods(b *testing.B) {
	gen, err := realisticpods.New(realisticTransformPods, realisticpods.Seed)
	if err != nil {
		b.Fatal(err)
	}
	data := make([][]byte, gen.N())
	for i := range data {
		data[i] = gen.AppendPod(nil, i, true)
	}
	decode := func(d []byte) interface{} {
		pod, err := realisticpods.DecodePod(d)
		if err != nil {
			panic(err)
		}
		return pod
	}
	for _, tr := range []struct {
		name string
		fn   kcache.TransformFunc
	}{
		{"InternStrings", transform.InternStrings},
		{"ShareIdenticalPodParts", transform.ShareIdenticalPodParts},
		{"Recommended", transform.Recommended},
		{"Recommended+ShareIdenticalPodParts",
			transform.Chain(transform.Recommended, transform.ShareIdenticalPodParts)},
	} {
		for _, again := range []bool{false, true} {
			name := "transform=" + tr.name
			if again {
				name += "/again"
			}
			b.Run(name, func(b *testing.B) { transformCost(b, data, decode, tr.fn, again) })
		}
	}
}
