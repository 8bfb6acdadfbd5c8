package conformance

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	kcache "github.com/kcache-go/cache"
	"go.uber.org/goleak"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/features"
	"k8s.io/client-go/tools/cache"
)

// stallingPages is a paged ListFunc that ignores its context: page 1 comes
// at once, page 2 only after release is closed. requested is closed when
// page 2 is asked for.
type stallingPages struct {
	requested, release chan struct{}
	once               sync.Once
	// returned is set once the run returned; lateCalls counts the List
	// calls made after that.
	returned  atomic.Bool
	lateCalls atomic.Int32
}

func newStallingPages() *stallingPages {
	return &stallingPages{requested: make(chan struct{}), release: make(chan struct{})}
}

func (s *stallingPages) list(options metav1.ListOptions) (runtime.Object, error) {
	if s.returned.Load() {
		s.lateCalls.Add(1)
	}
	page := func(names ...string) *v1.PodList {
		l := &v1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "10"}}
		for _, n := range names {
			l.Items = append(l.Items, v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: n, ResourceVersion: "5"}})
		}
		return l
	}
	switch options.Continue {
	case "":
		l := page("a", "b")
		l.Continue = "p2"
		return l, nil
	case "p2":
		s.once.Do(func() { close(s.requested) })
		<-s.release
		l := page("c", "d")
		l.Continue = "p3"
		return l, nil
	}
	return page("e"), nil
}

func (s *stallingPages) watch(metav1.ListOptions) (watch.Interface, error) {
	return watch.NewFake(), nil
}

// lateTransform counts transform calls made after the run returned.
type lateTransform struct {
	returned atomic.Bool
	late     atomic.Int32
}

// key is the queue's key function, counting late calls like transform.
func (l *lateTransform) key(obj interface{}) (string, error) {
	if l.returned.Load() {
		l.late.Add(1)
	}
	return cache.MetaNamespaceKeyFunc(obj)
}

func (l *lateTransform) transform(obj interface{}) (interface{}, error) {
	if l.returned.Load() {
		l.late.Add(1)
	}
	return obj, nil
}

// reflectorRunStoppedMidList starts run, cancels it once page 2 of the list
// is requested, waits for run to return, then releases page 2 and waits for
// every goroutine of the library to end. It returns the transform calls
// made after run returned.
func reflectorRunStoppedMidList(t *testing.T, pages *stallingPages, late *lateTransform, run func(ctx context.Context)) int32 {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		run(ctx)
	}()
	<-pages.requested
	cancel()
	<-done
	late.returned.Store(true)
	pages.returned.Store(true)
	close(pages.release)
	// goleak retries until the library's goroutines (the abandoned list) end.
	if err := goleak.Find(ignore); err != nil {
		t.Fatalf("goroutines left after the run returned: %v", err)
	}
	return late.late.Load()
}

func TestNoTransformRunsAfterAStoppedReflectorOrInformerReturned(t *testing.T) {
	informerSetGates(t, map[features.Feature]bool{features.WatchListClient: false})
	type run func(pages *stallingPages, late *lateTransform) func(ctx context.Context)
	cases := map[string]run{
		"client-go Reflector into a RealFIFO": func(p *stallingPages, l *lateTransform) func(ctx context.Context) {
			q := cache.NewRealFIFOWithOptions(cache.RealFIFOOptions{KeyFunction: l.key, KnownObjects: cache.NewStore(cache.MetaNamespaceKeyFunc), Transformer: l.transform})
			return cache.NewReflector(&cache.ListWatch{ListFunc: p.list, WatchFunc: p.watch}, &v1.Pod{}, q, 0).RunWithContext
		},
		"kcache Reflector into a RealFIFO": func(p *stallingPages, l *lateTransform) func(ctx context.Context) {
			q := kcache.NewRealFIFOWithOptions(kcache.RealFIFOOptions{KeyFunction: l.key, KnownObjects: kcache.NewStore(kcache.MetaNamespaceKeyFunc), Transformer: l.transform})
			return kcache.NewReflector(&kcache.ListWatch{ListFunc: p.list, WatchFunc: p.watch}, &v1.Pod{}, q, 0).RunWithContext
		},
		"client-go Reflector into a DeltaFIFO": func(p *stallingPages, l *lateTransform) func(ctx context.Context) {
			q := cache.NewDeltaFIFOWithOptions(cache.DeltaFIFOOptions{KeyFunction: l.key, Transformer: l.transform})
			return cache.NewReflector(&cache.ListWatch{ListFunc: p.list, WatchFunc: p.watch}, &v1.Pod{}, q, 0).RunWithContext
		},
		"kcache Reflector into a DeltaFIFO": func(p *stallingPages, l *lateTransform) func(ctx context.Context) {
			q := kcache.NewDeltaFIFOWithOptions(kcache.DeltaFIFOOptions{KeyFunction: l.key, Transformer: l.transform})
			return kcache.NewReflector(&kcache.ListWatch{ListFunc: p.list, WatchFunc: p.watch}, &v1.Pod{}, q, 0).RunWithContext
		},
		"client-go SharedIndexInformer": func(p *stallingPages, l *lateTransform) func(ctx context.Context) {
			inf := cache.NewSharedIndexInformer(&cache.ListWatch{ListFunc: p.list, WatchFunc: p.watch}, &v1.Pod{}, 0, cache.Indexers{})
			if err := inf.SetTransform(l.transform); err != nil {
				t.Fatal(err)
			}
			return inf.RunWithContext
		},
		"kcache SharedIndexInformer": func(p *stallingPages, l *lateTransform) func(ctx context.Context) {
			inf := kcache.NewSharedIndexInformer(&kcache.ListWatch{ListFunc: p.list, WatchFunc: p.watch}, &v1.Pod{}, 0, kcache.Indexers{})
			if err := inf.SetTransform(l.transform); err != nil {
				t.Fatal(err)
			}
			return inf.RunWithContext
		},
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			pages, late := newStallingPages(), &lateTransform{}
			if n := reflectorRunStoppedMidList(t, pages, late, build(pages, late)); n != 0 {
				t.Errorf("%s: the transform or key function ran %d times after the run returned, want none", name, n)
			}
			// NB: client-go still asks for page 3 after its run returned (1
			// call); kcache asks for nothing once stopped.
			if n := pages.lateCalls.Load(); strings.HasPrefix(name, "kcache") && n != 0 {
				t.Errorf("%s: the ListFunc was called %d times after the run returned, want none", name, n)
			}
		})
	}
}
