package cache

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// The tests of this file measure the live heap during a large initial sync
// through a store whose transform shrinks every object. They force a GC at
// fixed points (each page request, every 500 streamed events, the Replace)
// and keep the largest live heap seen.

const (
	memoryTestObjects = 20000
	memoryTestPage    = 500
	memoryTestPadding = 2048 // bytes of annotation the transform drops
)

// heapPeak tracks the largest live heap seen at the sampling points.
type heapPeak struct {
	mu   sync.Mutex
	base uint64
	peak uint64
}

// newHeapPeak records the live heap before the sync as the base.
func newHeapPeak() *heapPeak {
	h := &heapPeak{}
	h.base = liveHeap()
	return h
}

// sample records the live heap now.
func (h *heapPeak) sample() {
	v := liveHeap()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.peak = max(h.peak, v)
}

// growth is the peak above the base.
func (h *heapPeak) growth() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.peak < h.base {
		return 0
	}
	return h.peak - h.base
}

// liveHeap collects garbage and returns the bytes still in use.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// bigPod is a pod carrying memoryTestPadding bytes the transform drops.
func bigPod(i int) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{
		Namespace:       "ns",
		Name:            "pod-" + strconv.Itoa(i),
		ResourceVersion: strconv.Itoa(i + 1),
		Annotations:     map[string]string{"padding": strings.Repeat("x", memoryTestPadding)},
	}}
}

// shrink drops the padding.
func shrink(obj interface{}) (interface{}, error) {
	if p, ok := obj.(*v1.Pod); ok {
		p.Annotations = nil
	}
	return obj, nil
}

// generatedListerWatcher builds every page (or streamed event) on request,
// so the source holds nothing; it samples the heap before each page.
type generatedListerWatcher struct {
	peak *heapPeak
	// stream selects the WatchList answer for the first watch.
	stream bool
	// watches counts watch calls; mu guards it.
	mu      sync.Mutex
	watches int
}

func (g *generatedListerWatcher) List(options metav1.ListOptions) (kruntime.Object, error) {
	g.peak.sample()
	start := 0
	if options.Continue != "" {
		start, _ = strconv.Atoi(options.Continue)
	}
	end := min(start+memoryTestPage, memoryTestObjects)
	list := &v1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(memoryTestObjects)}}
	list.Items = make([]v1.Pod, 0, end-start)
	for i := start; i < end; i++ {
		list.Items = append(list.Items, *bigPod(i))
	}
	if end < memoryTestObjects {
		list.Continue = strconv.Itoa(end)
	}
	return list, nil
}

func (g *generatedListerWatcher) Watch(options metav1.ListOptions) (watch.Interface, error) {
	g.mu.Lock()
	g.watches++
	first := g.watches == 1
	g.mu.Unlock()
	w := watch.NewFake()
	if g.stream && first {
		go g.feed(w)
	}
	return w, nil
}

// feed streams the initial events and the end bookmark.
func (g *generatedListerWatcher) feed(w *watch.FakeWatcher) {
	for i := 0; i < memoryTestObjects; i++ {
		if i%memoryTestPage == 0 {
			g.peak.sample()
		}
		w.Add(bigPod(i))
	}
	end := &v1.Pod{ObjectMeta: metav1.ObjectMeta{
		ResourceVersion: strconv.Itoa(memoryTestObjects),
		Annotations:     map[string]string{metav1.InitialEventsAnnotationKey: "true"},
	}}
	w.Action(watch.Bookmark, end)
}

// holdingStore keeps the replaced objects (as an informer's cache would) and
// samples the heap when Replace receives them. acceptsTransformed selects
// whether it implements replaceTransformed (see holdingKcacheStore).
type holdingStore struct {
	peak     *heapPeak
	mu       sync.Mutex
	held     []interface{}
	replaced chan struct{}
}

func (s *holdingStore) Add(interface{}) error    { return nil }
func (s *holdingStore) Update(interface{}) error { return nil }
func (s *holdingStore) Delete(interface{}) error { return nil }
func (s *holdingStore) Resync() error            { return nil }

