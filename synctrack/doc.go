// Package synctrack tells a consumer of an informer whether it is "synced":
// whether every item of the informer's initial list has been delivered to it
// and fully processed.
//
// Two trackers cover the two ways consumers process items: SingleFileTracker
// counts items when they are handled strictly one after another (a queue),
// AsyncTracker remembers items by key when several workers handle them in
// any order. Both become synced once the upstream source reported that it
// delivered its initial list (UpstreamHasSynced) and nothing it delivered is
// still being processed; from then on they stay synced for good.
//
// Lazy caches the result of an expensive computation until told that its
// inputs changed.
package synctrack
