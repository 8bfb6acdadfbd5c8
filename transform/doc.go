// Package transform holds kcache's memory transforms: functions of the
// signature of cache.TransformFunc (github.com/kcache-go/cache; client-go's
// TransformFunc has the same) that shrink what an informer or a queue keeps
// of each object, applied before the object is stored.
//
//   - StripManagedFields drops metadata.managedFields.
//   - StripLastAppliedConfiguration drops the
//     kubectl.kubernetes.io/last-applied-configuration annotation.
//   - InternStrings makes equal metadata strings of many objects share one
//     copy, held weakly.
//   - CompactPodSlices gives the slices of a pod that decoding left with
//     spare capacity an exact-size array the pod alone owns.
//   - InternPodStrings makes the strings pods of one template repeat in
//     their spec and status share one copy, in InternStrings's table.
//   - Recommended is those five, in that order: safe for every
//     controller (strings are immutable; no two cached objects share a
//     slice, map or pointer).
//   - ShareIdenticalPodParts makes pods of one template share the equal
//     parts of their spec and status: opt-in, only for consumers that never
//     write to cached pods.
//   - Chain applies transforms in order, for a transform of your own.
//
// Use one as informer.SetTransform(transform.Recommended) or as the
// Transformer of cache.RealFIFOOptions or cache.DeltaFIFOOptions. Each edits
// the object in place, is idempotent, handles kcache's tombstone
// (cache.DeletedFinalStateUnknown), nil and objects without metadata, and
// never returns an error; the doc of each says exactly what it changes and
// what it costs.
//
// The package lives beside the drop-in root package, not in it, so that
// the root exports only client-go's names: a later client-go release could
// add one of these names with another meaning. It imports the root package
// (for TransformFunc and the tombstone type); the root never imports it.
package transform
