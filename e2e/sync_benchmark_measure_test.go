package e2e

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"weak"

	kcache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/fastlw"
	"github.com/kcache-go/cache/transform"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/rest"
	cgcache "k8s.io/client-go/tools/cache"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
)

// syncConfig is one informer setup the sync benchmark measures: a
// SharedIndexInformer of pods (namespace index, one handler) of one
// library, with one ListerWatcher and one transform.
type syncConfig struct {
	// name labels the rows.
	name string
	// kcache picks kcache's informer (else client-go's); fastlw its
	// ListerWatcher (else the library's NewListWatchFromClient).
	kcache, fastlw bool
	// early also gives transform to fastlw (Config.Transform), which runs
	// it on its decode workers before the Reflector sees the objects; the
	// informer keeps it too.
	early bool
	// transform is the informer's transform; nil for none.
	transform func(interface{}) (interface{}, error)
}

// syncConfigs are the configurations, client-go plain first (the ratios'
// base).
var syncConfigs = []syncConfig{
	{name: "client-go"},
	{name: "client-go+CR strip", transform: crcache.TransformStripManagedFields()},
	{name: "kcache", kcache: true},
	{name: "kcache+fastlw", kcache: true, fastlw: true},
	{name: "kcache+fastlw+Rec", kcache: true, fastlw: true, transform: transform.Recommended},
	{name: "kcache+fastlw+Rec early", kcache: true, fastlw: true, early: true, transform: transform.Recommended},
}

// runningInformer is one started configuration.
type runningInformer struct {
	// lw is the counting, 410-injecting ListerWatcher it was given.
	lw *goneInjectingLW
	// synced reports the informer's and its handler's HasSynced.
	synced func() bool
	// indexer is its cache.
	indexer benchIndexer
	// done is closed when its Run returns.
	done chan struct{}
}

// start builds the configuration's informer on rc and runs it until ctx
// ends.
func (c syncConfig) start(ctx context.Context, rc rest.Interface) (*runningInformer, error) {
	all, everything := metav1.NamespaceAll, fields.Everything()
	var inner contextListerWatcher
	switch {
	case c.fastlw:
		// NewFromClient's configuration, spelled out for the early transform.
		cfg := fastlw.Config{Client: rc, Resource: "pods", Namespace: all, Serializer: fastlw.ClientsetSerializer(),
			OptionsModifier: func(o *metav1.ListOptions) { o.FieldSelector = everything.String() }}
		if c.early {
			cfg.Transform = c.transform
		}
		inner = fastlw.New(cfg)
	case c.kcache:
		inner = kcache.NewListWatchFromClient(rc, "pods", all, everything)
	default:
		inner = cgcache.NewListWatchFromClient(rc, "pods", all, everything)
	}
	ri := &runningInformer{lw: &goneInjectingLW{inner: inner}, done: make(chan struct{})}
	noop := func(interface{}) {}
	var err error
	if c.kcache {
		inf := kcache.NewSharedIndexInformer(ri.lw, &v1.Pod{}, 0, kcache.Indexers{kcache.NamespaceIndex: kcache.MetaNamespaceIndexFunc})
		err = runInformer[kcache.TransformFunc](ctx, ri, inf, c.transform, kcache.ResourceEventHandler(kcache.ResourceEventHandlerFuncs{AddFunc: noop}))
	} else {
		inf := cgcache.NewSharedIndexInformer(ri.lw, &v1.Pod{}, 0, cgcache.Indexers{cgcache.NamespaceIndex: cgcache.MetaNamespaceIndexFunc})
		err = runInformer[cgcache.TransformFunc](ctx, ri, inf, c.transform, cgcache.ResourceEventHandler(cgcache.ResourceEventHandlerFuncs{AddFunc: noop}))
	}
	if err != nil {
		return nil, err
	}
	return ri, nil
}

