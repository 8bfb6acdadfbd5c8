package transform

import "github.com/kcache-go/cache"

// Chain returns a cache.TransformFunc that applies transforms in order,
// each to the result of the one before; nil entries are skipped. The first
// error stops the chain and is returned with that transform's result. With
// no (non-nil) transform it returns its input unchanged. The chain is as
// idempotent as its members are, and allocates nothing per call.
func Chain(transforms ...cache.TransformFunc) cache.TransformFunc {
	chain := make([]cache.TransformFunc, 0, len(transforms))
	for _, t := range transforms {
		if t != nil {
			chain = append(chain, t)
		}
	}
	return func(obj interface{}) (interface{}, error) {
		for _, t := range chain {
			var err error
			if obj, err = t(obj); err != nil {
				return obj, err
			}
		}
		return obj, nil
	}
}

// recommended is the chain behind Recommended.
var recommended = Chain(StripManagedFields, StripLastAppliedConfiguration, InternStrings, CompactPodSlices, InternPodStrings)

// Recommended is StripManagedFields, then StripLastAppliedConfiguration,
// then InternStrings, then CompactPodSlices, then InternPodStrings: the
// memory transforms of this package that are safe for every controller,
// in the order that interns the least (the stripped strings are never
// interned) and interns into the compacted arrays. Use it as
// informer.SetTransform(transform.Recommended) or as a queue's
// Transformer. Like its parts it edits in place, is idempotent, handles
// tombstones, nil and objects without metadata, and never returns an error.
// It shares nothing mutable between cached objects: the only thing two
// objects have in common afterwards is the bytes of equal strings, which
// Go never writes; no slice, map or pointer of one cached pod is another's
// (TestAfterTheRecommendedTransformNoTwoPodsShareASliceMapOrPointerAnywhere).
//
// On realistic pods (BenchmarkTransformCostRealisticPods and
// BenchmarkTransformRetainedHeapRealisticPods, benchmarks/, on a loaded
// 2-core machine) it brings what a cached pod of a template keeps from
// 19.9 KB to 11.7 KB (14.4 KB with the three metadata transforms alone),
// for about 17 µs of CPU, 8 allocations and 2.6 KB per new pod (the
// exact-size copies of its slices, replacing the decoder's arrays, which
// are dropped; one interning-table lookup per repeated string, 100–130),
// against 3.3 µs and no allocation with the metadata transforms alone, and
// about 3 µs and nothing for a pod already transformed (2 µs before).
// Decoding the pod from JSON takes about 220 µs.
//
// Which transform to pick when:
//   - StripManagedFields: always, unless the controller reads managedFields
//     of cached objects (for example to compute server-side-apply diffs or
//     field ownership from the cache). They are 20–40% of a typical object.
//   - StripLastAppliedConfiguration: always, unless the controller reads
//     that annotation (kubectl-like tools computing three-way merges).
//     Objects created with client-side `kubectl apply` carry their whole
//     manifest in it.
//   - InternStrings: when many cached objects share namespaces, label and
//     annotation keys and values or owners (pods of Deployments, DaemonSets
//     and Jobs; anything labelled by a Helm chart or an operator). It costs
//     a hash lookup per string per event and saves the repeated copies; on
//     a cache of few, unrelated objects it saves little.
//   - CompactPodSlices and InternPodStrings: for pods, always; they leave
//     other objects alone. InternPodStrings is InternStrings for the
//     strings of a pod's spec and status; on pods that share no template,
//     node or service account it saves little.
//
// ShareIdenticalPodParts is not part of it: it makes pods of one template
// share their spec parts, so one mistaken in-place write to a cached pod
// (common in real controllers) changes every pod of that template, the old
// objects handed to update handlers included. Chain it after this one,
// Chain(Recommended, ShareIdenticalPodParts), only for consumers that
// never write to cached pods and run their tests with the mutation
// detector (KUBE_CACHE_MUTATION_DETECTOR=true); on pods of templates it
// takes a cached pod further, to 6.4 KB, for about 15–30 µs more CPU per
// new pod. CompactPodSlices and InternPodStrings leave a pod it
// transformed alone (its shared parts must not be written), and leave it
// the first container's name, its mark of such a pod.
//
// For a transform of your own, put it before these in Chain when it reads
// what they remove, and make it idempotent too: an informer may transform
// an object twice.
func Recommended(obj interface{}) (interface{}, error) {
	return recommended(obj)
}
