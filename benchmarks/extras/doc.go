// Package extras benchmarks kcache's expiration cache, mutation cache,
// undelta store, synctrack trackers and fake controller source side by side
// with client-go's. Every benchmark has a client-go and a kcache
// sub-benchmark so that one run gives both numbers.
package extras
