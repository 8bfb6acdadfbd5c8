package benchmarks

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	kcache "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/tools/cache"
)

// Initial sync of 100,000 pods into a plain map store (the same for both), through a paged List and
// through WatchList, with client-go's Reflector and kcache's side by side.
// The source builds each page (or event) on request and holds nothing.
// "Peak" variants force a GC at every 5,000 objects and report the largest
// live heap growth as peak-MiB; their time is not meaningful.

const (
	reflectorBenchObjects = 100000
	reflectorBenchPage    = 500
)

// reflectorBenchPod is one listed object: a pod with a few labels.
func reflectorBenchPod(i int) v1.Pod {
	return v1.Pod{ObjectMeta: metav1.ObjectMeta{
		Namespace:       "ns-" + strconv.Itoa(i%50),
		Name:            "pod-" + strconv.Itoa(i),
		ResourceVersion: strconv.Itoa(i + 1),
		Labels:          map[string]string{"app": "bench", "shard": strconv.Itoa(i % 16)},
	}}
}

// reflectorBenchPeak tracks the live heap at sampling points.
type reflectorBenchPeak struct {
	enabled bool
	mu      sync.Mutex
	base    uint64
	peak    uint64
}

func reflectorLiveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func (p *reflectorBenchPeak) start() {
	if p.enabled {
		p.base = reflectorLiveHeap()
		p.peak = p.base
	}
}

func (p *reflectorBenchPeak) sample() {
	if !p.enabled {
		return
	}
	v := reflectorLiveHeap()
	p.mu.Lock()
	p.peak = max(p.peak, v)
	p.mu.Unlock()
}

func (p *reflectorBenchPeak) growthMiB() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return float64(p.peak-p.base) / (1 << 20)
}

// reflectorBenchSource lists in pages or streams the initial events.
type reflectorBenchSource struct {
	peak *reflectorBenchPeak
	// padding, when set, adds an annotation of that many bytes to every
	// pod, which the transforming store drops.
	padding  int
	mu       sync.Mutex
	watches  int
	feeders  sync.WaitGroup
	streamed bool
}

func (s *reflectorBenchSource) List(options metav1.ListOptions) (kruntime.Object, error) {
	start := 0
	if options.Continue != "" {
		start, _ = strconv.Atoi(options.Continue)
	}
	if start%5000 == 0 {
		s.peak.sample()
	}
	end := min(start+reflectorBenchPage, reflectorBenchObjects)
	list := &v1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(reflectorBenchObjects)}}
	list.Items = make([]v1.Pod, 0, end-start)
	for i := start; i < end; i++ {
		list.Items = append(list.Items, s.pod(i))
	}
	if end < reflectorBenchObjects {
		list.Continue = strconv.Itoa(end)
	}
	return list, nil
}

func (s *reflectorBenchSource) Watch(options metav1.ListOptions) (watch.Interface, error) {
	s.mu.Lock()
	s.watches++
	first := s.watches == 1
	s.mu.Unlock()
	w := watch.NewFakeWithChanSize(1024, false)
	if first && options.SendInitialEvents != nil && *options.SendInitialEvents {
		s.feeders.Add(1)
		go s.feed(w)
	}
	return w, nil
}

// feed streams every object as an added event, then the end bookmark.
func (s *reflectorBenchSource) feed(w *watch.FakeWatcher) {
	defer s.feeders.Done()
	for i := 0; i < reflectorBenchObjects; i++ {
		if i%5000 == 0 {
			s.peak.sample()
		}
		pod := s.pod(i)
		w.Add(&pod)
	}
	end := &v1.Pod{ObjectMeta: metav1.ObjectMeta{
		ResourceVersion: strconv.Itoa(reflectorBenchObjects),
		Annotations:     map[string]string{metav1.InitialEventsAnnotationKey: "true"},
	}}
	w.Action(watch.Bookmark, end)
}

// pod is object i, padded when the source pads.
func (s *reflectorBenchSource) pod(i int) v1.Pod {
	pod := reflectorBenchPod(i)
	if s.padding > 0 {
		pod.Annotations = map[string]string{"padding": strings.Repeat("x", s.padding)}
	}
	return pod
}

// reflectorBenchListOnly hides WatchList support for the List variant.
type reflectorBenchListOnly struct{ *reflectorBenchSource }

func (reflectorBenchListOnly) IsWatchListSemanticsUnSupported() bool { return true }

