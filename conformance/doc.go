// Package conformance holds kcache's differential conformance suites.
//
// A differential suite drives client-go's k8s.io/client-go/tools/cache and
// kcache (github.com/kcache-go/cache) with exactly the same inputs and fails
// on the first observable difference. client-go v0.36.2 is the reference:
// whatever it answers is, by definition, the right answer, including its
// errors, its nil-versus-empty slices and its panics.
//
// The storage suite (store_*_test.go) replays seeded, reproducible random
// sequences of writes (Add, Update, Delete, Replace, Resync, Bookmark,
// AddIndexers and transactions, including invalid objects and unknown
// transaction types) against pairs of Indexers, plain Stores with a
// transformer, and ThreadSafeStores. After every write it compares every
// read (Get, GetByKey, List, ListKeys, ByIndex, Index, IndexKeys,
// ListIndexFuncValues, GetIndexers, LastStoreSyncResourceVersion) and every
// error (message, dynamic type, KeyError and TransactionError contents).
// The seeds and the shape of each run are listed in
// testdata/store_seeds.json; a failure prints the seed, the operation number
// and the operation, so it can be replayed by running that single row:
//
//	go test -race -run 'TestStoreMatchesClientGo/<row name>' ./conformance/
//
// Run the whole package with:
//
//	go test -race ./conformance/
//
// This package is test-only. It is, with benchmarks/, the only place in the
// module allowed to import client-go's tools/cache, and only to compare.
package conformance
