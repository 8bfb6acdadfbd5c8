package compat137

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	kc "github.com/kcache-go/cache"
	kctesting "github.com/kcache-go/cache/testing"
	v1 "k8s.io/api/core/v1"
	cg "k8s.io/client-go/tools/cache"
	cgtesting "k8s.io/client-go/tools/cache/testing"
)

// orderRaceSide is one library's running informer for the ordering race:
// add feeds the source, shutDown shuts the one handler down.
type orderRaceSide struct {
	add      func(name string)
	run      func(ctx context.Context)
	synced   func() bool
	shutDown func() error
	stop     func()
}

// newOrderRaceSideFunc builds one library's informer for the ordering
// race, whose one handler calls onCallback on entering every callback.
type newOrderRaceSideFunc func(onCallback func()) *orderRaceSide

// newOrderRaceSideCG is the client-go side of the ordering race.
func newOrderRaceSideCG(onCallback func()) *orderRaceSide {
	src := cgtesting.NewFakeControllerSource()
	inf := cg.NewTypedSharedIndexInformer[*v1.Pod](cg.NewSharedIndexInformer(src, &v1.Pod{}, 0, cg.Indexers{}))
	h, _ := inf.AddTypedEventHandler(cg.TypedResourceEventHandlerFuncs[*v1.Pod]{
		AddFunc: func(*v1.Pod) { onCallback() }, UpdateFunc: func(_, _ *v1.Pod) { onCallback() },
	})
	return &orderRaceSide{add: func(n string) { src.Add(pod("ns", n, "")) }, run: inf.RunWithContext, synced: inf.HasSynced,
		shutDown: func() error { return cg.ShutDownEventHandler(inf, h) }, stop: src.Shutdown}
}

// newOrderRaceSideKC is the kcache side of the ordering race.
func newOrderRaceSideKC(onCallback func()) *orderRaceSide {
	src := kctesting.NewFakeControllerSource()
	inf := kc.NewTypedSharedIndexInformer[*v1.Pod](kc.NewSharedIndexInformer(src, &v1.Pod{}, 0, kc.Indexers{}))
	h, _ := inf.AddTypedEventHandler(kc.TypedResourceEventHandlerFuncs[*v1.Pod]{
		AddFunc: func(*v1.Pod) { onCallback() }, UpdateFunc: func(_, _ *v1.Pod) { onCallback() },
	})
	return &orderRaceSide{add: func(n string) { src.Add(pod("ns", n, "")) }, run: inf.RunWithContext, synced: inf.HasSynced,
		shutDown: func() error { return kc.ShutDownEventHandler(inf, h) }, stop: src.Shutdown}
}

// raceShutDownOrdering runs the informer while a producer adds pods, shuts
// the handler down twice concurrently after `after` additions (0: right
// after Run is called, racing the start of the handler), and counts the
// callbacks that began after either ShutDownEventHandler call returned.
func raceShutDownOrdering(newSide newOrderRaceSideFunc, iterations int) (late int, errs []error) {
	for i := range iterations {
		var returned atomic.Bool
		var lateCalls atomic.Int32
		side := newSide(func() {
			if returned.Load() {
				lateCalls.Add(1)
			}
		})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); side.run(ctx) }()
		producer := make(chan struct{})
		go func() {
			defer close(producer)
			for j := range 40 {
				side.add(fmt.Sprintf("p%d", j))
			}
		}()
		for range i % 3 {
			side.add(fmt.Sprintf("q%d", i))
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		for range 2 {
			wg.Go(func() {
				err := side.shutDown()
				returned.Store(true)
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		<-producer
		// NB: stopping during the initial list leaves the list goroutine
		// blocked on the fake source in both libraries.
		for !side.synced() {
			runtime.Gosched()
		}
		cancel()
		<-done
		side.stop()
		late += int(lateCalls.Load())
	}
	return late, errs
}

func TestTwoConcurrentShutDownsOfABusyHandlerLeaveNoCallbackAfterEitherReturns(t *testing.T) {
	const iterations = 200
	for _, side := range []struct {
		lib     string
		newSide newOrderRaceSideFunc
	}{{"client-go", newOrderRaceSideCG}, {"kcache", newOrderRaceSideKC}} {
		late, errs := raceShutDownOrdering(side.newSide, iterations)
		if late != 0 || len(errs) != 0 {
			t.Errorf("%s: %d callbacks began after ShutDownEventHandler returned; errors %v", side.lib, late, errs)
		}
	}
}
