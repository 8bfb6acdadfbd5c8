package benchmarks

import (
	"strconv"
	"testing"

	kcache "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The typed API (client-go v0.37) is measured against kcache's own untyped
// path: the root module resolves client-go v0.36, which has no typed API.
// Sub-benchmarks are path=untyped and path=typed; the untyped handler does
// the type assertion a user of the untyped API writes, so both do the same
// work. The typed path must not add allocations per notification.

// handlerCapturingInformer keeps the ResourceEventHandler that
// NewTypedSharedIndexInformer registers, so that its conversions can be
// measured without the informer around them.
type handlerCapturingInformer struct {
	kcache.SharedIndexInformer
	handler kcache.ResourceEventHandler
}

func (c *handlerCapturingInformer) AddEventHandlerWithOptions(h kcache.ResourceEventHandler, _ kcache.HandlerOptions) (kcache.ResourceEventHandlerRegistration, error) {
	c.handler = h
	return nil, nil
}

// typedSink and untypedSink count what the handlers receive, so that the
// calls are not optimised away.
var typedSink, untypedSink int

// typedBenchHandler is the typed handler under measurement.
func typedBenchHandler() kcache.ResourceEventHandler {
	capture := &handlerCapturingInformer{}
	_, _ = kcache.NewTypedSharedIndexInformer[*v1.Pod](capture).AddTypedEventHandler(kcache.TypedResourceEventHandlerFuncs[*v1.Pod]{
		AddFunc:    func(p *v1.Pod) { typedSink += len(p.Name) },
		UpdateFunc: func(_, p *v1.Pod) { typedSink += len(p.Name) },
		DeleteFunc: func(d kcache.DeletedObject[*v1.Pod]) { typedSink += len(d.GetName()) },
	})
	return capture.handler
}

// untypedBenchHandler does by hand what the typed adapter does.
func untypedBenchHandler() kcache.ResourceEventHandler {
	return kcache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { untypedSink += len(obj.(*v1.Pod).Name) },
		UpdateFunc: func(_, obj any) { untypedSink += len(obj.(*v1.Pod).Name) },
		DeleteFunc: func(obj any) {
			if tombstone, ok := obj.(kcache.DeletedFinalStateUnknown); ok {
				obj = tombstone.Obj
			}
			untypedSink += len(obj.(*v1.Pod).Name)
		},
	}
}

// BenchmarkTypedHandlerDispatch calls one handler once per op with each
// kind of notification: allocs/op is allocations per notification.
func BenchmarkTypedHandlerDispatch(b *testing.B) {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pod", ResourceVersion: "1"}}
	// boxed once, as the informer hands it to every handler
	var tombstone any = kcache.DeletedFinalStateUnknown{Key: "ns/pod", Obj: p}
	notifications := []struct {
		name string
		call func(h kcache.ResourceEventHandler)
	}{
		{"add", func(h kcache.ResourceEventHandler) { h.OnAdd(p, false) }},
		{"update", func(h kcache.ResourceEventHandler) { h.OnUpdate(p, p) }},
		{"delete", func(h kcache.ResourceEventHandler) { h.OnDelete(p) }},
		{"delete-tombstone", func(h kcache.ResourceEventHandler) { h.OnDelete(tombstone) }},
	}
	paths := []struct {
		name    string
		handler kcache.ResourceEventHandler
	}{
		{"path=untyped", untypedBenchHandler()},
		{"path=typed", typedBenchHandler()},
	}
	for _, n := range notifications {
		for _, path := range paths {
			b.Run(n.name+"/"+path.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					n.call(path.handler)
				}
			})
		}
	}
}