// informerOf is what the benchmark uses of either library's
// SharedIndexInformer: T, H, R and I are the library's TransformFunc,
// ResourceEventHandler, ResourceEventHandlerRegistration and Indexer.
type informerOf[T ~func(interface{}) (interface{}, error), H any, R interface{ HasSynced() bool }, I benchIndexer] interface {
	SetTransform(T) error
	AddEventHandler(H) (R, error)
	HasSynced() bool
	GetIndexer() I
	RunWithContext(ctx context.Context)
}

// runInformer sets inf's transform (when not nil), adds handler, fills
// ri's synced and indexer and runs inf until ctx ends, closing ri.done
// after.
func runInformer[T ~func(interface{}) (interface{}, error), H any, R interface{ HasSynced() bool }, I benchIndexer](
	ctx context.Context, ri *runningInformer, inf informerOf[T, H, R, I], tf func(interface{}) (interface{}, error), handler H) error {
	if tf != nil {
		if err := inf.SetTransform(T(tf)); err != nil {
			return err
		}
	}
	reg, err := inf.AddEventHandler(handler)
	if err != nil {
		return err
	}
	ri.synced = func() bool { return inf.HasSynced() && reg.HasSynced() }
	ri.indexer = inf.GetIndexer()
	go func() { defer close(ri.done); inf.RunWithContext(ctx) }()
	return nil
}

// phaseCost is what one phase (the initial sync, or the relist after a
// 410) cost.
type phaseCost struct {
	// elapsed is from Run to HasSynced, or from the relist's first request
	// to every cached pod replaced.
	elapsed time.Duration
	// cpu and serverCPU are the CPU seconds of this process and of
	// kube-apiserver during the phase (for the relist: from the 410).
	cpu, serverCPU float64
	// peak is the peak heap (objects) above the settled heap before it.
	peak float64
	// retained is the live heap per cached pod after it, above the settled
	// heap before the informer started.
	retained float64
	// pages is the number of List calls of the phase.
	pages float64
}

// syncSample is one configuration's measurement: the initial sync, then
// the relist after an injected 410 (from410: its time from the 410, the
// reflector's backoff included).
type syncSample struct {
	sync, relist phaseCost
	from410      time.Duration
}

// measureSync runs cfg once in mode through rc against the pods of shape:
// initial sync, then a relist forced by a 410.
func measureSync(t *testing.T, cfg syncConfig, mode syncMode, rc rest.Interface, shape *benchShape, keys []string) syncSample {
	t.Helper()
	defer setWatchListClientGate(mode.watchList)()
	label := cfg.name + " via " + mode.name
	n := float64(len(shape.rvs))
	var s syncSample
	base := settledHeap()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cost := startCost()
	ri, err := cfg.start(ctx, rc)
	if err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	waitFor(t, label+": initial sync", 5*time.Minute, ri.synced)
	s.sync = cost.stop(base)
	s.sync.pages = float64(ri.lw.pages.Load())
	if lists, streams := ri.lw.lists.Load(), ri.lw.streams.Load(); mode.watchList != (streams == 1 && lists == 0) || !mode.watchList && lists != 1 {
		t.Errorf("%s: synced with %d lists and %d WatchList streams", label, lists, streams)
	}
	checkCacheMatches(t, label, ri.indexer, shape, keys)
	s.sync.retained = (settledHeap() - base) / n

	s.relist, s.from410 = measureRelist(t, label, ri)
	s.relist.pages = float64(ri.lw.pages.Load()) - s.sync.pages
	checkCacheMatches(t, label+" after the relist", ri.indexer, shape, keys)
	s.relist.retained = (settledHeap() - base) / n
	cancel()
	select {
	case <-ri.done:
	case <-time.After(time.Minute):
		t.Fatalf("%s: Run did not return within a minute of its context ending", label)
	}
	return s
}

