package compat137

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	kc "github.com/kcache-go/cache"
	kctesting "github.com/kcache-go/cache/testing"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	cg "k8s.io/client-go/tools/cache"
	cgtesting "k8s.io/client-go/tools/cache/testing"
)

// informerSide is one library's informer driven by the scenarios: a
// FakeControllerSource of the same library feeds a SharedIndexInformer
// wrapped by NewTypedSharedIndexInformer.
type informerSide struct {
	add        func(p *v1.Pod)
	modify     func(p *v1.Pod)
	delete     func(p *v1.Pod)
	run        func(ctx context.Context)
	hasSynced  func() bool
	addTyped   func(r *recorder, gate func(string)) (any, error)
	shutDown   func(handle any) error
	shutDownOf func(wrapped bool, handle any) error
	bogus      func() error
	// stopSource ends the source's broadcaster goroutine.
	stopSource func()
}

// informerSource is a FakeControllerSource of either library as the
// sides feed it.
type informerSource interface {
	Add(obj runtime.Object)
	Modify(obj runtime.Object)
	Delete(lastValue runtime.Object)
	Shutdown()
}

// typedInformerOf is a library's TypedSharedIndexInformer[*v1.Pod] as the
// sides drive it: H its typed handler, O its HandlerOptions, R its
// registration.
type typedInformerOf[H, O, R any] interface {
	RunWithContext(ctx context.Context)
	HasSynced() bool
	AddTypedEventHandler(handler H, options ...O) (R, error)
}

// typedLib is one library's typed-informer calls of the sides: U is its
// SharedIndexInformer, I its typed wrapper of U.
type typedLib[U any, I typedInformerOf[H, O, R], H, O, R any] struct {
	wrap  func(U) I
	gated func(r *recorder, gate func(string)) H
	// shutDown is the library's ShutDownEventHandler on informer (a U or I).
	shutDown func(informer any, handle R) error
	// bogus is a registration of no informer.
	bogus R
}

var (
	typedCG = typedLib[cg.SharedIndexInformer, cg.TypedSharedIndexInformer[*v1.Pod], cg.TypedResourceEventHandler[*v1.Pod], cg.HandlerOptions, cg.ResourceEventHandlerRegistration]{
		wrap: cg.NewTypedSharedIndexInformer[*v1.Pod], gated: gatedHandlerCG, bogus: struct {
			cg.ResourceEventHandlerRegistration
		}{},
		shutDown: func(i any, h cg.ResourceEventHandlerRegistration) error {
			return cg.ShutDownEventHandler(i.(cg.SharedInformer), h)
		}}
	typedKC = typedLib[kc.SharedIndexInformer, kc.TypedSharedIndexInformer[*v1.Pod], kc.TypedResourceEventHandler[*v1.Pod], kc.HandlerOptions, kc.ResourceEventHandlerRegistration]{
		wrap: kc.NewTypedSharedIndexInformer[*v1.Pod], gated: gatedHandlerKC, bogus: struct {
			kc.ResourceEventHandlerRegistration
		}{},
		shutDown: func(i any, h kc.ResourceEventHandlerRegistration) error {
			return kc.ShutDownEventHandler(i.(kc.SharedInformer), h)
		}}
)

// newInformerSideCG builds the client-go side (inside the bubble).
func newInformerSideCG() *informerSide {
	src := cgtesting.NewFakeControllerSource()
	return informerSideOf(typedCG, src, cg.NewSharedIndexInformer(src, &v1.Pod{}, 0, cg.Indexers{}))
}

// newInformerSideKC builds the kcache side.
func newInformerSideKC() *informerSide {
	src := kctesting.NewFakeControllerSource()
	return informerSideOf(typedKC, src, kc.NewSharedIndexInformer(src, &v1.Pod{}, 0, kc.Indexers{}))
}

// informerSideOf is the side of lib's typed wrapper, handlers and
// ShutDownEventHandler over untyped, which src feeds.
func informerSideOf[U any, I typedInformerOf[H, O, R], H, O, R any](lib typedLib[U, I, H, O, R], src informerSource, untyped U) *informerSide {
	inf := lib.wrap(untyped)
	s := &informerSide{
		add: func(p *v1.Pod) { src.Add(p) }, modify: func(p *v1.Pod) { src.Modify(p) }, delete: func(p *v1.Pod) { src.Delete(p) },
		run: inf.RunWithContext, hasSynced: inf.HasSynced, stopSource: src.Shutdown,
	}
	s.addTyped = func(r *recorder, gate func(string)) (any, error) {
		return inf.AddTypedEventHandler(lib.gated(r, gate))
	}
	s.shutDownOf = func(wrapped bool, handle any) error {
		h, _ := handle.(R)
		if wrapped {
			return lib.shutDown(inf, h)
		}
		return lib.shutDown(untyped, h)
	}
	s.bogus = func() error { return lib.shutDown(inf, lib.bogus) }
	return s
}

// gatedHandlerCG records every notification and calls gate (which may
// block) on entering each callback.
func gatedHandlerCG(r *recorder, gate func(string)) cg.TypedResourceEventHandler[*v1.Pod] {
	return gatedHandlerOf[cg.TypedResourceEventHandlerDetailedFuncs[*v1.Pod]](r, gate, describeDeletedCG)
}

// gatedHandlerKC is gatedHandlerCG for kcache.
func gatedHandlerKC(r *recorder, gate func(string)) kc.TypedResourceEventHandler[*v1.Pod] {
	return gatedHandlerOf[kc.TypedResourceEventHandlerDetailedFuncs[*v1.Pod]](r, gate, describeDeletedKC)
}