// BenchmarkTypedHandlerThroughInformer runs the informer workload (10,000
// listed objects, 50,000 updates) with one handler, typed or untyped; one
// op lasts until the handler has seen every notification.
func BenchmarkTypedHandlerThroughInformer(b *testing.B) {
	w := newInformerWorkload(10_000, 50_000)
	paths := []struct {
		name  string
		typed bool
	}{{"path=untyped", false}, {"path=typed", true}}
	for _, path := range paths {
		build := func(lw *informerBenchSource) informerUnderBench {
			inf := kcache.NewSharedIndexInformer(lw, &metav1.PartialObjectMetadata{}, 0, kcache.Indexers{})
			typed := kcache.NewTypedSharedIndexInformer[*metav1.PartialObjectMetadata](inf)
			return informerUnderBench{
				add: func(h *informerCountingHandler) error {
					if !path.typed {
						_, err := inf.AddEventHandler(h)
						return err
					}
					_, err := typed.AddTypedEventHandler(kcache.TypedResourceEventHandlerFuncs[*metav1.PartialObjectMetadata]{
						AddFunc:    func(*metav1.PartialObjectMetadata) { h.count() },
						UpdateFunc: func(_, _ *metav1.PartialObjectMetadata) { h.count() },
						DeleteFunc: func(kcache.DeletedObject[*metav1.PartialObjectMetadata]) { h.count() },
					})
					return err
				},
				run: inf.RunWithContext,
			}
		}
		b.Run(path.name, func(b *testing.B) {
			b.StopTimer()
			var cost informerRunCost
			for i := 0; i < b.N; i++ {
				h := newInformerCountingHandler(w.events())
				cost.add(informerRunOnce(b, w, build, []*informerCountingHandler{h}, []*informerCountingHandler{h}))
			}
			cost.report(b, float64(w.events())*float64(b.N), true)
		})
	}
}

// typedIndexedPods returns an Indexer of 1,000 pods in 10 namespaces,
// indexed by namespace through a typed index function.
func typedIndexedPods() kcache.Indexer {
	ix := kcache.NewIndexer(kcache.MetaNamespaceKeyFunc, kcache.TypedIndexersToIndexers(kcache.TypedIndexers[*v1.Pod]{
		"namespace": func(p *v1.Pod) ([]string, error) { return []string{p.Namespace}, nil },
	}))
	for i := 0; i < 1000; i++ {
		_ = ix.Add(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns-" + strconv.Itoa(i%10), Name: "pod-" + strconv.Itoa(i)}})
	}
	return ix
}

// BenchmarkTypedIndexerByIndex reads one namespace (100 pods) per op and
// touches every pod: untyped ByIndex plus the user's type assertions, or
// ByTypedIndex. The typed read makes one more allocation per query (the
// []*v1.Pod it returns besides ByIndex's []interface{}), none per object.
func BenchmarkTypedIndexerByIndex(b *testing.B) {
	ix := typedIndexedPods()
	typed := kcache.NewTypedSharedIndexInformer[*v1.Pod](&indexerOnlyInformer{ix: ix}).GetTypedIndexer()
	b.Run("path=untyped", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			items, _ := ix.ByIndex("namespace", "ns-3")
			for _, item := range items {
				untypedSink += len(item.(*v1.Pod).Name)
			}
		}
	})
	b.Run("path=typed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			pods, _ := typed.ByTypedIndex("namespace", "ns-3")
			for _, p := range pods {
				typedSink += len(p.Name)
			}
		}
	})
}

// BenchmarkTypedIndexFunc measures the store's index maintenance with a
// typed index function against an untyped one: one Update per op that
// moves a pod between two namespaces' index values.
func BenchmarkTypedIndexFunc(b *testing.B) {
	untyped := kcache.Indexers{"namespace": func(obj any) ([]string, error) { return []string{obj.(*v1.Pod).Namespace}, nil }}
	typed := kcache.TypedIndexersToIndexers(kcache.TypedIndexers[*v1.Pod]{
		"namespace": func(p *v1.Pod) ([]string, error) { return []string{p.Namespace}, nil },
	})
	for _, path := range []struct {
		name     string
		indexers kcache.Indexers
	}{{"path=untyped", untyped}, {"path=typed", typed}} {
		b.Run(path.name, func(b *testing.B) {
			ix := kcache.NewIndexer(func(any) (string, error) { return "pod", nil }, path.indexers)
			pods := []*v1.Pod{
				{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "pod"}},
				{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "pod"}},
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				_ = ix.Update(pods[i&1])
				i++
			}
		})
	}
}

// indexerOnlyInformer serves GetIndexer for GetTypedIndexer.
type indexerOnlyInformer struct {
	kcache.SharedIndexInformer
	ix kcache.Indexer
}

func (i *indexerOnlyInformer) GetIndexer() kcache.Indexer { return i.ix }