// reflectorBenchStore is the same plain map store for both libraries, so
// that only the Reflectors differ; it signals the first Replace and samples
// the heap when the snapshot arrives and once it is stored.
type reflectorBenchStore struct {
	peak *reflectorBenchPeak
	// transform makes Replace, Add and Update drop annotations first, as a
	// queue with a transformer would.
	transform bool
	replaced  chan struct{}
	items     map[string]interface{}
}

func (s *reflectorBenchStore) Add(obj interface{}) error    { return s.put(obj) }
func (s *reflectorBenchStore) Update(obj interface{}) error { return s.put(obj) }
func (s *reflectorBenchStore) Delete(obj interface{}) error {
	delete(s.items, reflectorBenchKey(obj))
	return nil
}
func (s *reflectorBenchStore) Resync() error { return nil }
func (s *reflectorBenchStore) Replace(list []interface{}, _ string) error {
	s.peak.sample()
	s.items = make(map[string]interface{}, len(list))
	for _, obj := range list {
		_ = s.put(obj)
	}
	s.peak.sample()
	close(s.replaced)
	return nil
}

func (s *reflectorBenchStore) put(obj interface{}) error {
	if s.transform {
		obj, _ = reflectorBenchStrip(obj)
	}
	s.items[reflectorBenchKey(obj)] = obj
	return nil
}

// reflectorBenchStrip is the transform: it drops annotations in place.
func reflectorBenchStrip(obj interface{}) (interface{}, error) {
	if pod, ok := obj.(*v1.Pod); ok {
		pod.Annotations = nil
	}
	return obj, nil
}

// reflectorClientGoTransformingBench and reflectorKcacheTransformingBench
// make the bench store a TransformingStore of either library.
type reflectorClientGoTransformingBench struct{ *reflectorBenchStore }

func (reflectorClientGoTransformingBench) Transformer() cache.TransformFunc {
	return reflectorBenchStrip
}

type reflectorKcacheTransformingBench struct{ *reflectorBenchStore }

func (reflectorKcacheTransformingBench) Transformer() kcache.TransformFunc {
	return reflectorBenchStrip
}

// reflectorBenchKey is namespace/name of a pod.
func reflectorBenchKey(obj interface{}) string {
	pod := obj.(*v1.Pod)
	return pod.Namespace + "/" + pod.Name
}

// reflectorBenchLib builds one library's Reflector over the bench store.
type reflectorBenchLib struct {
	name  string
	build func(lw interface{}, store *reflectorBenchStore) func(ctx context.Context) error
}

var reflectorBenchLibs = []reflectorBenchLib{
	{"client-go", func(lw interface{}, s *reflectorBenchStore) func(ctx context.Context) error {
		var store cache.ReflectorStore = s
		if s.transform {
			store = reflectorClientGoTransformingBench{s}
		}
		r := cache.NewReflectorWithOptions(lw.(cache.ListerWatcher), &v1.Pod{}, store, cache.ReflectorOptions{Name: "bench"})
		return r.ListAndWatchWithContext
	}},
	{"kcache", func(lw interface{}, s *reflectorBenchStore) func(ctx context.Context) error {
		var store kcache.ReflectorStore = s
		if s.transform {
			store = reflectorKcacheTransformingBench{s}
		}
		r := kcache.NewReflectorWithOptions(lw.(kcache.ListerWatcher), &v1.Pod{}, store, kcache.ReflectorOptions{Name: "bench"})
		return r.ListAndWatchWithContext
	}},
}

// reflectorSyncOnce runs one initial sync and stops the reflector.
func reflectorSyncOnce(b *testing.B, lib reflectorBenchLib, stream bool, peak *reflectorBenchPeak) {
	reflectorSyncOnceWith(b, lib, stream, peak, 0)
}

// reflectorSyncOnceWith runs one initial sync of pods padded by padding
// bytes; with padding the store transforms (drops the padding).
func reflectorSyncOnceWith(b *testing.B, lib reflectorBenchLib, stream bool, peak *reflectorBenchPeak, padding int) {
	source := &reflectorBenchSource{peak: peak, padding: padding}
	var lw interface{} = reflectorBenchListOnly{source}
	if stream {
		lw = source
	}
	store := &reflectorBenchStore{peak: peak, replaced: make(chan struct{}), transform: padding > 0}
	run := lib.build(lw, store)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	<-store.replaced
	cancel()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	source.feeders.Wait()
}

