package conformance

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr/funcr"
	kcache "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/features"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// reflectorCrashCase is user code that panics inside a Reflector's run.
type reflectorCrashCase struct {
	// list and watch are the ListerWatcher; transform the queue's.
	list      func(metav1.ListOptions) (kruntime.Object, error)
	watch     func(metav1.ListOptions) (watch.Interface, error)
	transform func(interface{}) (interface{}, error)
	// onError, when set, is the informer's watch error handler (the run is
	// then an informer's).
	onError bool
	// pageSize is the Reflector's WatchListPageSize (list answers in pages
	// of one object when set).
	pageSize int64
	// key, when set, is the queue's key function.
	key func(interface{}) (string, error)
}

func reflectorCrashCases() map[string]reflectorCrashCase {
	okList := func(metav1.ListOptions) (kruntime.Object, error) {
		return &v1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: []v1.Pod{{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}}}, nil
	}
	okWatch := func(metav1.ListOptions) (watch.Interface, error) { return watch.NewFake(), nil }
	keep := func(obj interface{}) (interface{}, error) { return obj, nil }
	pagedList := func(options metav1.ListOptions) (kruntime.Object, error) {
		names := map[string][2]string{"": {"a", "1"}, "1": {"b", "2"}, "2": {"c", ""}}[options.Continue]
		return &v1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1", Continue: names[1]}, Items: []v1.Pod{{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: names[0]}}}}, nil
	}
	return map[string]reflectorCrashCase{
		"a panicking ListFunc":  {list: func(metav1.ListOptions) (kruntime.Object, error) { panic("list boom") }, watch: okWatch, transform: keep},
		"a panicking WatchFunc": {list: okList, watch: func(metav1.ListOptions) (watch.Interface, error) { panic("watch boom") }, transform: keep},
		"a panicking transform": {list: okList, watch: okWatch, transform: func(interface{}) (interface{}, error) { panic("transform boom") }},
		"a panicking transform on page 2 of a paged list": {list: pagedList, watch: okWatch, pageSize: 1, transform: func(obj interface{}) (interface{}, error) {
			if obj.(*v1.Pod).Name == "b" {
				panic("page boom")
			}
			return obj, nil
		}},
		"a panicking key function on page 3 of a paged list": {list: pagedList, watch: okWatch, pageSize: 1, transform: keep, key: func(obj interface{}) (string, error) {
			if p, ok := obj.(*v1.Pod); ok && p.Name == "c" {
				panic("key boom")
			}
			return cache.MetaNamespaceKeyFunc(obj)
		}},
		"a panicking watch error handler": {list: okList, watch: func(metav1.ListOptions) (watch.Interface, error) { return nil, fmt.Errorf("no watch") },
			transform: keep, onError: true},
	}
}

// reflectorCrashRun runs the case with ReallyCrash off until the first
// panic handler call, and reports what was observed: whether the panic
// escaped the run, the panic handler calls, and the "Observed a panic"
// lines of the run's logger.
func reflectorCrashRun(t *testing.T, run func(ctx context.Context)) string {
	t.Helper()
	panicked := make(chan struct{})
	var once sync.Once
	saved := utilruntime.PanicHandlers
	utilruntime.PanicHandlers = append(append([]func(context.Context, interface{}){}, saved...), func(context.Context, interface{}) {
		once.Do(func() { close(panicked) })
	})
	defer func() { utilruntime.PanicHandlers = saved }()
	var mu sync.Mutex
	var observed []string
	logger := funcr.New(func(prefix, args string) {
		if strings.Contains(args, "panic") {
			mu.Lock()
			// The stack trace differs between the libraries; keep the rest.
			observed = append(observed, prefix+" "+strings.SplitN(args, ` "stacktrace"`, 2)[0])
			mu.Unlock()
		}
	}, funcr.Options{})
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger.WithName("run")))
	defer cancel()
	escaped := make(chan string, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				escaped <- fmt.Sprint("escaped: ", v)
				return
			}
			escaped <- "returned"
		}()
		run(ctx)
	}()
	<-panicked
	cancel()
	outcome := <-escaped
	mu.Lock()
	defer mu.Unlock()
	return fmt.Sprintf("%s; observed: %s", outcome, strings.Join(observed, " | "))
}

func TestUserCodePanickingInAReflectorRunIsHandledAsClientGoHandlesIt(t *testing.T) {
	informerSetGates(t, map[features.Feature]bool{features.WatchListClient: false})
	saved := utilruntime.ReallyCrash
	utilruntime.ReallyCrash = false
	defer func() { utilruntime.ReallyCrash = saved }()
	for name, c := range reflectorCrashCases() {
		t.Run(name, func(t *testing.T) {
			want := reflectorCrashRun(t, func(ctx context.Context) {
				lw := &cache.ListWatch{ListFunc: c.list, WatchFunc: c.watch}
				if c.onError {
					inf := cache.NewSharedIndexInformer(lw, &v1.Pod{}, 0, cache.Indexers{})
					_ = inf.SetWatchErrorHandlerWithContext(func(context.Context, *cache.Reflector, error) { panic("handler boom") })
					inf.RunWithContext(ctx)
					return
				}
				q := cache.NewRealFIFOWithOptions(cache.RealFIFOOptions{KeyFunction: c.key, KnownObjects: cache.NewStore(cache.MetaNamespaceKeyFunc), Transformer: c.transform})
				r := cache.NewReflector(lw, &v1.Pod{}, q, 0)
				r.WatchListPageSize = c.pageSize
				r.RunWithContext(ctx)
			})
			got := reflectorCrashRun(t, func(ctx context.Context) {
				lw := &kcache.ListWatch{ListFunc: kcache.ListFunc(c.list), WatchFunc: kcache.WatchFunc(c.watch)}
				if c.onError {
					inf := kcache.NewSharedIndexInformer(lw, &v1.Pod{}, 0, kcache.Indexers{})
					_ = inf.SetWatchErrorHandlerWithContext(func(context.Context, *kcache.Reflector, error) { panic("handler boom") })
					inf.RunWithContext(ctx)
					return
				}
				q := kcache.NewRealFIFOWithOptions(kcache.RealFIFOOptions{KeyFunction: c.key, KnownObjects: kcache.NewStore(kcache.MetaNamespaceKeyFunc), Transformer: c.transform})
				r := kcache.NewReflector(lw, &v1.Pod{}, q, 0)
				r.WatchListPageSize = c.pageSize
				r.RunWithContext(ctx)
			})
			if want != got {
				t.Errorf("client-go: %s\nkcache:    %s", want, got)
			}
			t.Logf("client-go: %s", want)
		})
	}
}