// gatedHandlerOf is a library's TypedResourceEventHandlerDetailedFuncs F
// (D its DeletedObject) that records every notification and calls gate on
// entering each callback.
func gatedHandlerOf[F ~struct {
	AddFunc    func(obj *v1.Pod, isInInitialList bool)
	UpdateFunc func(oldObj, newObj *v1.Pod)
	DeleteFunc func(obj D)
}, D interface{ GetName() string }](r *recorder, gate func(string), describeDeleted func(D) string) F {
	return F{
		AddFunc: func(p *v1.Pod, initial bool) {
			r.logf("handler: add %s initial=%v", describe(p), initial)
			gate(p.Name)
		},
		UpdateFunc: func(o, n *v1.Pod) { r.logf("handler: update %s -> %s", describe(o), describe(n)); gate(n.Name) },
		DeleteFunc: func(d D) {
			r.logf("handler: delete %s", describeDeleted(d))
			gate(d.GetName())
		},
	}
}

// lockedRecorder is a recorder shared by a handler goroutine and the test.
type lockedRecorder struct {
	mu sync.Mutex
	recorder
}

func (r *lockedRecorder) logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recorder.logf(format, args...)
}

// playTypedInformer runs a typed handler on a running informer through an
// initial list, adds, updates and deletes, and a late second handler.
func playTypedInformer(t *testing.T, newSide func() *informerSide) []string {
	var lines []string
	synctest.Test(t, func(t *testing.T) {
		side := newSide()
		r := &recorder{}
		side.add(pod("ns", "a", ""))
		side.add(pod("", "cluster", ""))
		if _, err := side.addTyped(r, func(string) {}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); side.run(ctx) }()
		synctest.Wait()
		// NB: the order of the initial list is the fake source's map order
		// in both libraries.
		slices.Sort(r.lines)
		r.logf("synced=%v", side.hasSynced())
		p := pod("ns", "a", "")
		p.Labels = map[string]string{"v": "2"}
		side.modify(p)
		synctest.Wait()
		side.add(pod("ns", "b", ""))
		synctest.Wait()
		side.delete(pod("ns", "a", ""))
		synctest.Wait()
		late := &recorder{}
		if _, err := side.addTyped(late, func(string) {}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		cancel()
		<-done
		side.stopSource()
		// NB: the late handler's synthetic adds follow the cache's List
		// order, which client-go leaves to map iteration.
		slices.Sort(late.lines)
		lines = append(r.lines, late.lines...)
	})
	return lines
}

func TestTypedHandlerOnARunningInformerSeesWhatClientGosSees(t *testing.T) {
	compareTraces(t, playTypedInformer(t, newInformerSideCG), playTypedInformer(t, newInformerSideKC))
}

// playShutDown blocks the handler inside its first callback, queues more
// notifications, shuts the handler down and records when ShutDownEventHandler
// returns relative to the callback, and what the handler still sees.
func playShutDown(t *testing.T, newSide func() *informerSide, wrapped bool) []string {
	var lines []string
	synctest.Test(t, func(t *testing.T) {
		side := newSide()
		r := &lockedRecorder{}
		release := make(chan struct{})
		side.add(pod("ns", "a", ""))
		handle, err := side.addTyped(&r.recorder, func(name string) {
			if name == "a" {
				<-release
				r.logf("handler: leaves the callback of %s", name)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); side.run(ctx) }()
		synctest.Wait()
		side.add(pod("ns", "b", ""))
		side.add(pod("ns", "c", ""))
		synctest.Wait()
		returned := make(chan error, 1)
		go func() { returned <- side.shutDownOf(wrapped, handle) }()
		synctest.Wait()
		r.logf("returned while the callback runs: %v", len(returned) == 1)
		close(release)
		synctest.Wait()
		r.logf("returned after the callback: %v (err %v)", len(returned) == 1, <-returned)
		side.add(pod("ns", "d", ""))
		synctest.Wait()
		r.logf("second shutdown: %v", side.shutDownOf(wrapped, handle))
		r.logf("bogus handle: %v", side.bogus())
		r.logf("nil handle: %v", side.shutDownOf(wrapped, nil))
		cancel()
		<-done
		side.stopSource()
		r.logf("after stop: %v", side.shutDownOf(wrapped, handle))
		lines = r.lines
	})
	return lines
}

func TestShutDownEventHandlerReturnsOnlyAfterTheRunningCallbackAndDropsTheRest(t *testing.T) {
	for _, wrapped := range []bool{false, true} {
		t.Run(fmt.Sprintf("through the typed wrapper=%v", wrapped), func(t *testing.T) {
			compareTraces(t, playShutDown(t, newInformerSideCG, wrapped), playShutDown(t, newInformerSideKC, wrapped))
		})
	}
}

// playShutDownBeforeRun shuts a handler down before the informer runs.
func playShutDownBeforeRun(t *testing.T, newSide func() *informerSide) []string {
	var lines []string
	synctest.Test(t, func(t *testing.T) {
		side := newSide()
		r := &recorder{}
		side.add(pod("ns", "a", ""))
		handle, err := side.addTyped(r, func(string) {})
		if err != nil {
			t.Fatal(err)
		}
		r.logf("shutdown before run: %v", side.shutDownOf(false, handle))
		r.logf("again: %v", side.shutDownOf(true, handle))
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); side.run(ctx) }()
		synctest.Wait()
		r.logf("synced=%v", side.hasSynced())
		cancel()
		<-done
		side.stopSource()
		lines = r.lines
	})
	return lines
}

func TestShutDownEventHandlerBeforeRunReturnsAtOnceAndTheHandlerNeverRuns(t *testing.T) {
	compareTraces(t, playShutDownBeforeRun(t, newInformerSideCG), playShutDownBeforeRun(t, newInformerSideKC))
}
