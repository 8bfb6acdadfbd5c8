package clientgo

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	clientgocache "k8s.io/client-go/tools/cache"
)

// relistSource lists pods a and b at resource version 10, then, after the
// watch reports "expired", lists only a at 20: the informer's handlers see
// b deleted through a tombstone.
type relistSource struct {
	mu      sync.Mutex
	lists   int
	watcher chan *watch.FakeWatcher
}

func newRelistSource() *relistSource {
	return &relistSource{watcher: make(chan *watch.FakeWatcher, 4)}
}

func (s *relistSource) listWatch() *clientgocache.ListWatch {
	pod := func(name string) corev1.Pod {
		return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: "5"}}
	}
	return &clientgocache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.lists++
			if s.lists == 1 {
				return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "10"}, Items: []corev1.Pod{pod("a"), pod("b")}}, nil
			}
			return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "20"}, Items: []corev1.Pod{pod("a")}}, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
			w := watch.NewFakeWithChanSize(1, false)
			s.watcher <- w
			return w, nil
		},
	}
}

// viewTrace is what a test observes of an informer's methods and handlers.
type viewTrace struct {
	BeforeRun, AfterSync, AfterStop []string
	Events                          map[string][]string
}

func describeErr(err error) string { return fmt.Sprint(err) }

func traceInformer(t *testing.T, newInformer func(clientgocache.ListerWatcher, runtime.Object, time.Duration, clientgocache.Indexers) clientgocache.SharedIndexInformer) viewTrace {
	t.Helper()
	tr := viewTrace{Events: map[string][]string{}}
	var mu sync.Mutex
	progress := make(chan string, 64) // more than every event the script causes
	record := func(handler, format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		event := fmt.Sprintf(format, args...)
		tr.Events[handler] = append(tr.Events[handler], event)
		progress <- handler + ": " + event
	}
	// awaitEvents returns once every one of wants ("handler: event") was
	// recorded; handlers run on their own goroutines, so each is awaited.
	awaitEvents := func(wants ...string) {
		pending := map[string]bool{}
		for _, w := range wants {
			pending[w] = true
		}
		for len(pending) > 0 {
			delete(pending, <-progress)
		}
	}
	describe := func(obj interface{}) string {
		if d, ok := obj.(clientgocache.DeletedFinalStateUnknown); ok {
			return fmt.Sprintf("client-go tombstone %s of %T", d.Key, d.Obj)
		}
		return fmt.Sprintf("%T %s", obj, obj.(metav1.Object).GetName())
	}
	src := newRelistSource()
	inf := newInformer(clientgocache.ToListWatcherWithWatchListSemantics(src.listWatch(), fake.NewClientset()), &corev1.Pod{}, 0, clientgocache.Indexers{clientgocache.NamespaceIndex: clientgocache.MetaNamespaceIndexFunc})
	tr.BeforeRun = append(tr.BeforeRun, fmt.Sprint(inf.IsStopped()), inf.LastSyncResourceVersion(), fmt.Sprint(inf.HasSynced()),
		fmt.Sprint(inf.GetController().HasSynced()), inf.GetController().LastSyncResourceVersion())
	handlers := map[string]clientgocache.ResourceEventHandler{
		"funcs": clientgocache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj interface{}) { record("funcs", "add %s", describe(obj)) },
			DeleteFunc: func(obj interface{}) { record("funcs", "delete %s", describe(obj)) },
		},
		"detailed": clientgocache.ResourceEventHandlerDetailedFuncs{
			AddFunc:    func(obj interface{}, initial bool) { record("detailed", "add %s initial=%v", describe(obj), initial) },
			DeleteFunc: func(obj interface{}) { record("detailed", "delete %s", describe(obj)) },
		},
		"filtering": clientgocache.FilteringResourceEventHandler{
			FilterFunc: func(obj interface{}) bool {
				_, tomb := obj.(clientgocache.DeletedFinalStateUnknown)
				record("filter", "sees %s", describe(obj))
				return tomb || obj.(metav1.Object).GetName() == "b"
			},
			Handler: clientgocache.ResourceEventHandlerFuncs{DeleteFunc: func(obj interface{}) { record("filtering", "delete %s", describe(obj)) }},
		},
	}
	for _, name := range []string{"funcs", "detailed", "filtering"} {
		reg, err := inf.AddEventHandlerWithOptions(handlers[name], clientgocache.HandlerOptions{})
		if err != nil || reg == nil {
			t.Fatalf("AddEventHandlerWithOptions: %v", err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); inf.RunWithContext(ctx) }()
	if !clientgocache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("no sync")
	}
	(<-src.watcher).Error(&metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old"})
	awaitEvents("funcs: delete client-go tombstone ns/b of *v1.Pod", "detailed: delete client-go tombstone ns/b of *v1.Pod",
		"filtering: delete client-go tombstone ns/b of *v1.Pod")
	w := <-src.watcher // the relist happened before the second watch
	w.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c", ResourceVersion: "21"}})
	awaitEvents("funcs: add *v1.Pod c", "detailed: add *v1.Pod c initial=false", "filter: sees *v1.Pod c")
	pods, _ := corelisters.NewPodLister(inf.GetIndexer()).Pods("ns").List(labels.Everything())
	byNS, _ := inf.GetIndexer().ByIndex(clientgocache.NamespaceIndex, "ns")
	tr.AfterSync = append(tr.AfterSync, fmt.Sprint(len(pods), len(byNS), len(inf.GetStore().ListKeys())),
		fmt.Sprint(inf.IsStopped()),
		describeErr(inf.AddIndexers(clientgocache.Indexers{"x": clientgocache.MetaNamespaceIndexFunc})),
		describeErr(inf.SetTransform(func(o interface{}) (interface{}, error) { return o, nil })),
		describeErr(inf.SetWatchErrorHandler(func(*clientgocache.Reflector, error) {})),
		describeErr(inf.SetWatchErrorHandlerWithContext(func(context.Context, *clientgocache.Reflector, error) {})),
		fmt.Sprint(reflect.TypeOf(inf.GetController()) == nil))
	cancel()
	<-done
	// NB: the handler may see "c" before the reflector records resource
	// version 21 (in both libraries), so the version is read once the
	// informer has stopped and the reflector can no longer move it.
	reg, err := inf.AddEventHandler(clientgocache.ResourceEventHandlerFuncs{})
	tr.AfterStop = append(tr.AfterStop, inf.LastSyncResourceVersion(), fmt.Sprint(inf.IsStopped()), fmt.Sprint(reg == nil, err != nil), describeErr(inf.RemoveEventHandler(reg)))
	mu.Lock()
	defer mu.Unlock()
	return tr
}

func TestEveryMethodOfTheViewAnswersAsClientGosInformer(t *testing.T) {
	want := traceInformer(t, clientgocache.NewSharedIndexInformer)
	got := traceInformer(t, NewSharedIndexInformer)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("view:\n%#v\nclient-go:\n%#v", got, want)
	}
}

// viewCompareLines reports every line where the view's transcript (got)
// differs from client-go's (want); got must be at least as long as want.
func viewCompareLines(t *testing.T, want, got []string) {
	t.Helper()
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("view:\n %s\nclient-go:\n %s", got[i], want[i])
		}
	}
}
