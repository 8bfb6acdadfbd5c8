package benchmarks

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	kcache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/internal/realisticpods"
	"github.com/kcache-go/cache/transform"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"
)

// Memory of a SharedIndexInformer (namespace index, one handler) caching
// realistic pods (internal/realisticpods), decoded from JSON page by page
// as a client receives them, in four configurations:
//
//   - client-go without a transform,
//   - client-go with controller-runtime's strip-managed-fields transform
//     (realisticStripManagedFields),
//   - kcache without a transform,
//   - kcache with transform.Recommended (StripManagedFields,
//     StripLastAppliedConfiguration, InternStrings, CompactPodSlices,
//     InternPodStrings).
//
// Each impl sub-benchmark runs its two configurations one after the other
// (a fresh informer each, stopped and collected before the next) and
// reports three metrics, so that benchmarks/cmd/ratios prints each ratio
// the issue asks for on its own row:
//
//   - none-…: the library without a transform (ratio: kcache/client-go,
//     both untransformed);
//   - transformed-…: client-go with strip-managed-fields, kcache with the
//     recommended transforms (ratio: kcache recommended / client-go strip);
//   - goal-…: client-go without a transform, kcache with the recommended
//     transforms (ratio: the goal, kcache recommended / client-go none).

// realisticStripManagedFields is what controller-runtime's
// cache.TransformStripManagedFields does: drop managedFields through
// meta.Accessor, in place, and nothing else.
func realisticStripManagedFields(obj interface{}) (interface{}, error) {
	if m, err := meta.Accessor(obj); err == nil && m.GetManagedFields() != nil {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

// realisticHandler counts adds, closes done at want and, with an enabled
// peak, samples the heap at the first add and every sampleEvery adds.
type realisticHandler struct {
	want        int64
	seen        atomic.Int64
	done        chan struct{}
	once        sync.Once
	peak        *reflectorBenchPeak
	sampleEvery int64
}

func (h *realisticHandler) OnAdd(interface{}, bool) {
	n := h.seen.Add(1)
	if n == 1 || n%h.sampleEvery == 0 {
		h.peak.sample()
	}
	if n == h.want {
		h.once.Do(func() { close(h.done) })
	}
}
func (h *realisticHandler) OnUpdate(interface{}, interface{}) {}
func (h *realisticHandler) OnDelete(interface{})              {}

// realisticInformer is what the benchmarks need of either library's
// SharedIndexInformer.
type realisticInformer struct {
	run     func(ctx context.Context)
	synced  func() bool
	indexer func() []interface{}
}

// realisticLib builds one library's informer, transformed or not.
type realisticLib struct {
	name  string
	build func(lw interface{}, transform bool, h *realisticHandler) (realisticInformer, error)
}

var realisticLibs = []realisticLib{
	{"client-go", func(lw interface{}, transformed bool, h *realisticHandler) (realisticInformer, error) {
		inf := cache.NewSharedIndexInformer(lw.(cache.ListerWatcher), &v1.Pod{}, 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		if transformed {
			if err := inf.SetTransform(realisticStripManagedFields); err != nil {
				return realisticInformer{}, err
			}
		}
		_, err := inf.AddEventHandler(h)
		return realisticInformer{run: inf.RunWithContext, synced: inf.HasSynced, indexer: inf.GetIndexer().List}, err
	}},
	{"kcache", func(lw interface{}, transformed bool, h *realisticHandler) (realisticInformer, error) {
		inf := kcache.NewSharedIndexInformer(lw.(kcache.ListerWatcher), &v1.Pod{}, 0, kcache.Indexers{kcache.NamespaceIndex: kcache.MetaNamespaceIndexFunc})
		if transformed {
			if err := inf.SetTransform(transform.Recommended); err != nil {
				return realisticInformer{}, err
			}
		}
		_, err := inf.AddEventHandler(h)
		return realisticInformer{run: inf.RunWithContext, synced: inf.HasSynced, indexer: inf.GetIndexer().List}, err
	}},
}

// realisticSampleEvery is how often (in pods) a peak measurement samples.
const realisticSampleEvery = 10_000

// realisticSync runs one informer of lib over gen's pods until it has
// synced and its handler saw every add, and returns the live heap growth
// from before the informer was built to then (after a forced GC, the
// informer running, the source holding nothing). With an enabled peak, the
// source and handler sample it during the sync.
func realisticSync(b *testing.B, lib realisticLib, gen *realisticpods.Generator, transform, stream bool, peak *reflectorBenchPeak) uint64 {
	base := reflectorLiveHeap()
	peak.start()
	src := newRealisticSource(gen, peak, realisticSampleEvery)
	var lw interface{} = realisticListOnly{src}
	if stream {
		lw = src
	}
	h := &realisticHandler{want: int64(gen.N()), done: make(chan struct{}), peak: peak, sampleEvery: realisticSampleEvery}
	inf, err := lib.build(lw, transform, h)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { inf.run(ctx); close(stopped) }()
	defer func() { cancel(); <-stopped; src.shutdown() }()
	select {
	case <-h.done:
	case <-time.After(30 * time.Minute):
		b.Fatalf("handler saw %d of %d adds", h.seen.Load(), gen.N())
	}
	if !cache.WaitForCacheSync(ctx.Done(), inf.synced) {
		b.Fatal("informer did not sync")
	}
	peak.sample()
	grown := reflectorLiveHeap() - base
	realisticCheckCache(b, inf, gen.N(), transform)
	return grown
}

// realisticCheckCache fails unless the cache holds n pods, transformed as
// configured (no managedFields with a transform, managedFields without).
func realisticCheckCache(b *testing.B, inf realisticInformer, n int, transform bool) {
	objs := inf.indexer()
	if len(objs) != n {
		b.Fatalf("cache holds %d pods, want %d", len(objs), n)
	}
	for _, obj := range objs[:10] {
		if stripped := obj.(*v1.Pod).ManagedFields == nil; stripped != transform {
			b.Fatalf("cached pod has managedFields stripped=%v, want %v", stripped, transform)
		}
	}
}

// realisticReport reports the three metrics of one library (see the top
// of this file): none, transformed, and goal (client-go's none, kcache's
// transformed).
func realisticReport(b *testing.B, lib realisticLib, none, transformed float64, unit string) {
	b.ReportMetric(none, "none-"+unit)
	b.ReportMetric(transformed, "transformed-"+unit)
	goal := none
	if lib.name == "kcache" {
		goal = transformed
	}
	b.ReportMetric(goal, "goal-"+unit)
}

// BenchmarkRealisticPodsRetainedHeap syncs 10,000 and 100,000 realistic
// pods through a paged List and reports the live heap the informer keeps
// per cached pod (objects included), for each library without and with its
// memory transform (metric names: see the top of this file).
func BenchmarkRealisticPodsRetainedHeap(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		gen, err := realisticpods.New(n, realisticpods.Seed)
		if err != nil {
			b.Fatal(err)
		}
		for _, lib := range realisticLibs {
			b.Run(fmt.Sprintf("pods=%d/impl=%s", n, lib.name), func(b *testing.B) {
				var none, transformed float64
				for i := 0; i < b.N; i++ {
					none = float64(realisticSync(b, lib, gen, false, false, &reflectorBenchPeak{})) / float64(n)
					transformed = float64(realisticSync(b, lib, gen, true, false, &reflectorBenchPeak{})) / float64(n)
				}
				realisticReport(b, lib, none, transformed, "B/pod")
			})
		}
	}
}

// BenchmarkRealisticPodsInitialSyncPeakHeap syncs 100,000 realistic pods
// through a paged List (500 a page) and through WatchList (initial events
// and the end bookmark), WatchListClient on, and reports the peak live heap
// growth during the sync (forced GC every 10,000 pods served and handled,
// before the last page or the bookmark, and once synced), for each library
// without and with its memory transform.
func BenchmarkRealisticPodsInitialSyncPeakHeap(b *testing.B) {
	const n = 100_000
	gen, err := realisticpods.New(n, realisticpods.Seed)
	if err != nil {
		b.Fatal(err)
	}
	for _, path := range []struct {
		name   string
		stream bool
	}{{"List", false}, {"WatchList", true}} {
		for _, lib := range realisticLibs {
			b.Run(path.name+"/impl="+lib.name, func(b *testing.B) {
				var none, transformed float64
				reflectorWithWatchListGate(func() {
					for i := 0; i < b.N; i++ {
						none = realisticPeak(b, lib, gen, false, path.stream)
						transformed = realisticPeak(b, lib, gen, true, path.stream)
					}
				})
				realisticReport(b, lib, none, transformed, "peak-MiB")
			})
		}
	}
}

// realisticPeak is the peak live heap growth of one sync, in MiB.
func realisticPeak(b *testing.B, lib realisticLib, gen *realisticpods.Generator, transform, stream bool) float64 {
	peak := &reflectorBenchPeak{enabled: true}
	realisticSync(b, lib, gen, transform, stream, peak)
	return peak.growthMiB()
}

// BenchmarkRealisticPodsDecodedSize reports the JSON and the decoded Go
// heap of one realistic pod (10,000 pods decoded in pages of 500 and kept),
// the baseline the informer figures compare with.
func BenchmarkRealisticPodsDecodedSize(b *testing.B) {
	const n = 10_000
	gen, err := realisticpods.New(n, realisticpods.Seed)
	if err != nil {
		b.Fatal(err)
	}
	var jsonBytes, heap float64
	for i := 0; i < b.N; i++ {
		pages := make([]*v1.PodList, 0, n/reflectorBenchPage)
		var total int
		base := reflectorLiveHeap()
		for start := 0; start < n; start += reflectorBenchPage {
			data := gen.AppendList(nil, start, start+reflectorBenchPage, "1", "")
			total += len(data)
			list, err := realisticpods.DecodeList(data)
			if err != nil {
				b.Fatal(err)
			}
			pages = append(pages, list)
		}
		heap = float64(reflectorLiveHeap()-base) / n
		jsonBytes = float64(total) / n
		runtime.KeepAlive(pages)
	}
	b.ReportMetric(jsonBytes, "json-B/pod")
	b.ReportMetric(heap, "decoded-B/pod")
}
