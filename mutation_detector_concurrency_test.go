package cache

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	clocktesting "k8s.io/utils/clock/testing"
)

// TestMutationDetectorAddObjectWhileRunChecksAndRotatesReportsNothing adds
// objects from several goroutines while Run checks and rotates its
// generations on a stepping fake clock; nothing is mutated, so nothing may
// be reported (and -race finds no unguarded access).
func TestMutationDetectorAddObjectWhileRunChecksAndRotatesReportsNothing(t *testing.T) {
	defer goleak.VerifyNone(t)
	clk := clocktesting.NewFakeClock(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	var mu sync.Mutex
	var failures []string
	d := newCacheMutationDetector("concurrent", clk, func(msg string) {
		mu.Lock()
		failures = append(failures, msg)
		mu.Unlock()
	})
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { defer close(done); d.Run(stop) }()
	var adders sync.WaitGroup
	for a := 0; a < 4; a++ {
		adders.Add(1)
		go func() {
			defer adders.Done()
			for i := 0; i < 200; i++ {
				d.AddObject(watchedConfigMap(fmt.Sprintf("a%d-%d", a, i)))
			}
		}()
	}
	// NB: steps of half the retention rotate the generations while the
	// adders run; each waits for Run to sleep again.
	for step := 0; step < 10; step++ {
		for !clk.HasWaiters() {
			runtime.Gosched()
		}
		clk.Step(mutationRetention / 2)
	}
	adders.Wait()
	for !clk.HasWaiters() {
		runtime.Gosched()
	}
	clk.Step(mutationCheckPeriod)
	for !clk.HasWaiters() {
		runtime.Gosched()
	}
	close(stop)
	<-done
	mu.Lock()
	defer mu.Unlock()
	if len(failures) != 0 {
		t.Fatalf("reported unmutated objects: %v", failures)
	}
}