// measureRelist ends ri's watch with a 410 and waits until every cached
// pod has been replaced by the relist's copy (no pod changes on the
// server, so a replaced object is the only sign that the relist reached
// the cache). The old objects are tracked through weak pointers, so that
// tracking them keeps none alive. It returns the relist's cost and its
// time from the 410.
func measureRelist(t *testing.T, label string, ri *runningInformer) (phaseCost, time.Duration) {
	t.Helper()
	var pending []string
	var old []weak.Pointer[v1.Pod]
	for _, key := range ri.indexer.ListKeys() {
		obj, _, _ := ri.indexer.GetByKey(key)
		pending, old = append(pending, key), append(old, weak.Make(obj.(*v1.Pod)))
	}
	base := settledHeap()
	cost := startCost()
	waitFor(t, label+": a watch to end with 410", time.Minute, ri.lw.expire)
	waitFor(t, label+": the relist to start", 5*time.Minute, func() bool { return !ri.lw.relistStarted().IsZero() })
	waitFor(t, label+": every cached pod replaced by the relist", 5*time.Minute, func() bool {
		if len(pending) > 0 && !replaced(ri.indexer, pending[0], old[0]) {
			return false
		}
		keep := 0
		for i, key := range pending {
			if !replaced(ri.indexer, key, old[i]) {
				pending[keep], old[keep] = key, old[i]
				keep++
			}
		}
		pending, old = pending[:keep], old[:keep]
		return keep == 0
	})
	c := cost.stop(base)
	from410 := c.elapsed
	c.elapsed = time.Since(ri.lw.relistStarted())
	return c, from410
}

// replaced reports whether the cached object of key is no longer the one
// old points to.
func replaced(indexer benchIndexer, key string, old weak.Pointer[v1.Pod]) bool {
	obj, ok, _ := indexer.GetByKey(key)
	return ok && obj.(*v1.Pod) != old.Value()
}

// waitFor polls cond every 2ms until it is true; after timeout it fails
// the test.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, timeout)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// heapObjectsMetric is the heap held by objects, live or not yet swept.
const heapObjectsMetric = "/memory/classes/heap/objects:bytes"

func heapObjects() float64 {
	s := []metrics.Sample{{Name: heapObjectsMetric}}
	metrics.Read(s)
	return float64(s[0].Value.Uint64())
}

// settledHeap is the live heap after two forced collections.
func settledHeap() float64 {
	runtime.GC()
	runtime.GC()
	return heapObjects()
}

// syncCost measures one phase: wall time, this process's and
// kube-apiserver's CPU, and the peak heap, sampled every 2ms.
type syncCost struct {
	start            time.Time
	cpu0, serverCPU0 float64
	stopSampling     chan struct{}
	peak             chan float64
}

func startCost() *syncCost {
	c := &syncCost{start: time.Now(), cpu0: processCPU(), serverCPU0: apiserverCPU(), stopSampling: make(chan struct{}), peak: make(chan float64)}
	go func() {
		peak := heapObjects()
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-c.stopSampling:
				c.peak <- max(peak, heapObjects())
				return
			case <-tick.C:
				peak = max(peak, heapObjects())
			}
		}
	}()
	return c
}

// stop ends the phase: its duration, CPU seconds of this process and of
// kube-apiserver, and peak heap above base.
func (c *syncCost) stop(base float64) phaseCost {
	p := phaseCost{elapsed: time.Since(c.start), cpu: processCPU() - c.cpu0, serverCPU: apiserverCPU() - c.serverCPU0}
	close(c.stopSampling)
	p.peak = <-c.peak - base
	return p
}

// processCPU is this process's user and system CPU seconds.
func processCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// apiserverCPU is kube-apiserver's user and system CPU seconds from
// /proc/<pid>/stat (clock ticks of 1/100 s), or 0 when unreadable.
func apiserverCPU() float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", cluster.APIServerPID()))
	if err != nil {
		return 0
	}
	// Fields after the command name (which may hold spaces) start at state:
	// utime and stime are fields 14 and 15 of the line, 12 and 13 here.
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / 100
}
