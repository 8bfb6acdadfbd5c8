package clientgo

import (
	"context"
	"errors"
	"fmt"
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

	kcache "github.com/kcache-go/cache"
)

// firstCallRecorder is a ListerWatcher that reports its first call ("list"
// or "watch" with the options that tell WatchList from a plain watch).
type firstCallRecorder struct {
	once  sync.Once
	first chan string
}

func (r *firstCallRecorder) report(call string) {
	r.once.Do(func() { r.first <- call })
}

func (r *firstCallRecorder) listWatch() *clientgocache.ListWatch {
	return &clientgocache.ListWatch{
		ListWithContextFunc: func(_ context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			r.report("list")
			return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}, nil
		},
		WatchFuncWithContext: func(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			initial := opts.SendInitialEvents != nil && *opts.SendInitialEvents
			r.report(fmt.Sprintf("watch sendInitialEvents=%v", initial))
			return watch.NewFake(), nil
		},
	}
}

// firstCallOf runs the informer newInformer builds on lw until its first
// call and returns that call.
func firstCallOf(t *testing.T, wrap func(*clientgocache.ListWatch) clientgocache.ListerWatcher,
	newInformer func(clientgocache.ListerWatcher, runtime.Object, time.Duration, clientgocache.Indexers) clientgocache.SharedIndexInformer) string {
	r := &firstCallRecorder{first: make(chan string, 1)}
	inf := newInformer(wrap(r.listWatch()), &corev1.Pod{}, 0, clientgocache.Indexers{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); inf.RunWithContext(ctx) }()
	call := <-r.first
	cancel()
	<-done
	return call
}

func TestNewSharedIndexInformerKeepsTheWatchListChoiceOfClientGo(t *testing.T) {
	cases := []struct {
		name string
		wrap func(*clientgocache.ListWatch) clientgocache.ListerWatcher
	}{
		{"a plain ListWatch", func(lw *clientgocache.ListWatch) clientgocache.ListerWatcher { return lw }},
		{"a ListWatch of a client that supports WatchList", func(lw *clientgocache.ListWatch) clientgocache.ListerWatcher {
			return clientgocache.ToListWatcherWithWatchListSemantics(lw, struct{}{})
		}},
		{"a ListWatch of a fake clientset (no WatchList semantics)", func(lw *clientgocache.ListWatch) clientgocache.ListerWatcher {
			return clientgocache.ToListWatcherWithWatchListSemantics(lw, fake.NewClientset())
		}},
	}
	seen := map[string]bool{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := firstCallOf(t, tc.wrap, clientgocache.NewSharedIndexInformer)
			got := firstCallOf(t, tc.wrap, NewSharedIndexInformer)
			if got != want {
				t.Errorf("first call %q, client-go makes %q", got, want)
			}
			seen[want] = true
		})
	}
	if len(seen) != 2 {
		t.Errorf("the cases do not exercise both WatchList and List: %v", seen)
	}
}

func TestGeneratedListersReadKcacheStorageThroughTheIndexerView(t *testing.T) {
	kidx := kcache.NewIndexer(kcache.MetaNamespaceKeyFunc, kcache.Indexers{kcache.NamespaceIndex: kcache.MetaNamespaceIndexFunc})
	cidx := clientgocache.NewIndexer(clientgocache.MetaNamespaceKeyFunc, clientgocache.Indexers{clientgocache.NamespaceIndex: clientgocache.MetaNamespaceIndexFunc})
	for _, p := range []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "web", Labels: map[string]string{"app": "web"}}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "db", Labels: map[string]string{"app": "db"}}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "web", Labels: map[string]string{"app": "web"}}},
	} {
		_ = kidx.Add(p)
		_ = cidx.Add(p)
	}
	view := IndexerView(kidx)
	web := labels.SelectorFromSet(labels.Set{"app": "web"})
	cases := []struct {
		name string
		read func(clientgocache.Indexer) string
	}{
		{"List with a selector", func(i clientgocache.Indexer) string {
			pods, err := corelisters.NewPodLister(i).List(web)
			return fmt.Sprint(keysOf(podsAsObjects(pods)), err)
		}},
		{"a namespace's List", func(i clientgocache.Indexer) string {
			pods, err := corelisters.NewPodLister(i).Pods("a").List(labels.Everything())
			return fmt.Sprint(keysOf(podsAsObjects(pods)), err)
		}},
		{"Get of a present pod", func(i clientgocache.Indexer) string {
			p, err := corelisters.NewPodLister(i).Pods("b").Get("web")
			return fmt.Sprint(p.Namespace, p.Name, err)
		}},
		{"Get of a missing pod", func(i clientgocache.Indexer) string {
			_, err := corelisters.NewPodLister(i).Pods("b").Get("db")
			return fmt.Sprint(err)
		}},
		{"a generic lister", func(i clientgocache.Indexer) string {
			objs, err := clientgocache.NewGenericLister(i, corev1.Resource("pods")).ByNamespace("a").List(labels.Everything())
			return fmt.Sprint(keysOf(runtimeAsObjects(objs)), err)
		}},
		{"GetIndexers", func(i clientgocache.Indexer) string { return fmt.Sprint(len(i.GetIndexers())) }},
		{"AddIndexers then ByIndex", func(i clientgocache.Indexer) string {
			err := i.AddIndexers(clientgocache.Indexers{"app": func(obj interface{}) ([]string, error) {
				return []string{obj.(*corev1.Pod).Labels["app"]}, nil
			}})
			objs, err2 := i.ByIndex("app", "web")
			return fmt.Sprint(keysOf(objs), err, err2)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := tc.read(view), tc.read(cidx); got != want {
				t.Errorf("view gives %s, client-go's indexer %s", got, want)
			}
		})
	}
	if back, ok := KcacheIndexer(view); !ok || back != kidx {
		t.Error("KcacheIndexer does not return the viewed indexer")
	}
}

