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

// keysKeptAfterTheStoreIsGone returns the heap still in use (bytes) once a
// store that held n pods is dropped, with every 100th key of its ListKeys
// kept by the caller, and the kept keys.
func keysKeptAfterTheStoreIsGone(newStore func() interface {
	Add(any) error
	ListKeys() []string
}, n int) (int64, []string) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := newStore()
	for i := 0; i < n; i++ {
		if err := s.Add(namedPod("team-"+string(rune('a'+i%26)), "web-"+strings.Repeat("x", i%7)+itoa(i), "1")); err != nil {
			panic(err)
		}
	}
	var kept []string
	for i, key := range s.ListKeys() {
		if i%100 == 0 {
			kept = append(kept, key)
		}
	}
	s = nil
	runtime.GC()
	runtime.ReadMemStats(&after)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc), kept
}

// itoa formats i in decimal.
func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

// TestKeysACallerKeepsFromListKeysPinOnlyTheirOwnBytesAsWithClientGo keeps
// 1% of the keys of a dropped store: they must not keep more memory alive
// than client-go's keys do (a key carved out of a shared block would pin
// the whole block).
func TestKeysACallerKeepsFromListKeysPinOnlyTheirOwnBytesAsWithClientGo(t *testing.T) {
	const pods = 20_000
	cgRetained, cgKept := keysKeptAfterTheStoreIsGone(func() interface {
		Add(any) error
		ListKeys() []string
	} {
		return cg.NewIndexer(cg.MetaNamespaceKeyFunc, cg.Indexers{"namespace": cg.MetaNamespaceIndexFunc})
	}, pods)
	kcRetained, kcKept := keysKeptAfterTheStoreIsGone(func() interface {
		Add(any) error
		ListKeys() []string
	} {
		return kc.NewIndexer(kc.MetaNamespaceKeyFunc, kc.Indexers{"namespace": kc.MetaNamespaceIndexFunc})
	}, pods)
	if len(kcKept) != len(cgKept) {
		t.Fatalf("kept %d keys from kcache, %d from client-go", len(kcKept), len(cgKept))
	}
	if kcRetained > cgRetained+64<<10 {
		t.Errorf("%d kept keys pin %d bytes in kcache, %d in client-go", len(kcKept), kcRetained, cgRetained)
	}
}