// reflectorWithWatchListGate runs f with WatchListClient on (the default).
func reflectorWithWatchListGate(f func()) {
	base := clientfeatures.FeatureGates()
	clientfeatures.ReplaceFeatureGates(reflectorGateOn{base})
	defer clientfeatures.ReplaceFeatureGates(base)
	f()
}

type reflectorGateOn struct{ base clientfeatures.Gates }

func (g reflectorGateOn) Enabled(key clientfeatures.Feature) bool {
	return key == clientfeatures.WatchListClient || g.base.Enabled(key)
}

// reflectorEachVariant runs body for each path (List, WatchList) and
// library, with WatchListClient on.
func reflectorEachVariant(b *testing.B, body func(b *testing.B, lib reflectorBenchLib, stream bool)) {
	for _, path := range []struct {
		name   string
		stream bool
	}{{"List", false}, {"WatchList", true}} {
		for _, lib := range reflectorBenchLibs {
			b.Run(path.name+"/impl="+lib.name, func(b *testing.B) {
				reflectorWithWatchListGate(func() { body(b, lib, path.stream) })
			})
		}
	}
}

func BenchmarkReflectorInitialSync(b *testing.B) {
	reflectorEachVariant(b, func(b *testing.B, lib reflectorBenchLib, stream bool) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			reflectorSyncOnce(b, lib, stream, &reflectorBenchPeak{})
		}
	})
}

func BenchmarkReflectorInitialSyncPeakHeap(b *testing.B) {
	reflectorEachVariant(b, func(b *testing.B, lib reflectorBenchLib, stream bool) {
		var worst float64
		for i := 0; i < b.N; i++ {
			peak := &reflectorBenchPeak{enabled: true}
			peak.start()
			reflectorSyncOnce(b, lib, stream, peak)
			worst = max(worst, peak.growthMiB())
		}
		b.ReportMetric(worst, "peak-MiB")
	})
}

// reflectorEventSource lists one pod and then streams reflectorBenchObjects
// modifications of it on the first watch, cycling through prebuilt
// versions so that the source itself allocates nothing per event.
type reflectorEventSource struct {
	versions []*v1.Pod
	feeders  sync.WaitGroup
	mu       sync.Mutex
	watches  int
}

func (s *reflectorEventSource) List(metav1.ListOptions) (kruntime.Object, error) {
	return &v1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: []v1.Pod{reflectorBenchPod(0)}}, nil
}

func (s *reflectorEventSource) Watch(metav1.ListOptions) (watch.Interface, error) {
	s.mu.Lock()
	s.watches++
	first := s.watches == 1
	s.mu.Unlock()
	w := watch.NewFakeWithChanSize(1024, false)
	if first {
		s.feeders.Add(1)
		go func() {
			defer s.feeders.Done()
			for i := 0; i < reflectorBenchObjects; i++ {
				w.Modify(s.versions[i%len(s.versions)])
			}
		}()
	}
	return w, nil
}

func (*reflectorEventSource) IsWatchListSemanticsUnSupported() bool { return true }

// reflectorCountingStore signals after a given number of updates.
type reflectorCountingStore struct {
	updates, want int
	done          chan struct{}
}

func (s *reflectorCountingStore) Add(interface{}) error    { return nil }
func (s *reflectorCountingStore) Delete(interface{}) error { return nil }
func (s *reflectorCountingStore) Resync() error            { return nil }
func (s *reflectorCountingStore) Replace([]interface{}, string) error {
	return nil
}
func (s *reflectorCountingStore) Update(interface{}) error {
	s.updates++
	if s.updates == s.want {
		close(s.done)
	}
	return nil
}

// BenchmarkReflectorWatchEvents measures the steady-state watch path:
// 100,000 MODIFIED events applied to a store after a one-object list.
func BenchmarkReflectorWatchEvents(b *testing.B) {
	builds := []struct {
		name string
		run  func(lw *reflectorEventSource, s *reflectorCountingStore) func(ctx context.Context) error
	}{
		{"client-go", func(lw *reflectorEventSource, s *reflectorCountingStore) func(ctx context.Context) error {
			return cache.NewReflectorWithOptions(lw, &v1.Pod{}, s, cache.ReflectorOptions{Name: "bench"}).ListAndWatchWithContext
		}},
		{"kcache", func(lw *reflectorEventSource, s *reflectorCountingStore) func(ctx context.Context) error {
			return kcache.NewReflectorWithOptions(lw, &v1.Pod{}, s, kcache.ReflectorOptions{Name: "bench"}).ListAndWatchWithContext
		}},
	}
	versions := make([]*v1.Pod, 1000)
	for i := range versions {
		pod := reflectorBenchPod(0)
		pod.ResourceVersion = strconv.Itoa(i + 2)
		versions[i] = &pod
	}
	for _, lib := range builds {
		b.Run("impl="+lib.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				source := &reflectorEventSource{versions: versions}
				store := &reflectorCountingStore{want: reflectorBenchObjects, done: make(chan struct{})}
				run := lib.run(source, store)
				ctx, cancel := context.WithCancel(context.Background())
				finished := make(chan error, 1)
				go func() { finished <- run(ctx) }()
				<-store.done
				cancel()
				if err := <-finished; err != nil {
					b.Fatal(err)
				}
				source.feeders.Wait()
			}
		})
	}
}

