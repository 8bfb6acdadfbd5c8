// Package extras is the differential conformance suite for the parts of the
// API outside the informer path: the synctrack and testing subpackages and
// the expiration, undelta and mutation caches. Each scenario in testdata/ is
// played against client-go's tools/cache and against kcache; the traces of
// what both do must be identical.
package extras
