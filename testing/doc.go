// Package framework provides FakeControllerSource, an in-memory
// ListerWatcher for tests of informers and controllers: objects are added,
// modified and deleted by the test, every change gets the next integer
// resource version, and watchers receive the changes (optionally dropping
// some, to simulate a lossy connection).
//
// The package name is framework, as in client-go, while its import path is
// github.com/kcache-go/cache/testing.
package framework
