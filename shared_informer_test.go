package cache

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// informerTestSource lists a fixed set of pods and hands out fake watchers
// the test drives. It declines WatchList semantics.
type informerTestSource struct {
	// pods is what every List returns, at resource version "10".
	pods []*v1.Pod
	// watchers receives each watcher Watch returns.
	watchers chan *watch.FakeWatcher
}

func newInformerTestSource(pods ...*v1.Pod) *informerTestSource {
	return &informerTestSource{pods: pods, watchers: make(chan *watch.FakeWatcher, 8)}
}

func (s *informerTestSource) List(metav1.ListOptions) (runtime.Object, error) {
	list := &v1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "10"}}
	for _, p := range s.pods {
		list.Items = append(list.Items, *p.DeepCopy())
	}
	return list, nil
}

func (s *informerTestSource) Watch(metav1.ListOptions) (watch.Interface, error) {
	w := watch.NewFakeWithChanSize(64, false)
	s.watchers <- w
	return w, nil
}

func (s *informerTestSource) IsWatchListSemanticsUnSupported() bool { return true }

// lockedPodLog is a podEventLog safe for concurrent use that can block every
// call until released.
type lockedPodLog struct {
	mu   sync.Mutex
	log  podEventLog
	gate chan struct{}
}

func (l *lockedPodLog) wait() {
	if l.gate != nil {
		<-l.gate
	}
}
func (l *lockedPodLog) OnAdd(obj interface{}, initial bool) {
	l.wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.log.OnAdd(obj, initial)
}
func (l *lockedPodLog) OnUpdate(oldObj, newObj interface{}) {
	l.wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.log.OnUpdate(oldObj, newObj)
}
func (l *lockedPodLog) OnDelete(obj interface{}) {
	l.wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.log.OnDelete(obj)
}
func (l *lockedPodLog) calls() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.log.calls...)
}

// startInformerForTest runs inf in a goroutine and returns the first watcher
// and a stop function that waits for Run to return.
func startInformerForTest(inf SharedIndexInformer, src *informerTestSource) (*watch.FakeWatcher, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { inf.RunWithContext(ctx); close(done) }()
	w := <-src.watchers
	return w, func() { cancel(); <-done }
}

func TestRunAfterStopReturnsAtOnceAndTheInformerRefusesNewHandlers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newInformerTestSource(podForTest("a", "1"))
		inf := NewSharedIndexInformer(src, &v1.Pod{}, 0, Indexers{})
		reg, err := inf.AddEventHandler(&lockedPodLog{})
		if err != nil {
			t.Fatal(err)
		}
		_, stop := startInformerForTest(inf, src)
		synctest.Wait()
		stop()
		if !inf.IsStopped() {
			t.Fatal("IsStopped false after Run returned")
		}
		returned := make(chan struct{})
		go func() { inf.Run(make(chan struct{})); close(returned) }()
		synctest.Wait()
		select {
		case <-returned:
		default:
			t.Fatal("second Run did not return at once")
		}
		if _, err := inf.AddEventHandler(&lockedPodLog{}); err == nil {
			t.Error("AddEventHandler after stop succeeded")
		}
		if err := inf.AddIndexers(Indexers{"x": MetaNamespaceIndexFunc}); err == nil || err.Error() != "indexer was not added because it has stopped already" {
			t.Errorf("AddIndexers after stop: %v", err)
		}
		if err := inf.RemoveEventHandler(reg); err != nil {
			t.Errorf("RemoveEventHandler after stop: %v", err)
		}
	})
}

