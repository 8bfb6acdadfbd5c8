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
// client-go, except the few listed under Extensions; see README.md for what
// kcache adds beyond that.
//
// # Extensions
//
// A later client-go release may add any name to this package, with its own
// meaning; a kcache name of the same spelling would then break the drop-in.
// So this package exports only two names client-go does not have, both
// prefixed Kcache (client-go will not use that prefix), with Kcache-prefixed
// methods too:
//
//   - KcacheInformerMetricsProvider: the per-handler metrics (backlog,
//     delivery latency, notifications delivered) an informer asks of its
//     InformerMetricsProvider.
//   - KcacheReflectorMetricsProvider: the Reflector figures (WatchLists,
//     relists by cause, time of the last list) a Reflector asks of its
//     MetricsProvider.
//
// They must be declared here: this package discovers them by type assertion
// on the providers it is given, and their methods take this package's
// InformerNameAndResource and return its metric types, so another package
// could declare them only by importing this one, which this package cannot
// import back. Package github.com/kcache-go/cache/metrics/prometheus
// implements both.
//
// One method is kcache's too, prefixed the same way: the registrations
// AddEventHandler returns have KcachePendingNotifications() int, the
// handler's backlog (discover it with
// reg.(interface{ KcachePendingNotifications() int })). It is on the
// registration because the registration is the handle a caller holds for
// one handler.
//
// Everything else kcache adds lives in packages of its own, which this
// package does not export: github.com/kcache-go/cache/status (the snapshot
// of each live shared informer, its indices, handlers and Reflector, and
// the relist causes; a leaf package this package imports and feeds),
// .../debug (a live page of those snapshots), .../metrics/prometheus (the
// metrics providers), .../transform (the memory transforms: stripping
// managedFields and the last-applied annotation, interning strings, sharing
// equal pod parts; TransformFuncs, never imported here) and .../clientgo
// (client-go views of kcache's informers and stores).
package cache
