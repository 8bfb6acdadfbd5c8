// Package conformance holds kcache's differential conformance suites.
//
// A differential suite drives client-go's k8s.io/client-go/tools/cache and
// kcache (github.com/kcache-go/cache) with exactly the same inputs and fails
// on the first observable difference. client-go v0.36.2 is the reference:
// whatever it answers is, by definition, the right answer, including its
// errors, its nil-versus-empty slices and its panics.
//
// The storage suite (store_*_test.go) has four parts:
//
//   - TestStoreMatchesClientGo replays seeded, reproducible random sequences
//     of 5,000 writes each (Add, Update, Delete, Replace, Resync,
//     Bookmark, AddIndexers and transactions, including invalid objects and
//     unknown transaction types) against pairs of Indexers, plain Stores with
//     a transformer, and ThreadSafeStores. After every write it compares
//     every read (Get, GetByKey, List, ListKeys, ByIndex, Index, IndexKeys,
//     ListIndexFuncValues, GetIndexers, LastStoreSyncResourceVersion, the
//     optional interfaces the store implements, what it reported to its
//     metrics provider, how often it called the transformer) and every
//     error (message, dynamic type, KeyError and TransactionError
//     contents). Answers whose order client-go leaves to map iteration are
//     compared as sorted lists; IndexKeys, which client-go sorts, exactly;
//     nil and empty stay distinct. The runs are listed in
//     testdata/store_seeds.json; a failure prints the seed, the operation
//     number and the operation, and replays with
//     go test -race -run 'TestStoreMatchesClientGo/<row name>' ./conformance/
//   - TestStoreScenariosMatchClientGo replays the short directed edge cases
//     of testdata/store_scenarios.json the same way, each on fresh stores,
//     so every known difference shows up on its own.
//   - TestStoreIndexingPanicsLikeClientGo checks the panics client-go gives
//     (failing index functions, stores built with nil Indexers or Indices,
//     a ThreadSafeStore replaced with a nil map): same panic value type and
//     message, recovered on both sides.
//
// Run the whole package with:
//
//	go test -race ./conformance/
//
// This package is test-only. It is, with benchmarks/, the only place in the
// module allowed to import client-go's tools/cache, and only to compare.
package conformance