// BenchmarkReflectorTransformedSyncPeakHeap syncs 100,000 pods carrying 512
// bytes of annotation each into a TransformingStore that drops them, and
// reports the peak live heap growth. An external store transforms on
// Replace in both libraries, so client-go's and kcache's List paths hold the
// raw objects until Replace alike; kcache's own queues, which accept
// already-transformed objects, get the page-by-page transform instead (see
// TestInitialSyncPeakHeapStaysNearTheTransformedSize in the root package).
func BenchmarkReflectorTransformedSyncPeakHeap(b *testing.B) {
	reflectorEachVariant(b, func(b *testing.B, lib reflectorBenchLib, stream bool) {
		var worst float64
		for i := 0; i < b.N; i++ {
			peak := &reflectorBenchPeak{enabled: true}
			peak.start()
			reflectorSyncOnceWith(b, lib, stream, peak, 512)
			worst = max(worst, peak.growthMiB())
		}
		b.ReportMetric(worst, "peak-MiB")
	})
}

// BenchmarkReflectorTransformedSyncIntoOwnQueuePeakHeap is the informer's
// real set-up: each library's Reflector lists 100,000 padded pods (paged)
// into that library's own atomic RealFIFO, whose transformer drops the
// padding. client-go holds every raw page until the last one arrives and
// transforms on Replace; kcache transforms each page as it arrives and hands
// the queue the transformed list. It reports the peak live heap growth.
func BenchmarkReflectorTransformedSyncIntoOwnQueuePeakHeap(b *testing.B) {
	queues := []struct {
		name  string
		build func(lw interface{}) (run func(context.Context) error, popOne func() error)
	}{
		{"client-go", func(lw interface{}) (func(context.Context) error, func() error) {
			q := cache.NewRealFIFOWithOptions(cache.RealFIFOOptions{KeyFunction: cache.MetaNamespaceKeyFunc, Transformer: reflectorBenchStrip, AtomicEvents: true})
			r := cache.NewReflectorWithOptions(lw.(cache.ListerWatcher), &v1.Pod{}, q, cache.ReflectorOptions{Name: "bench"})
			return r.ListAndWatchWithContext, func() error {
				_, err := q.Pop(func(interface{}, bool) error { return nil })
				return err
			}
		}},
		{"kcache", func(lw interface{}) (func(context.Context) error, func() error) {
			q := kcache.NewRealFIFOWithOptions(kcache.RealFIFOOptions{KeyFunction: kcache.MetaNamespaceKeyFunc, Transformer: reflectorBenchStrip, AtomicEvents: true})
			r := kcache.NewReflectorWithOptions(lw.(kcache.ListerWatcher), &v1.Pod{}, q, kcache.ReflectorOptions{Name: "bench"})
			return r.ListAndWatchWithContext, func() error {
				_, err := q.Pop(func(interface{}, bool) error { return nil })
				return err
			}
		}},
	}
	for _, lib := range queues {
		b.Run("List/impl="+lib.name, func(b *testing.B) {
			var worst float64
			for i := 0; i < b.N; i++ {
				peak := &reflectorBenchPeak{enabled: true}
				peak.start()
				source := &reflectorBenchSource{peak: peak, padding: 512}
				run, popOne := lib.build(reflectorBenchListOnly{source})
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan error, 1)
				go func() { done <- run(ctx) }()
				if err := popOne(); err != nil { // the ReplacedAll delta
					b.Fatal(err)
				}
				peak.sample()
				cancel()
				if err := <-done; err != nil {
					b.Fatal(err)
				}
				source.feeders.Wait()
				worst = max(worst, peak.growthMiB())
			}
			b.ReportMetric(worst, "peak-MiB")
		})
	}
}
