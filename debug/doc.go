// Package debug serves a live page of every shared informer in the process,
// for people (HTML) and tools (JSON).
//
// Mount Handler at a path of your choice, e.g.
//
//	mux.Handle("/debug/kcache", debug.Handler())
//
// The page lists the informers that status.Informers (package
// github.com/kcache-go/cache/status) reports: every shared informer created
// in the process that is still reachable and has not stopped, found without
// registering them and without keeping any of them alive. For each it
// shows the resource and identifier, the objects cached, the indices and
// their sizes, the last synced resource version, HasSynced, the
// Reflector's lists, watch-lists, watches and relists (by cause) with its
// last error and when it happened, and per event handler its name,
// backlog, notifications delivered and slowest delivery.
//
// The HTML page is self-contained (no scripts, styles or images from
// elsewhere) and reloads itself every two seconds (?refresh=N seconds, 0 to
// stop). ?format=json returns the same data as a Snapshot. The handler is
// read-only (GET and HEAD) and reveals no object contents: only counts,
// names of indices and handlers, resource versions and error messages.
package debug
