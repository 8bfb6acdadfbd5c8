package transform_test

import (
	"reflect"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	kcache "github.com/kcache-go/cache"
)

// copyForComparison deep-copies a transformed object of one of the kinds
// below, before anyone reads it concurrently.
func copyForComparison(obj interface{}) interface{} {
	if g, ok := obj.(getterObject); ok {
		return getterObject{g.DeepCopy()}
	}
	return obj.(runtime.Object).DeepCopyObject()
}

// TestReplacingWithCachedObjectsDoesNotWriteToThemWhileListersReadThem pins
// what TransformFunc's "MUST be idempotent if objects already present in
// the cache are passed to Replace(), to avoid re-mutating them" asks: a
// transform applied again to an object it already transformed must not
// write to it at all (not even the same value), because the object is in
// the cache and readers share it without a lock. Run with -race: a write
// that stores what was already there is still a data race with the
// reader below.
func TestReplacingWithCachedObjectsDoesNotWriteToThemWhileListersReadThem(t *testing.T) {
	for _, tr := range namedTransforms {
		for _, kind := range transformKinds()[:10] {
			if !kind.hasMetadata {
				continue
			}
			t.Run(tr.name+" on "+kind.name, func(t *testing.T) {
				store := kcache.NewStore(kcache.MetaNamespaceKeyFunc)
				queue := kcache.NewDeltaFIFOWithOptions(kcache.DeltaFIFOOptions{
					KeyFunction: kcache.MetaNamespaceKeyFunc, KnownObjects: store, Transformer: tr.fn})
				cached, err := tr.fn(kind.build())
				if err != nil {
					t.Fatal(err)
				}
				if err := store.Add(cached); err != nil {
					t.Fatal(err)
				}
				want := copyForComparison(cached)
				var wg sync.WaitGroup
				var changed bool
				wg.Add(1)
				go func() { // a lister's caller reading the cached object
					defer wg.Done()
					changed = !reflect.DeepEqual(cached, want)
				}()
				if err := queue.Replace(store.List(), "2"); err != nil {
					t.Fatal(err)
				}
				wg.Wait()
				if changed {
					t.Fatalf("the cached object changed under its reader: %#v; want %#v", cached, want)
				}
			})
		}
	}
}
