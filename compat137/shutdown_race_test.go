package compat137

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"

	kc "github.com/kcache-go/cache"
	kctesting "github.com/kcache-go/cache/testing"
	v1 "k8s.io/api/core/v1"
	cg "k8s.io/client-go/tools/cache"
	cgtesting "k8s.io/client-go/tools/cache/testing"
)

// stopRaceSide is one library's informer for the stop race: run starts it,
// shutDown shuts the handler down, isStopped reports IsStopped.
type stopRaceSide struct {
	run       func(ctx context.Context)
	isStopped func() bool
	shutDown  func() error
	stop      func()
}

// newStopRaceSideFunc builds one library's informer for the stop race
// with one pod and a handler that flags every callback it is inside of in
// inside and blocks in its callbacks until release closes.
type newStopRaceSideFunc func(inside *atomic.Int32, entered chan<- struct{}, release <-chan struct{}) *stopRaceSide

// stopRaceCallback is the handler's callback body of the stop race.
func stopRaceCallback(inside *atomic.Int32, entered chan<- struct{}, release <-chan struct{}) func() {
	return func() {
		inside.Add(1)
		select {
		case entered <- struct{}{}:
		default:
		}
		<-release
		inside.Add(-1)
	}
}

// newStopRaceSideCG is the client-go side of the stop race.
func newStopRaceSideCG(inside *atomic.Int32, entered chan<- struct{}, release <-chan struct{}) *stopRaceSide {
	enter := stopRaceCallback(inside, entered, release)
	src := cgtesting.NewFakeControllerSource()
	src.Add(pod("ns", "a", ""))
	src.Add(pod("ns", "b", ""))
	inf := cg.NewTypedSharedIndexInformer[*v1.Pod](cg.NewSharedIndexInformer(src, &v1.Pod{}, 0, cg.Indexers{}))
	h, _ := inf.AddTypedEventHandler(cg.TypedResourceEventHandlerFuncs[*v1.Pod]{AddFunc: func(*v1.Pod) { enter() }})
	return &stopRaceSide{run: inf.RunWithContext, isStopped: inf.IsStopped,
		shutDown: func() error { return cg.ShutDownEventHandler(inf, h) }, stop: src.Shutdown}
}

// newStopRaceSideKC is the kcache side of the stop race.
func newStopRaceSideKC(inside *atomic.Int32, entered chan<- struct{}, release <-chan struct{}) *stopRaceSide {
	enter := stopRaceCallback(inside, entered, release)
	src := kctesting.NewFakeControllerSource()
	src.Add(pod("ns", "a", ""))
	src.Add(pod("ns", "b", ""))
	inf := kc.NewTypedSharedIndexInformer[*v1.Pod](kc.NewSharedIndexInformer(src, &v1.Pod{}, 0, kc.Indexers{}))
	h, _ := inf.AddTypedEventHandler(kc.TypedResourceEventHandlerFuncs[*v1.Pod]{AddFunc: func(*v1.Pod) { enter() }})
	return &stopRaceSide{run: inf.RunWithContext, isStopped: inf.IsStopped,
		shutDown: func() error { return kc.ShutDownEventHandler(inf, h) }, stop: src.Shutdown}
}

// raceShutDownWithStop blocks the handler in its first callback, stops the
// informer, and calls ShutDownEventHandler as soon as IsStopped reports
// true, while the informer is still stopping its handlers. It returns how
// many of the iterations saw ShutDownEventHandler return while the handler
// was still inside a callback.
func raceShutDownWithStop(newSide newStopRaceSideFunc, iterations int) int {
	violations := 0
	for range iterations {
		var inside atomic.Int32
		entered := make(chan struct{}, 1)
		release := make(chan struct{})
		side := newSide(&inside, entered, release)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); side.run(ctx) }()
		<-entered
		cancel()
		for !side.isStopped() {
			runtime.Gosched()
		}
		returned := make(chan struct{})
		violated := atomic.Bool{}
		go func() {
			defer close(returned)
			_ = side.shutDown()
			violated.Store(inside.Load() != 0)
		}()
		for range 50 {
			runtime.Gosched()
		}
		close(release)
		<-returned
		<-done
		side.stop()
		if violated.Load() {
			violations++
		}
	}
	return violations
}

func TestShutDownEventHandlerRacingTheInformersStopNeverReturnsWhileTheHandlerRuns(t *testing.T) {
	const iterations = 300
	if n := raceShutDownWithStop(newStopRaceSideCG, iterations); n != 0 {
		t.Logf("client-go: %d of %d shutdowns returned while the handler ran", n, iterations)
	}
	if n := raceShutDownWithStop(newStopRaceSideKC, iterations); n != 0 {
		t.Errorf("kcache: %d of %d shutdowns returned while the handler ran", n, iterations)
	}
}