// Replace transforms the objects itself, as a client-go queue would.
func (s *holdingStore) Replace(list []interface{}, _ string) error {
	s.peak.sample()
	for i, obj := range list {
		list[i], _ = shrink(obj)
	}
	return s.keep(list)
}

func (s *holdingStore) keep(list []interface{}) error {
	s.mu.Lock()
	s.held = list
	s.mu.Unlock()
	close(s.replaced)
	return nil
}

func (s *holdingStore) Transformer() TransformFunc { return shrink }

// holdingKcacheStore accepts already transformed objects.
type holdingKcacheStore struct{ *holdingStore }

func (s holdingKcacheStore) replaceTransformed(list []interface{}, _ string) error {
	s.peak.sample()
	return s.keep(list)
}

func (s holdingKcacheStore) replacePartlyTransformed(_ []interface{}, _ string, _ int, failure error) error {
	return failure
}

// syncPeak runs one initial sync and returns the peak heap growth and the
// heap retained by the store afterwards.
func syncPeak(t *testing.T, stream, perPage bool) (peak, retained uint64) {
	t.Helper()
	h := newHeapPeak()
	lw := &generatedListerWatcher{peak: h, stream: stream}
	base := &holdingStore{peak: h, replaced: make(chan struct{})}
	var store ReflectorStore = base
	if perPage {
		store = holdingKcacheStore{base}
	}
	var source ListerWatcher = lw
	if !stream {
		source = ToListWatcherWithWatchListSemantics(&ListWatch{ListFunc: lw.List, WatchFunc: lw.Watch}, unsupportingClient{})
	}
	r := NewReflectorWithOptions(source, &v1.Pod{}, store, ReflectorOptions{Name: "memory"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- r.ListAndWatchWithContext(ctx) }()
	<-base.replaced
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	retained = liveHeap() - min(h.base, liveHeap())
	base.mu.Lock()
	if len(base.held) != memoryTestObjects {
		t.Fatalf("store holds %d objects, want %d", len(base.held), memoryTestObjects)
	}
	base.mu.Unlock()
	runtime.KeepAlive(base)
	return h.growth(), retained
}

func TestInitialSyncPeakHeapStaysNearTheTransformedSize(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	const mb = 1 << 20
	rawSize := uint64(memoryTestObjects * memoryTestPadding)
	pageSize := uint64(memoryTestPage * (memoryTestPadding + 1024))
	cases := []struct {
		name    string
		stream  bool
		perPage bool
		// bound is the largest acceptable peak growth given the retained size.
		bound func(retained uint64) uint64
	}{
		{"paged List into a store that accepts transformed objects", false, true,
			func(retained uint64) uint64 { return retained*3/2 + 2*pageSize }},
		{"WatchList into a store that accepts transformed objects", true, true,
			func(retained uint64) uint64 { return retained*2 + 2*pageSize }},
		{"paged List into a store that transforms on Replace (client-go's pattern)", false, false,
			func(uint64) uint64 { return ^uint64(0) }},
	}
	peaks := map[string]uint64{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			peak, retained := syncPeak(t, tc.stream, tc.perPage)
			peaks[tc.name] = peak
			t.Logf("peak heap growth %.1f MiB, retained after sync %.1f MiB, raw padding %.1f MiB",
				float64(peak)/mb, float64(retained)/mb, float64(rawSize)/mb)
			if peak > tc.bound(retained) {
				t.Fatalf("peak growth %.1f MiB exceeds %.1f MiB", float64(peak)/mb, float64(tc.bound(retained))/mb)
			}
		})
	}
	perPage := peaks["paged List into a store that accepts transformed objects"]
	whole := peaks["paged List into a store that transforms on Replace (client-go's pattern)"]
	if perPage == 0 || whole == 0 || perPage*2 > whole {
		t.Fatalf("transforming per page peaks at %d bytes, holding the raw list at %d; want at most half", perPage, whole)
	}
	t.Logf("per-page transform peak %.1f MiB vs whole-list %.1f MiB", float64(perPage)/mb, float64(whole)/mb)
}

func (s holdingKcacheStore) checkReplaceKey(interface{}) error { return nil }

func (s holdingKcacheStore) keysBeforeTransform() bool { return false }
