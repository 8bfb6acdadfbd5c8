package cache

import (
	"sync"
	"sync/atomic"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
)

func TestInformersCreatedWhileTheRegistryIsListedAreNumberedWithoutARace(t *testing.T) {
	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		for !done.Load() {
			_ = registeredInformers()
		}
	})
	keep := make([]SharedIndexInformer, 0, 2000)
	for range 2000 {
		keep = append(keep, NewSharedIndexInformerWithOptions(&ListWatch{}, &runtime.Unknown{}, SharedIndexInformerOptions{}))
	}
	done.Store(true)
	wg.Wait()
	seen := map[uint64]bool{}
	for _, inf := range keep {
		id := inf.(*sharedIndexInformer).registryID
		if id == 0 || seen[id] {
			t.Fatalf("informer numbered %d, want a unique non-zero number", id)
		}
		seen[id] = true
	}
}