func TestTheViewsWatchErrorHandlerGetsAClientGoReflectorNamedLikeKcaches(t *testing.T) {
	lw := &clientgocache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			return nil, errors.New("boom")
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
			return nil, errors.New("boom")
		},
	}
	inf := NewSharedIndexInformer(clientgocache.ToListWatcherWithWatchListSemantics(lw, fake.NewClientset()), &corev1.Pod{}, 0, nil)
	type seen struct{ name, typ string }
	got := make(chan seen, 1)
	ctx, cancel := context.WithCancel(context.Background())
	err := inf.SetWatchErrorHandlerWithContext(func(ctx context.Context, r *clientgocache.Reflector, err error) {
		clientgocache.DefaultWatchErrorHandler(ctx, r, err) // must not panic on the stand-in
		select {
		case got <- seen{r.Name(), r.TypeDescription()}:
		default:
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); inf.RunWithContext(ctx) }()
	s := <-got
	cancel()
	<-done
	if s.typ != "*v1.Pod" || s.name == "" {
		t.Errorf("stand-in reflector %+v, want a name and type *v1.Pod", s)
	}
}

func TestARegistrationThroughTheViewIsNamedAsClientGoNamesIt(t *testing.T) {
	funcs := clientgocache.ResourceEventHandlerFuncs{AddFunc: func(interface{}) {}}
	deleteOnly := clientgocache.ResourceEventHandlerFuncs{DeleteFunc: func(interface{}) {}}
	cases := []struct {
		name    string
		handler clientgocache.ResourceEventHandler
	}{
		{"ResourceEventHandlerFuncs with an AddFunc", funcs},
		{"ResourceEventHandlerFuncs with an UpdateFunc", clientgocache.ResourceEventHandlerFuncs{UpdateFunc: func(_, _ interface{}) {}}},
		{"ResourceEventHandlerFuncs with an AddFunc and a DeleteFunc", clientgocache.ResourceEventHandlerFuncs{AddFunc: funcs.AddFunc, DeleteFunc: deleteOnly.DeleteFunc}},
		{"nil", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reference := clientgocache.NewSharedIndexInformer(&clientgocache.ListWatch{}, &corev1.Pod{}, 0, nil)
			view := NewSharedIndexInformer(&clientgocache.ListWatch{}, &corev1.Pod{}, 0, nil)
			want, _ := reference.AddEventHandler(tc.handler)
			got, _ := view.AddEventHandler(tc.handler)
			if g, w := got.HasSyncedChecker().Name(), want.HasSyncedChecker().Name(); g != w {
				t.Errorf("registration named %q, client-go names it %q", g, w)
			}
		})
	}
}

func TestADeleteFuncThroughTheViewGetsClientGosTombstone(t *testing.T) {
	var got interface{}
	h := adaptHandler(clientgocache.ResourceEventHandlerFuncs{DeleteFunc: func(obj interface{}) { got = obj }})
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}
	h.OnDelete(kcache.DeletedFinalStateUnknown{Key: "ns/p", Obj: pod})
	if want := (clientgocache.DeletedFinalStateUnknown{Key: "ns/p", Obj: pod}); got != want {
		t.Errorf("DeleteFunc got %#v, want %#v", got, want)
	}
}