func TestSettersFailOnceTheInformerStarted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newInformerTestSource()
		inf := NewSharedIndexInformer(src, &v1.Pod{}, 0, Indexers{})
		if err := inf.SetTransform(nil); err != nil {
			t.Fatalf("SetTransform before start: %v", err)
		}
		if err := inf.SetWatchErrorHandler(func(*Reflector, error) {}); err != nil {
			t.Fatalf("SetWatchErrorHandler before start: %v", err)
		}
		_, stop := startInformerForTest(inf, src)
		defer stop()
		synctest.Wait()
		for name, err := range map[string]error{
			"SetTransform":                    inf.SetTransform(nil),
			"SetWatchErrorHandler":            inf.SetWatchErrorHandler(nil),
			"SetWatchErrorHandlerWithContext": inf.SetWatchErrorHandlerWithContext(nil),
		} {
			if err == nil || err.Error() != "informer has already started" {
				t.Errorf("%s after start: %v", name, err)
			}
		}
		if err := inf.RemoveEventHandler(nil); err == nil || err.Error() != "invalid key type %!t(<nil>)" {
			t.Errorf("RemoveEventHandler(nil): %v", err)
		}
	})
}

func TestRemoveEventHandlerStopsOnlyThatHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newInformerTestSource(podForTest("a", "1"))
		inf := NewSharedIndexInformer(src, &v1.Pod{}, 0, Indexers{})
		kept, removed := &lockedPodLog{}, &lockedPodLog{}
		if _, err := inf.AddEventHandler(kept); err != nil {
			t.Fatal(err)
		}
		reg, err := inf.AddEventHandler(removed)
		if err != nil {
			t.Fatal(err)
		}
		w, stop := startInformerForTest(inf, src)
		defer stop()
		synctest.Wait()
		if err := inf.RemoveEventHandler(reg); err != nil {
			t.Fatal(err)
		}
		w.Add(podForTest("b", "11"))
		synctest.Wait()
		if got, want := kept.calls(), []string{"add a@1 initial=true", "add b@11 initial=false"}; !reflect.DeepEqual(got, want) {
			t.Errorf("kept handler saw %q, want %q", got, want)
		}
		if got, want := removed.calls(), []string{"add a@1 initial=true"}; !reflect.DeepEqual(got, want) {
			t.Errorf("removed handler saw %q, want %q", got, want)
		}
	})
}

// backlogProvider is an InformerMetricsProvider that also implements
// KcacheInformerMetricsProvider (backlog gauges only) and keeps every gauge
// it made.
type backlogProvider struct {
	noopInformerMetrics
	mu     sync.Mutex
	gauges map[string]*gaugeRecorder
}

func (p *backlogProvider) KcacheNewHandlerDeliveryLatencyMetric(InformerNameAndResource, string) HistogramMetric {
	return nil
}

func (p *backlogProvider) KcacheNewHandlerDeliveredMetric(InformerNameAndResource, string) CounterMetric {
	return nil
}

func (p *backlogProvider) KcacheNewPendingNotificationsMetric(id InformerNameAndResource, handler string) GaugeMetric {
	p.mu.Lock()
	defer p.mu.Unlock()
	g := &gaugeRecorder{}
	p.gauges[handler] = g
	return g
}

type stuckHandlerForTest struct{ lockedPodLog }
type quickHandlerForTest struct{ lockedPodLog }

