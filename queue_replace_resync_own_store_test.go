package cache

import (
	"fmt"
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"

	"go.uber.org/goleak"
)

// walkQueue is a queue over a known store: what the walk tests drive.
type walkQueue interface {
	Replace(list []interface{}, rv string) error
	Resync() error
	Close()
}

// walkQueues are the queues whose Replace and Resync walk their own store.
var walkQueues = []struct {
	name string
	make func(keyFunc KeyFunc, known KeyListerGetter) (walkQueue, func() []interface{})
}{
	{"non-atomic RealFIFO", func(keyFunc KeyFunc, known KeyListerGetter) (walkQueue, func() []interface{}) {
		f := NewRealFIFOWithOptions(RealFIFOOptions{KeyFunction: keyFunc, KnownObjects: known})
		return f, func() []interface{} {
			f.lock.Lock()
			defer f.lock.Unlock()
			var out []interface{}
			for i := 0; i < f.pending.Len(); i++ {
				out = append(out, f.pending.At(i).delta.Object)
			}
			return out
		}
	}},
	{"DeltaFIFO", func(keyFunc KeyFunc, known KeyListerGetter) (walkQueue, func() []interface{}) {
		f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: keyFunc, KnownObjects: known})
		return f, func() []interface{} {
			f.lock.Lock()
			defer f.lock.Unlock()
			var out []interface{}
			for i := 0; i < f.order.Len(); i++ {
				for _, d := range f.items[f.order.At(i)] {
					out = append(out, d.Object)
				}
			}
			return out
		}
	}},
}

// walkWriter adds, updates and deletes pods in store until stop closes.
func walkWriter(store Store, stop <-chan struct{}, wg *sync.WaitGroup) {
	defer wg.Done()
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		p := testPod("ns", fmt.Sprintf("w-%d", i%50), fmt.Sprint(i))
		switch i % 3 {
		case 0:
			_ = store.Add(p)
		case 1:
			_ = store.Update(p)
		default:
			_ = store.Delete(p)
		}
	}
}

func TestReplaceAndResyncWhileTheKnownStoreIsWrittenGiveEveryTombstoneItsOwnObject(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, q := range walkQueues {
		t.Run(q.name, func(t *testing.T) {
			store := NewStore(MetaNamespaceKeyFunc)
			for i := 0; i < 200; i++ {
				_ = store.Add(testPod("ns", fmt.Sprintf("p-%d", i), "1"))
			}
			stop, wg := make(chan struct{}), &sync.WaitGroup{}
			wg.Add(1)
			go walkWriter(store, stop, wg)
			for round := 0; round < 30; round++ {
				f, queued := q.make(MetaNamespaceKeyFunc, store)
				if err := f.Replace(nil, "1"); err != nil {
					t.Fatal(err)
				}
				if err := f.Resync(); err != nil {
					t.Fatal(err)
				}
				for _, obj := range queued() {
					d, ok := obj.(DeletedFinalStateUnknown)
					if !ok {
						continue
					}
					p, ok := d.Obj.(*v1.Pod)
					if !ok || p.Namespace+"/"+p.Name != d.Key {
						t.Fatalf("tombstone %q holds %#v", d.Key, d.Obj)
					}
				}
				f.Close()
			}
			close(stop)
			wg.Wait()
		})
	}
}

func TestResyncWithAKeyFunctionThatReadsTheKnownStoreNeverDeadlocksAgainstAPendingWriter(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, q := range walkQueues {
		t.Run(q.name, func(t *testing.T) {
			store := NewIndexer(MetaNamespaceKeyFunc, Indexers{})
			for i := 0; i < 200; i++ {
				_ = store.Add(testPod("ns", fmt.Sprintf("p-%d", i), "1"))
			}
			// The key function reads the store, as a controller's may; a
			// writer keeps a write lock request pending, so a key function
			// called under the store's read lock would block forever.
			keyFunc := func(obj interface{}) (string, error) {
				_ = store.List()
				_, _, _ = store.Get(obj)
				return MetaNamespaceKeyFunc(obj)
			}
			stop, wg := make(chan struct{}), &sync.WaitGroup{}
			wg.Add(2)
			go walkWriter(store, stop, wg)
			go walkWriter(store, stop, wg)
			for round := 0; round < 20; round++ {
				f, _ := q.make(keyFunc, store)
				if err := f.Replace([]interface{}{testPod("ns", "p-1", "2")}, "2"); err != nil {
					t.Fatal(err)
				}
				if err := f.Resync(); err != nil {
					t.Fatal(err)
				}
				f.Close()
			}
			close(stop)
			wg.Wait()
		})
	}
}
