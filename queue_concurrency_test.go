package cache

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

// queueWaitUntilParked returns once some goroutine's stack shows it parked
// in fn (a queue's wait loop). It polls the goroutine dump, yielding between
// looks; it never sleeps.
func queueWaitUntilParked(t *testing.T, fn string) {
	t.Helper()
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		for _, g := range bytes.Split(buf[:n], []byte("\n\n")) {
			if bytes.Contains(g, []byte("sync.(*Cond).Wait")) && bytes.Contains(g, []byte(fn)) {
				return
			}
		}
		runtime.Gosched()
	}
}

func TestProducersAndOneConsumerLoseAndReorderNothing(t *testing.T) {
	defer goleak.VerifyNone(t)
	const producers, perProducer = 4, 1500
	cases := []struct {
		name   string
		unlock bool
		batch  bool
	}{
		{"locked Pop", false, false},
		{"locked PopBatch", false, true},
		{"unlocked Pop", true, false},
		{"unlocked PopBatch", true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := queueAtomic(RealFIFOOptions{UnlockWhileProcessing: tc.unlock})
			var wg sync.WaitGroup
			for p := 0; p < producers; p++ {
				wg.Add(1)
				go func(p int) {
					defer wg.Done()
					for i := 0; i < perProducer; i++ {
						// A few keys per producer, so batches end on repeats too.
						obj := testPod(fmt.Sprintf("w%d", p), fmt.Sprintf("k%d", i%7), strconv.Itoa(i))
						if err := f.Add(obj); err != nil {
							t.Error(err)
							return
						}
					}
				}(p)
			}
			next := map[string]int{}
			seen := 0
			check := func(ds []Delta) error {
				for _, d := range ds {
					p := d.Object.(interface{ GetNamespace() string }).GetNamespace()
					seq, _ := strconv.Atoi(d.Object.(interface{ GetResourceVersion() string }).GetResourceVersion())
					if seq != next[p] {
						return fmt.Errorf("producer %s: got item %d, want %d", p, seq, next[p])
					}
					next[p]++
					seen++
				}
				return nil
			}
			for seen < producers*perProducer {
				var err error
				if tc.batch {
					err = f.PopBatch(func(ds []Delta, _ bool) error { return check(ds) },
						func(obj interface{}, _ bool) error { return check(obj.(Deltas)) })
				} else {
					_, err = f.Pop(func(obj interface{}, _ bool) error { return check(obj.(Deltas)) })
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			wg.Wait()
			if f.pending.Len() != 0 {
				t.Fatalf("%d deltas left over", f.pending.Len())
			}
		})
	}
}

// queueBlockedPop is a consumer call that blocks on an empty queue, the
// function its goroutine parks in, and how to close its queue.
type queueBlockedPop struct {
	name   string
	parked string
	pop    func() error
	close  func()
}

func TestCloseWakesABlockedPopWithErrFIFOClosed(t *testing.T) {
	defer goleak.VerifyNone(t)
	noop := func(interface{}, bool) error { return nil }
	realQ := queueAtomic(RealFIFOOptions{})
	unlocked := queueAtomic(RealFIFOOptions{UnlockWhileProcessing: true})
	delta := NewDeltaFIFOWithOptions(DeltaFIFOOptions{})
	fifo := NewFIFO(MetaNamespaceKeyFunc)
	cases := []queueBlockedPop{
		{"RealFIFO.Pop", "(*RealFIFO).waitLocked", func() error { _, err := realQ.Pop(noop); return err }, realQ.Close},
		{"RealFIFO.PopBatch", "(*RealFIFO).waitLocked", func() error {
			return unlocked.PopBatch(func([]Delta, bool) error { return nil }, noop)
		}, unlocked.Close},
		{"DeltaFIFO.Pop", "(*DeltaFIFO).Pop", func() error { _, err := delta.Pop(noop); return err }, delta.Close},
		{"FIFO.Pop", "(*FIFO).Pop", func() error { _, err := fifo.Pop(noop); return err }, fifo.Close},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			result := make(chan error)
			go func() { result <- tc.pop() }()
			queueWaitUntilParked(t, tc.parked)
			tc.close()
			if err := <-result; !errors.Is(err, ErrFIFOClosed) {
				t.Fatalf("blocked pop returned %v, want ErrFIFOClosed", err)
			}
		})
	}
	t.Run("Heap.Pop", func(t *testing.T) {
		h := NewHeap(MetaNamespaceKeyFunc, func(a, b interface{}) bool { return false })
		result := make(chan error)
		go func() { _, err := h.Pop(); result <- err }()
		queueWaitUntilParked(t, "(*Heap).Pop")
		h.Close()
		if err := <-result; err == nil || err.Error() != "heap is closed" {
			t.Fatalf("blocked Heap.Pop returned %v, want heap is closed", err)
		}
	})
}

func TestUnlockWhileProcessingLetsAProducerAddDuringASlowProcess(t *testing.T) {
	defer goleak.VerifyNone(t)
	f := queueAtomic(RealFIFOOptions{UnlockWhileProcessing: true})
	mustNoErr(t, f.Add(testPod("ns", "first", "1")))
	entered, release, popped := make(chan struct{}), make(chan struct{}), make(chan error)
	go func() {
		_, err := f.Pop(func(interface{}, bool) error {
			close(entered)
			<-release
			return nil
		})
		popped <- err
	}()
	<-entered
	// The consumer is inside process; a producer must get through now.
	mustNoErr(t, f.Add(testPod("ns", "second", "2")))
	mustNoErr(t, f.Replace([]interface{}{testPod("ns", "third", "3")}, "3"))
	close(release)
	mustNoErr(t, <-popped)
	got := queueDrainBatches(t, f)
	want := []string{"single initial=false: Added:second@2", "single initial=false: ReplacedAll:All(3:third@3)"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestLockedProcessingHoldsTheQueueLockUntilProcessReturns(t *testing.T) {
	for _, unlock := range []bool{false, true} {
		t.Run(fmt.Sprintf("unlock=%v", unlock), func(t *testing.T) {
			f := queueAtomic(RealFIFOOptions{UnlockWhileProcessing: unlock})
			mustNoErr(t, f.Add(testPod("ns", "a", "1")))
			var lockFree bool
			_, err := f.Pop(func(interface{}, bool) error {
				if lockFree = f.lock.TryLock(); lockFree {
					f.lock.Unlock()
				}
				return nil
			})
			mustNoErr(t, err)
			if lockFree != unlock {
				t.Fatalf("lock free during process = %v, want %v", lockFree, unlock)
			}
		})
	}
}
