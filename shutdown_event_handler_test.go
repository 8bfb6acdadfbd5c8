package cache

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	testingclock "k8s.io/utils/clock/testing"
)

// podSource lists pods and hands out one fake watch that the test feeds;
// it does not support WatchList, so the informer lists.
type podSource struct {
	pods    []v1.Pod
	watcher *watch.FakeWatcher
}

func (s *podSource) List(metav1.ListOptions) (runtime.Object, error) {
	return &v1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: s.pods}, nil
}

func (s *podSource) Watch(metav1.ListOptions) (watch.Interface, error) { return s.watcher, nil }

func (s *podSource) IsWatchListSemanticsUnSupported() bool { return true }

// listWatch returns the source.
func (s *podSource) listWatch() ListerWatcher { return s }

// gatedLog records handler calls; the callback for name "block" waits for
// release.
type gatedLog struct {
	mu      sync.Mutex
	calls   []string
	release chan struct{}
}

func (g *gatedLog) record(s string) {
	g.mu.Lock()
	g.calls = append(g.calls, s)
	g.mu.Unlock()
}

func (g *gatedLog) handler() ResourceEventHandler {
	return ResourceEventHandlerFuncs{AddFunc: func(obj any) {
		p := obj.(*v1.Pod)
		g.record("add " + p.Name)
		if p.Name == "block" {
			<-g.release
			g.record("released " + p.Name)
		}
	}}
}

func (g *gatedLog) String() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return fmt.Sprint(g.calls)
}

func TestShutDownEventHandlerWaitsForTheRunningCallbackAndDropsQueuedNotifications(t *testing.T) {
	for _, typed := range []bool{false, true} {
		t.Run(fmt.Sprintf("through the typed wrapper %v", typed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := &podSource{pods: []v1.Pod{*testPod("ns", "block", "1")}, watcher: watch.NewFakeWithOptions(watch.FakeOptions{ChannelSize: 10})}
				var informer SharedIndexInformer = NewSharedIndexInformer(src.listWatch(), &v1.Pod{}, 0, Indexers{})
				if typed {
					informer = NewTypedSharedIndexInformer[*v1.Pod](informer)
				}
				log := &gatedLog{release: make(chan struct{})}
				handle, err := informer.AddEventHandler(log.handler())
				if err != nil {
					t.Fatal(err)
				}
				other, _ := informer.AddEventHandler(ResourceEventHandlerFuncs{})
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() { defer close(done); informer.RunWithContext(ctx) }()
				synctest.Wait()
				src.watcher.Add(testPod("ns", "queued", "2"))
				synctest.Wait()
				returned := make(chan error, 1)
				go func() { returned <- ShutDownEventHandler(informer, handle) }()
				synctest.Wait()
				if len(returned) != 0 {
					t.Fatal("ShutDownEventHandler returned while the callback was running")
				}
				close(log.release)
				synctest.Wait()
				if len(returned) != 1 {
					t.Fatal("ShutDownEventHandler did not return after the callback")
				}
				if err := <-returned; err != nil {
					t.Fatal(err)
				}
				src.watcher.Add(testPod("ns", "later", "3"))
				synctest.Wait()
				if got, want := log.String(), "[add block released block]"; got != want {
					t.Fatalf("calls = %s, want %s", got, want)
				}
				if err := ShutDownEventHandler(informer, handle); err != nil {
					t.Fatalf("second shutdown: %v", err)
				}
				if err := ShutDownEventHandler(informer, nil); err == nil || err.Error() != "invalid key type %!t(<nil>)" {
					t.Fatalf("nil handle: %v", err)
				}
				cancel()
				<-done
				if err := ShutDownEventHandler(informer, other); err != nil {
					t.Fatalf("after stop: %v", err)
				}
			})
		})
	}
}

func TestShutDownEventHandlerReturnsAtOnceForHandlersThatNeverRanOrBelongElsewhere(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &podSource{pods: []v1.Pod{*testPod("ns", "block", "1")}, watcher: watch.NewFake()}
		informer := NewSharedIndexInformer(src.listWatch(), &v1.Pod{}, 0, Indexers{})
		elsewhere := NewSharedIndexInformer(src.listWatch(), &v1.Pod{}, 0, Indexers{})
		log := &gatedLog{release: make(chan struct{})}
		before, _ := informer.AddEventHandler(ResourceEventHandlerFuncs{})
		if err := ShutDownEventHandler(informer, before); err != nil {
			t.Fatal(err)
		}
		running, _ := informer.AddEventHandler(log.handler())
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); informer.RunWithContext(ctx) }()
		synctest.Wait()
		if err := ShutDownEventHandler(elsewhere, running); err != nil {
			t.Fatal(err)
		}
		if running.(*processorListener).KcachePendingNotifications() != 1 {
			t.Fatal("the registration of another informer was stopped")
		}
		close(log.release)
		cancel()
		<-done
		src.watcher.Stop()
	})
}

// stoppedInformer is an informer that has stopped: RemoveEventHandler does
// nothing, as a stopped sharedIndexInformer's, while its processor may
// still be stopping the handlers.
type stoppedInformer struct {
	SharedInformer
}

func (stoppedInformer) RemoveEventHandler(ResourceEventHandlerRegistration) error { return nil }
func (stoppedInformer) IsStopped() bool                                           { return true }

func TestShutDownEventHandlerOnAStoppedInformerWaitsUntilItsProcessorHasStoppedTheHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &gatedLog{release: make(chan struct{})}
		p := &sharedProcessor{clock: testingclock.NewFakeClock(time.Now())}
		l := newTestListener(g.handler(), newManualChecker(), nil)
		p.addListener(l)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); p.run(ctx) }()
		l.add(notification{kind: notifyAdd, newObj: &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "block"}}})
		synctest.Wait()
		returned := make(chan error, 1)
		go func() { returned <- ShutDownEventHandler(stoppedInformer{}, l) }()
		synctest.Wait()
		if len(returned) != 0 {
			t.Fatalf("returned before the processor stopped the handler; calls %v", g)
		}
		cancel()
		synctest.Wait()
		if len(returned) != 0 {
			t.Fatalf("returned while the handler is inside its callback; calls %v", g)
		}
		close(g.release)
		if err := <-returned; err != nil {
			t.Fatal(err)
		}
		<-done
		if got, want := g.String(), "[add block released block]"; got != want {
			t.Fatalf("calls %s, want %s", got, want)
		}
	})
}
