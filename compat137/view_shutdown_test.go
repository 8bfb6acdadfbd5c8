package compat137

import (
	"fmt"
	"sync/atomic"
	"testing"

	kc "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/clientgo"
	kctesting "github.com/kcache-go/cache/testing"
	v1 "k8s.io/api/core/v1"
	cg "k8s.io/client-go/tools/cache"
)

// newInformerSideView builds a kcache informer seen through clientgo's
// view, wrapped by client-go's own typed wrapper, with client-go's typed
// handlers, shut down by client-go's ShutDownEventHandler: what a program
// written against client-go v0.37 gets after switching its informer
// constructor to clientgo's.
func newInformerSideView() *informerSide {
	src := kctesting.NewFakeControllerSource()
	return informerSideOf(typedCG, src, clientgo.InformerView(kc.NewSharedIndexInformer(src, &v1.Pod{}, 0, kc.Indexers{})))
}

func TestShutDownEventHandlerOnAClientGoViewReturnsOnlyAfterTheRunningCallbackAsOnClientGo(t *testing.T) {
	for _, wrapped := range []bool{false, true} {
		t.Run(fmt.Sprintf("through the typed wrapper=%v", wrapped), func(t *testing.T) {
			compareTraces(t, playShutDown(t, newInformerSideCG, wrapped), playShutDown(t, newInformerSideView, wrapped))
		})
	}
}

func TestShutDownEventHandlerOnAClientGoViewBeforeRunReturnsAtOnceAsOnClientGo(t *testing.T) {
	compareTraces(t, playShutDownBeforeRun(t, newInformerSideCG), playShutDownBeforeRun(t, newInformerSideView))
}

func TestATypedHandlerThroughAClientGoViewSeesWhatClientGosSees(t *testing.T) {
	compareTraces(t, playTypedInformer(t, newInformerSideCG), playTypedInformer(t, newInformerSideView))
}

// newStopRaceSideView is the stop race's side of a kcache informer behind
// clientgo's view, shut down by client-go's ShutDownEventHandler.
func newStopRaceSideView(inside *atomic.Int32, entered chan<- struct{}, release <-chan struct{}) *stopRaceSide {
	enter := stopRaceCallback(inside, entered, release)
	src := kctesting.NewFakeControllerSource()
	src.Add(pod("ns", "a", ""))
	src.Add(pod("ns", "b", ""))
	inf := cg.NewTypedSharedIndexInformer[*v1.Pod](clientgo.InformerView(kc.NewSharedIndexInformer(src, &v1.Pod{}, 0, kc.Indexers{})))
	h, _ := inf.AddTypedEventHandler(cg.TypedResourceEventHandlerFuncs[*v1.Pod]{AddFunc: func(*v1.Pod) { enter() }})
	return &stopRaceSide{run: inf.RunWithContext, isStopped: inf.IsStopped,
		shutDown: func() error { return cg.ShutDownEventHandler(inf, h) }, stop: src.Shutdown}
}

func TestShutDownEventHandlerOnAClientGoViewRacingTheInformersStopNeverReturnsWhileTheHandlerRuns(t *testing.T) {
	const iterations = 300
	if n := raceShutDownWithStop(newStopRaceSideView, iterations); n != 0 {
		t.Errorf("clientgo view: %d of %d shutdowns returned while the handler ran", n, iterations)
	}
}

// newOrderRaceSideView is the ordering race's side of a kcache informer
// behind clientgo's view, shut down by client-go's ShutDownEventHandler.
func newOrderRaceSideView(onCallback func()) *orderRaceSide {
	src := kctesting.NewFakeControllerSource()
	inf := cg.NewTypedSharedIndexInformer[*v1.Pod](clientgo.InformerView(kc.NewSharedIndexInformer(src, &v1.Pod{}, 0, kc.Indexers{})))
	h, _ := inf.AddTypedEventHandler(cg.TypedResourceEventHandlerFuncs[*v1.Pod]{
		AddFunc: func(*v1.Pod) { onCallback() }, UpdateFunc: func(_, _ *v1.Pod) { onCallback() },
	})
	return &orderRaceSide{add: func(n string) { src.Add(pod("ns", n, "")) }, run: inf.RunWithContext, synced: inf.HasSynced,
		shutDown: func() error { return cg.ShutDownEventHandler(inf, h) }, stop: src.Shutdown}
}

func TestTwoConcurrentShutDownsThroughAClientGoViewLeaveNoCallbackAfterEitherReturns(t *testing.T) {
	late, errs := raceShutDownOrdering(newOrderRaceSideView, 200)
	if late != 0 || len(errs) != 0 {
		t.Errorf("clientgo view: %d callbacks began after ShutDownEventHandler returned; errors %v", late, errs)
	}
}
