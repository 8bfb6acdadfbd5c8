// Package cache is kcache: a clean-room, drop-in reimplementation of
// k8s.io/client-go/tools/cache (client-go v0.36.2).
//
// A Reflector lists and watches the API server and feeds a queue (RealFIFO by
// default, DeltaFIFO for compatibility); an informer pops the queue into an
// Indexer, the thread-safe local cache, and fans notifications out to the
// registered event handlers. Controllers switch to kcache by changing one
// import line:
//
//	k8s.io/client-go/tools/cache   →   github.com/kcache-go/cache
//
// Every exported identifier has the name, signature and behaviour it has in
// client-go; see README.md for what kcache adds beyond that. The memory
// transforms (stripping managedFields and the last-applied annotation,
// interning strings, sharing equal pod parts) are TransformFuncs of package
// github.com/kcache-go/cache/transform, which this package never imports.
package cache
