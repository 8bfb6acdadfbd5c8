package conformance

import (
	"runtime"
	"strings"
	"testing"

	kc "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cg "k8s.io/client-go/tools/cache"
)

// retentionStore is what the retention tests do to either library's store.
type retentionStore interface {
	Add(any) error
	Delete(any) error
}

// retainedAfter returns the heap still in use (bytes) after fill and then
// empty ran on a store that stays alive.
func retainedAfter(newStore func() retentionStore, fill, empty func(retentionStore)) int64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := newStore()
	fill(s)
	empty(s)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(s)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

// TestAStoreThatDeletedAnObjectWithAHugeKeyFreesTheKeyAsClientGoDoes stores
// objects with a 32 MiB name, deletes them (all of them, or all but small
// neighbours that share their blocks) and requires the store to keep no
// more memory than client-go's does.
func TestAStoreThatDeletedAnObjectWithAHugeKeyFreesTheKeyAsClientGoDoes(t *testing.T) {
	const huge = 32 << 20
	for _, keepNeighbours := range []bool{false, true} {
		fill := func(s retentionStore) {
			for i := 0; i < 4; i++ {
				if err := s.Add(namedPod("", strings.Repeat(string(rune('a'+i)), huge), "1")); err != nil {
					t.Fatal(err)
				}
				if err := s.Add(namedPod("ns", string(rune('a'+i)), "1")); err != nil {
					t.Fatal(err)
				}
			}
		}
		empty := func(s retentionStore) {
			for i := 0; i < 4; i++ {
				_ = s.Delete(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: strings.Repeat(string(rune('a'+i)), huge)}})
				if !keepNeighbours {
					_ = s.Delete(namedPod("ns", string(rune('a'+i)), "1"))
				}
			}
		}
		indexers := func() (cg.Indexers, kc.Indexers) {
			return cg.Indexers{"namespace": cg.MetaNamespaceIndexFunc}, kc.Indexers{"namespace": kc.MetaNamespaceIndexFunc}
		}
		cgRetained := retainedAfter(func() retentionStore {
			ci, _ := indexers()
			return cg.NewIndexer(cg.MetaNamespaceKeyFunc, ci)
		}, fill, empty)
		kcRetained := retainedAfter(func() retentionStore {
			_, ki := indexers()
			return kc.NewIndexer(kc.MetaNamespaceKeyFunc, ki)
		}, fill, empty)
		if kcRetained > cgRetained+huge/2 {
			t.Errorf("keepNeighbours=%v: kcache keeps %d bytes, client-go %d", keepNeighbours, kcRetained, cgRetained)
		}
	}
}