func TestBlockedHandlerBacklogIsReportedWhileOthersKeepUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newInformerTestSource(podForTest("a", "1"))
		provider := &backlogProvider{gauges: map[string]*gaugeRecorder{}}
		inf := NewSharedIndexInformerWithOptions(src, &v1.Pod{}, SharedIndexInformerOptions{InformerMetricsProvider: provider})
		stuck := &stuckHandlerForTest{lockedPodLog{gate: make(chan struct{})}}
		quick := &quickHandlerForTest{}
		stuckReg, _ := inf.AddEventHandler(stuck)
		quickReg, _ := inf.AddEventHandler(quick)
		w, stop := startInformerForTest(inf, src)
		defer stop()
		const updates = 50
		for i := 0; i < updates; i++ {
			w.Modify(podForTest("a", fmt.Sprint(100+i)))
		}
		synctest.Wait()
		if got := len(quick.calls()); got != updates+1 {
			t.Fatalf("quick handler saw %d notifications, want %d", got, updates+1)
		}
		if !quickReg.HasSynced() || stuckReg.HasSynced() {
			t.Fatalf("synced: quick %v stuck %v, want true false", quickReg.HasSynced(), stuckReg.HasSynced())
		}
		gauge := provider.gauges["github.com/kcache-go/cache.stuckHandlerForTest"]
		if gauge == nil || gauge.v.Load() != updates+1 {
			t.Fatalf("stuck handler's backlog gauge %v, want %d", gauge, updates+1)
		}
		if got := stuckReg.(interface{ KcachePendingNotifications() int }).KcachePendingNotifications(); got != updates+1 {
			t.Fatalf("KcachePendingNotifications %d, want %d", got, updates+1)
		}
		close(stuck.gate)
		synctest.Wait()
		if !reflect.DeepEqual(stuck.calls(), quick.calls()) {
			t.Fatal("stuck handler saw a different sequence once released")
		}
		if gauge.v.Load() != 0 || !stuckReg.HasSynced() {
			t.Fatalf("after release: backlog %d synced %v", gauge.v.Load(), stuckReg.HasSynced())
		}
	})
}

func TestInformerCheckersNameTheObjectTypeAndTheHandler(t *testing.T) {
	inf := NewSharedInformer(newInformerTestSource(), &v1.Pod{}, 0)
	reg, err := inf.AddEventHandler(ResourceEventHandlerFuncs{})
	if err != nil {
		t.Fatal(err)
	}
	if got := inf.HasSyncedChecker().Name(); got != "SharedIndexInformer *v1.Pod" {
		t.Errorf("informer checker %q", got)
	}
	if got := reg.HasSyncedChecker().Name(); got != "SharedIndexInformer *v1.Pod + event handler cache.ResourceEventHandlerFuncs" {
		t.Errorf("registration checker %q", got)
	}
	if inf.HasSynced() || inf.GetController().HasSynced() || inf.LastSyncResourceVersion() != "" {
		t.Error("informer reports progress before Run")
	}
}

func TestInformerLeavesNoGoroutineBehindAfterStop(t *testing.T) {
	defer goleak.VerifyNone(t)
	src := newInformerTestSource(podForTest("a", "1"), podForTest("b", "2"))
	inf := NewSharedIndexInformer(src, &v1.Pod{}, time.Minute, Indexers{})
	reg, err := inf.AddEventHandlerWithResyncPeriod(&lockedPodLog{}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { inf.RunWithContext(ctx); close(done) }()
	if !WaitFor(ctx, "", inf.HasSyncedChecker(), reg.HasSyncedChecker()) {
		t.Fatal("never synced")
	}
	if got := len(inf.GetStore().ListKeys()); got != 2 {
		t.Fatalf("cache holds %d objects", got)
	}
	cancel()
	<-done
}

func TestNewInformerDeliversListWatchAndResyncToItsHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newInformerTestSource(podForTest("a", "1"))
		log := &lockedPodLog{}
		store, ctrl := NewInformerWithOptions(InformerOptions{ListerWatcher: src, ObjectType: &v1.Pod{}, Handler: log, ResyncPeriod: 30 * time.Second})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { ctrl.RunWithContext(ctx); close(done) }()
		w := <-src.watchers
		synctest.Wait()
		if !ctrl.HasSynced() || ctrl.LastSyncResourceVersion() != "10" {
			t.Fatalf("synced %v rv %q", ctrl.HasSynced(), ctrl.LastSyncResourceVersion())
		}
		w.Modify(podForTest("a", "11"))
		time.Sleep(30 * time.Second)
		synctest.Wait()
		cancel()
		<-done
		want := []string{"add a@1 initial=true", "update a@1 -> a@11", "update a@11 -> a@11"}
		if got := log.calls(); !reflect.DeepEqual(got, want) {
			t.Fatalf("calls %q, want %q", got, want)
		}
		if got := storeContentsForTest(store); !reflect.DeepEqual(got, []string{"a@11"}) {
			t.Fatalf("store %q", got)
		}
	})
}
