package cache

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kcache-go/cache/status"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
)

func TestInformersCreatedWhileTheListIsReadAreListedWithUniqueNumbers(t *testing.T) {
	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		for !done.Load() {
			_ = status.Informers()
		}
	})
	const n = 2000
	keep := make([]SharedIndexInformer, 0, n)
	for range n {
		keep = append(keep, NewSharedIndexInformerWithOptions(&ListWatch{}, &k8sruntime.Unknown{}, SharedIndexInformerOptions{}))
	}
	done.Store(true)
	wg.Wait()
	seen := map[uint64]bool{}
	listed := 0
	for _, st := range status.Informers() {
		if st.ID == 0 || seen[st.ID] {
			t.Fatalf("informer numbered %d, want a unique non-zero number", st.ID)
		}
		seen[st.ID] = true
		if st.ObjectType == "*runtime.Unknown" {
			listed++
		}
	}
	if listed < n {
		t.Errorf("%d of the %d new informers are listed", listed, n)
	}
	runtime.KeepAlive(keep)
}
