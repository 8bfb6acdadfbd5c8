// Package status is what kcache's shared informers tell about themselves:
// a snapshot per informer (Informer, with its indices, event handlers and
// Reflector) and the process-wide list of live informers, Informers.
//
// It holds figures only, never object contents. Package
// github.com/kcache-go/cache/debug serves them as a page; a program may also
// read them directly:
//
//	for _, inf := range status.Informers() {
//		log.Printf("%s: %d objects, synced %v", inf.Name, inf.Objects, inf.HasSynced)
//	}
//
// The package imports no other kcache package: kcache's root package
// imports it, and calls Track for every shared informer it makes, so that
// none of these names is part of the drop-in API (a later client-go
// release could add any of them with another meaning).
package status
