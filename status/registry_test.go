package status

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// fakeInformer is a tracked object; its snapshot reports its name.
type fakeInformer struct {
	name    string
	stopped atomic.Bool
	_       [16]byte // NB: not tiny-allocated, so that it is collected on its own
}

func (f *fakeInformer) isStopped() bool    { return f.stopped.Load() }
func (f *fakeInformer) snapshot() Informer { return Informer{Name: f.name} }

// track tracks f with its method expressions, which do not hold f.
func track(f *fakeInformer) {
	Track(f, (*fakeInformer).isStopped, (*fakeInformer).snapshot)
}

// listedIDs returns the IDs of the listed informers called name.
func listedIDs(name string) []uint64 {
	var ids []uint64
	for _, st := range Informers() {
		if st.Name == name {
			ids = append(ids, st.ID)
		}
	}
	return ids
}

func TestTrackedInformersAreListedInTrackingOrderWithIncreasingIDs(t *testing.T) {
	a, b := &fakeInformer{name: "order-a"}, &fakeInformer{name: "order-b"}
	track(a)
	track(b)
	var order []string
	var ids []uint64
	for _, st := range Informers() {
		if st.Name == "order-a" || st.Name == "order-b" {
			order, ids = append(order, st.Name), append(ids, st.ID)
		}
	}
	if len(order) != 2 || order[0] != "order-a" || order[1] != "order-b" || ids[0] == 0 || ids[0] >= ids[1] {
		t.Errorf("listed %v with IDs %v, want order-a then order-b with increasing non-zero IDs", order, ids)
	}
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
}

func TestAStoppedInformerIsDroppedAndNeverListedAgain(t *testing.T) {
	f := &fakeInformer{name: "stopped"}
	track(f)
	if len(listedIDs("stopped")) != 1 {
		t.Fatal("the running informer is not listed")
	}
	f.stopped.Store(true)
	if len(listedIDs("stopped")) != 0 {
		t.Fatal("the stopped informer is still listed")
	}
	f.stopped.Store(false)
	if len(listedIDs("stopped")) != 0 {
		t.Fatal("a dropped informer came back")
	}
	runtime.KeepAlive(f)
}

func TestTheListDoesNotKeepAnUnreachableInformerAlive(t *testing.T) {
	func() {
		track(&fakeInformer{name: "unreachable"})
	}()
	tracked.mu.Lock()
	id := tracked.next
	tracked.mu.Unlock()
	for range 100 {
		runtime.GC()
		tracked.mu.Lock()
		_, entry := tracked.byID[id]
		tracked.mu.Unlock()
		if len(listedIDs("unreachable")) == 0 && !entry {
			return
		}
		runtime.Gosched()
	}
	t.Fatal("the unreachable informer is still listed or its entry was never removed")
}

func TestInformersTrackedWhileTheListIsReadGetUniqueIDs(t *testing.T) {
	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		for !done.Load() {
			_ = Informers()
		}
	})
	keep := make([]*fakeInformer, 500)
	for i := range keep {
		keep[i] = &fakeInformer{name: "concurrent"}
		track(keep[i])
	}
	done.Store(true)
	wg.Wait()
	seen := map[uint64]bool{}
	for _, id := range listedIDs("concurrent") {
		if id == 0 || seen[id] {
			t.Fatalf("ID %d, want unique non-zero IDs", id)
		}
		seen[id] = true
	}
	if len(seen) != len(keep) {
		t.Errorf("%d of %d informers listed", len(seen), len(keep))
	}
	runtime.KeepAlive(keep)
}
