package benchmarks

import (
	"fmt"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	kc "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	cg "k8s.io/client-go/tools/cache"
)

// storeReader is the part of an Indexer the benchmarks use; client-go's and
// kcache's Indexers both satisfy it.
type storeReader interface {
	Add(obj any) error
	Update(obj any) error
	Delete(obj any) error
	List() []any
	ListKeys() []string
	GetByKey(key string) (any, bool, error)
	ByIndex(indexName, indexedValue string) ([]any, error)
	Replace(list []any, resourceVersion string) error
}

// storePlain is the part of a plain Store the memory benchmark uses.
type storePlain interface {
	Add(obj any) error
}

// storeImpl is one implementation under comparison.
type storeImpl struct {
	// name is the sub-benchmark suffix after "impl=".
	name string
	// newIndexer builds an empty Indexer with the shape's key function and
	// the first indices pod indices (1: namespace; 3: namespace, node, app).
	newIndexer func(shape storeClusterShape, indices int) storeReader
	// newStore builds an empty plain Store with the shape's key function.
	newStore func(shape storeClusterShape) storePlain
}

// Index names used by the benchmarks.
const (
	storeByNamespace = "namespace"
	storeByNode      = "node"
	storeByApp       = "app"
)

// storeNodeIndex indexes pods by spec.nodeName.
func storeNodeIndex(obj any) ([]string, error) {
	return []string{obj.(*v1.Pod).Spec.NodeName}, nil
}

// storeAppIndex indexes pods by their app label.
func storeAppIndex(obj any) ([]string, error) {
	app, ok := obj.(*v1.Pod).Labels["app"]
	if !ok {
		return nil, nil
	}
	return []string{app}, nil
}

// storeAllIndices is how many indices a full benchmark Indexer has.
const storeAllIndices = 3

// storeIndexers returns the first indices pod indices (1: namespace; 3:
// namespace, node, app) as either library's Indexers, byNamespace being
// that library's MetaNamespaceIndexFunc.
func storeIndexers[IX ~map[string]F, F ~func(any) ([]string, error)](indices int, byNamespace F) IX {
	ix := IX{storeByNamespace: byNamespace}
	if indices > 1 {
		ix[storeByNode], ix[storeByApp] = storeNodeIndex, storeAppIndex
	}
	return ix
}

// storeImpls lists client-go first, then kcache, built the same way.
var storeImpls = []storeImpl{
	{
		name: "client-go",
		newIndexer: func(shape storeClusterShape, indices int) storeReader {
			return cg.NewIndexer(storeCGKeyFunc(shape), storeIndexers[cg.Indexers](indices, cg.MetaNamespaceIndexFunc))
		},
		newStore: func(shape storeClusterShape) storePlain { return cg.NewStore(storeCGKeyFunc(shape)) },
	},
	{
		name: "kcache",
		newIndexer: func(shape storeClusterShape, indices int) storeReader {
			return kc.NewIndexer(storeKCKeyFunc(shape), storeIndexers[kc.Indexers](indices, kc.MetaNamespaceIndexFunc))
		},
		newStore: func(shape storeClusterShape) storePlain { return kc.NewStore(storeKCKeyFunc(shape)) },
	},
}

// storeCGKeyFunc is client-go's key function the shape asks for.
func storeCGKeyFunc(shape storeClusterShape) cg.KeyFunc {
	if shape.metaKeys {
		return cg.MetaNamespaceKeyFunc
	}
	return cg.DeletionHandlingMetaNamespaceKeyFunc
}

// storeKCKeyFunc is kcache's key function the shape asks for.
func storeKCKeyFunc(shape storeClusterShape) kc.KeyFunc {
	if shape.metaKeys {
		return kc.MetaNamespaceKeyFunc
	}
	return kc.DeletionHandlingMetaNamespaceKeyFunc
}

var (
	// storeClusterLock guards storeClusterData.
	storeClusterLock sync.Mutex
	// storeClusterData is the last cluster built, shared read-only; only
	// one is kept, so that the two shapes' pods are never live together.
	storeClusterData *storeCluster
)

// storeData returns the benchmark cluster of shape, building it unless it
// is the one built last.
func storeData(shape storeClusterShape) *storeCluster {
	storeClusterLock.Lock()
	defer storeClusterLock.Unlock()
	if storeClusterData == nil || storeClusterData.shape != shape {
		storeClusterData = nil
		runtime.GC()
		storeClusterData = newStoreCluster(shape)
	}
	return storeClusterData
}

// storeFull returns a three-index Indexer of impl holding every pod, built
// untimed.
func storeFull(b *testing.B, impl storeImpl, c *storeCluster) storeReader {
	b.Helper()
	idx := impl.newIndexer(c.shape, storeAllIndices)
	for _, p := range c.pods {
		if err := idx.Add(p); err != nil {
			b.Fatal(err)
		}
	}
	return idx
}

// storeRunImpls runs body as one sub-benchmark per shape and
// implementation, named shape=<name>/impl=<name>.
func storeRunImpls(b *testing.B, body func(b *testing.B, impl storeImpl, c *storeCluster)) {
	for _, shape := range storeBenchShapes {
		b.Run("shape="+shape.name, func(b *testing.B) {
			c := storeData(shape)
			for _, impl := range storeImpls {
				b.Run("impl="+impl.name, func(b *testing.B) {
					b.ReportAllocs()
					runtime.GC()
					body(b, impl, c)
				})
			}
		})
	}
}

// storeTimer drives a benchmark's timer and, next to wall time, sums the
// CPU time of the whole process (user and system, every thread, the GC
// included) spent while timing. CPU time is far less disturbed than wall
// time when other processes compete for the machine.
type storeTimer struct {
	// b is the benchmark whose timer this drives.
	b *testing.B
	// cpu is the process CPU time of the timed sections that ended.
	cpu time.Duration
	// since is the process CPU time when the running timed section began.
	since time.Duration
}

// storeStartTiming collects the garbage of the untimed set-up, so that no
// side pays for it inside its timed loop, and restarts the timer.
func storeStartTiming(b *testing.B) *storeTimer {
	runtime.GC()
	t := &storeTimer{b: b}
	b.ResetTimer()
	t.since = storeProcessCPU()
	return t
}

// pause stops the timer for untimed set-up.
func (t *storeTimer) pause() {
	t.b.StopTimer()
	t.cpu += storeProcessCPU() - t.since
}

// resume collects the garbage of the previous iteration and of the set-up,
// then starts the timer again.
func (t *storeTimer) resume() {
	runtime.GC()
	t.since = storeProcessCPU()
	t.b.StartTimer()
}

// finish ends timing and reports cpu-ns/op, plus wall and CPU time per
// unit of work (ns/<unit>, cpu-ns/<unit>) when each op does perOp units.
func (t *storeTimer) finish(perOp int, unit string) {
	t.pause()
	n := float64(t.b.N)
	t.b.ReportMetric(float64(t.cpu.Nanoseconds())/n, "cpu-ns/op")
	if perOp > 0 {
		t.b.ReportMetric(float64(t.b.Elapsed().Nanoseconds())/n/float64(perOp), "ns/"+unit)
		t.b.ReportMetric(float64(t.cpu.Nanoseconds())/n/float64(perOp), "cpu-ns/"+unit)
	}
}

// storeProcessCPU returns the CPU time the process has used so far.
func storeProcessCPU() time.Duration {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		panic(err)
	}
	return time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
}

// BenchmarkStoreAdd adds 100,000 pods to an empty three-index Indexer.
func BenchmarkStoreAdd(b *testing.B) {
	storeBenchEachPod(b, func(b *testing.B, impl storeImpl, c *storeCluster) storeReader {
		return impl.newIndexer(c.shape, storeAllIndices)
	}, storeReader.Add)
}

// BenchmarkStoreUpdate updates all 100,000 pods of a full Indexer to their
// next version (one in ten moves to another node), alternating versions.
func BenchmarkStoreUpdate(b *testing.B) {
	storeRunImpls(b, func(b *testing.B, impl storeImpl, c *storeCluster) {
		idx := storeFull(b, impl, c)
		timer := storeStartTiming(b)
		for i := 0; i < b.N; i++ {
			versions := c.updated
			if i%2 == 1 {
				versions = c.pods
			}
			for _, p := range versions {
				if err := idx.Update(p); err != nil {
					b.Fatal(err)
				}
			}
		}
		timer.finish(len(c.pods), "obj")
	})
}

// BenchmarkStoreDelete deletes all 100,000 pods from a full Indexer.
func BenchmarkStoreDelete(b *testing.B) {
	storeBenchEachPod(b, storeFull, storeReader.Delete)
}

// storeBenchEachPod times apply on every pod of the cluster, once per op,
// against a new Indexer from fresh (built outside the timing), for every
// implementation; the rate is reported per pod.
func storeBenchEachPod(b *testing.B, fresh func(b *testing.B, impl storeImpl, c *storeCluster) storeReader, apply func(idx storeReader, obj any) error) {
	storeRunImpls(b, func(b *testing.B, impl storeImpl, c *storeCluster) {
		timer := storeStartTiming(b)
		for i := 0; i < b.N; i++ {
			timer.pause()
			idx := fresh(b, impl, c)
			timer.resume()
			for _, p := range c.pods {
				if err := apply(idx, p); err != nil {
					b.Fatal(err)
				}
			}
		}
		timer.finish(len(c.pods), "obj")
	})
}

// BenchmarkStoreByIndex queries every value of one index of a full Indexer
// once per op. Shape apps4-nodes5k-ns100: 100 namespaces (~1,000 pods
// each), 5,000 nodes (~20 pods each), ~25,000 apps (3 to 5 pods each);
// shape apps50-nodes1k-ns500: 500 namespaces (200 pods each), 1,000 nodes
// (~100 pods each), 2,000 apps (50 pods each).
func BenchmarkStoreByIndex(b *testing.B) {
	for _, index := range []string{storeByNamespace, storeByNode, storeByApp} {
		b.Run("index="+index, func(b *testing.B) {
			storeRunImpls(b, func(b *testing.B, impl storeImpl, c *storeCluster) {
				values := c.indexValues(index)
				idx := storeFull(b, impl, c)
				timer := storeStartTiming(b)
				found := 0
				for i := 0; i < b.N; i++ {
					for _, v := range values {
						objs, err := idx.ByIndex(index, v)
						if err != nil {
							b.Fatal(err)
						}
						found += len(objs)
					}
				}
				if found != b.N*len(c.pods) {
					b.Fatalf("ByIndex(%s) found %d objects over %d sweeps of %d pods", index, found, b.N, len(c.pods))
				}
				timer.finish(len(values), "query")
			})
		})
	}
}

// indexValues returns every value the named benchmark index has.
func (c *storeCluster) indexValues(index string) []string {
	switch index {
	case storeByNamespace:
		return c.namespaces
	case storeByNode:
		return c.nodes
	default:
		return c.apps
	}
}

// BenchmarkStoreList lists a full Indexer of 100,000 pods.
func BenchmarkStoreList(b *testing.B) {
	storeBenchListAll(b, "List", "obj", func(idx storeReader) int { return len(idx.List()) })
}

// BenchmarkStoreListKeys lists the keys of a full Indexer of 100,000 pods.
func BenchmarkStoreListKeys(b *testing.B) {
	storeBenchListAll(b, "ListKeys", "key", func(idx storeReader) int { return len(idx.ListKeys()) })
}

// storeBenchListAll times count, which calls the method named call on a full
// Indexer and returns how many items it got, against every implementation;
// each call must return one item a pod, and the rate is reported per unit.
func storeBenchListAll(b *testing.B, call, unit string, count func(idx storeReader) int) {
	storeRunImpls(b, func(b *testing.B, impl storeImpl, c *storeCluster) {
		idx := storeFull(b, impl, c)
		timer := storeStartTiming(b)
		for i := 0; i < b.N; i++ {
			if got := count(idx); got != len(c.pods) {
				b.Fatalf("%s returned %d items, want %d", call, got, len(c.pods))
			}
		}
		timer.finish(len(c.pods), unit)
	})
}

// BenchmarkStoreReplace replaces a full Indexer with the 100,000 next
// versions (then back), as a relist does.
func BenchmarkStoreReplace(b *testing.B) {
	storeRunImpls(b, func(b *testing.B, impl storeImpl, c *storeCluster) {
		idx := storeFull(b, impl, c)
		list := make([]any, len(c.pods))
		timer := storeStartTiming(b)
		for i := 0; i < b.N; i++ {
			timer.pause()
			if i%2 == 0 {
				copy(list, c.updated)
			} else {
				copy(list, c.pods)
			}
			timer.resume()
			if err := idx.Replace(list, "2000000"); err != nil {
				b.Fatal(err)
			}
		}
		timer.finish(len(c.pods), "obj")
	})
}

// storeReadsPerReader is how many reads each reader goroutine makes per op
// of BenchmarkStoreReadersWithWriter.
const storeReadsPerReader = 50_000

// storeWritesPerOp is how many updates the writer makes per op of
// BenchmarkStoreReadersWithWriter.
const storeWritesPerOp = 20_000

// BenchmarkStoreReadersWithWriter runs GOMAXPROCS readers (alternating
// GetByKey and ByIndex on the node index) against a full Indexer while one
// writer updates pods. One op is a fixed amount of work, so every metric
// compares like with like: each reader makes storeReadsPerReader reads and
// the writer storeWritesPerOp updates, all concurrently; the op ends when
// all are done. ns/read and cpu-ns/read divide the op's wall and CPU time
// (readers and writer together) by the reads.
func BenchmarkStoreReadersWithWriter(b *testing.B) {
	storeRunImpls(b, func(b *testing.B, impl storeImpl, c *storeCluster) {
		idx := storeFull(b, impl, c)
		readers := runtime.GOMAXPROCS(0)
		written := 0
		timer := storeStartTiming(b)
		for i := 0; i < b.N; i++ {
			var wg sync.WaitGroup
			wg.Add(1)
			go func(from int) {
				defer wg.Done()
				storeWriteMany(b, idx, c, from)
			}(written)
			written += storeWritesPerOp
			for r := 0; r < readers; r++ {
				wg.Add(1)
				go func(r int) {
					defer wg.Done()
					storeReadMany(b, idx, c, r)
				}(r)
			}
			wg.Wait()
		}
		timer.finish(readers*storeReadsPerReader, "read")
	})
}

// storeWriteMany makes storeWritesPerOp updates, continuing the cycle
// through the pods' versions at update number from.
func storeWriteMany(b *testing.B, idx storeReader, c *storeCluster, from int) {
	for i := from; i < from+storeWritesPerOp; i++ {
		versions := c.updated
		if (i/len(c.pods))%2 == 1 {
			versions = c.pods
		}
		if err := idx.Update(versions[i%len(c.pods)]); err != nil {
			b.Error(err)
			return
		}
	}
}

// storeReadMany makes storeReadsPerReader reads, alternating GetByKey and
// ByIndex(node), starting at a reader-specific offset.
func storeReadMany(b *testing.B, idx storeReader, c *storeCluster, reader int) {
	for k := 0; k < storeReadsPerReader; k++ {
		n := reader*7919 + k
		if k%2 == 0 {
			if _, exists, err := idx.GetByKey(c.keys[n%len(c.keys)]); err != nil || !exists {
				b.Errorf("GetByKey(%s) = %t, %v", c.keys[n%len(c.keys)], exists, err)
				return
			}
			continue
		}
		if _, err := idx.ByIndex(storeByNode, c.nodes[n%len(c.nodes)]); err != nil {
			b.Error(err)
			return
		}
	}
}

// BenchmarkStoreRetainedHeap measures the heap a full Indexer and a full
// plain Store keep beyond the (pre-built) pods themselves: retained-B/obj
// and store-B/obj count live bytes (HeapAlloc after a forced GC), their
// difference is index-overhead-B/obj, and heap-inuse-B/obj counts the
// Indexer's growth in in-use heap spans (HeapInuse, fragmentation included).
// indices=1 has the namespace index only, indices=3 all three.
func BenchmarkStoreRetainedHeap(b *testing.B) {
	for _, indices := range []int{1, storeAllIndices} {
		b.Run(fmt.Sprintf("indices=%d", indices), func(b *testing.B) {
			storeRunImpls(b, func(b *testing.B, impl storeImpl, c *storeCluster) {
				storeMeasureRetained(b, impl, c, indices)
			})
		})
	}
}

// storeMeasureRetained is one BenchmarkStoreRetainedHeap sub-benchmark.
func storeMeasureRetained(b *testing.B, impl storeImpl, c *storeCluster, indices int) {
	var indexed, plain storeHeapGrowth
	for i := 0; i < b.N; i++ {
		indexed.add(storeRetained(func() any {
			idx := impl.newIndexer(c.shape, indices)
			for _, p := range c.pods {
				_ = idx.Add(p)
			}
			return idx
		}))
		plain.add(storeRetained(func() any {
			s := impl.newStore(c.shape)
			for _, p := range c.pods {
				_ = s.Add(p)
			}
			return s
		}))
	}
	perObj := func(total uint64) float64 { return float64(total) / float64(b.N) / float64(len(c.pods)) }
	b.ReportMetric(perObj(indexed.live), "retained-B/obj")
	b.ReportMetric(perObj(plain.live), "store-B/obj")
	b.ReportMetric(perObj(indexed.live)-perObj(plain.live), "index-overhead-B/obj")
	b.ReportMetric(perObj(indexed.inuse), "heap-inuse-B/obj")
}

// storeHeapGrowth is how much the heap grew while building something.
type storeHeapGrowth struct {
	// live is the growth of live bytes (HeapAlloc after GC).
	live uint64
	// inuse is the growth of in-use spans (HeapInuse after GC).
	inuse uint64
}

// add accumulates another measurement.
func (g *storeHeapGrowth) add(other storeHeapGrowth) {
	g.live += other.live
	g.inuse += other.inuse
}

// storeRetained returns how much heap what build returns keeps, measured
// after forced collections before and after the build.
func storeRetained(build func() any) storeHeapGrowth {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	kept := build()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(kept)
	return storeHeapGrowth{live: storeGrowth(before.HeapAlloc, after.HeapAlloc), inuse: storeGrowth(before.HeapInuse, after.HeapInuse)}
}

// storeGrowth returns after-before, or 0 when the heap shrank.
func storeGrowth(before, after uint64) uint64 {
	if after < before {
		return 0
	}
	return after - before
}

// TestStoreBenchClusterLooksLikeARealCluster checks the benchmark data has
// the advertised shape, on smaller clusters: every namespace used, apps of
// the shape's sizes, unique keys, next versions on the same keys.
func TestStoreBenchClusterLooksLikeARealCluster(t *testing.T) {
	for _, shape := range []storeClusterShape{
		{name: "small", pods: 2_000, namespaces: 10, nodes: 50, appMin: 3, appMax: 5},
		{name: "wide", pods: 2_000, namespaces: 20, nodes: 10, appMin: 50, appMax: 50, metaKeys: true},
	} {
		t.Run(shape.name, func(t *testing.T) { storeCheckCluster(t, shape) })
	}
}

// storeCheckCluster is one case of TestStoreBenchClusterLooksLikeARealCluster.
func storeCheckCluster(t *testing.T, shape storeClusterShape) {
	c := newStoreCluster(shape)
	if len(c.pods) != shape.pods || len(c.updated) != shape.pods || len(c.keys) != shape.pods {
		t.Fatalf("got %d pods, %d next versions, %d keys; want %d of each", len(c.pods), len(c.updated), len(c.keys), shape.pods)
	}
	perApp, perNamespace, keys := map[string]int{}, map[string]int{}, map[string]bool{}
	for i, obj := range c.pods {
		p, next := obj.(*v1.Pod), c.updated[i].(*v1.Pod)
		perApp[p.Labels["app"]]++
		perNamespace[p.Namespace]++
		keys[c.keys[i]] = true
		if next.Namespace != p.Namespace || next.Name != p.Name || next.ResourceVersion == p.ResourceVersion {
			t.Fatalf("pod %d: next version %s/%s@%s does not follow %s/%s@%s", i, next.Namespace, next.Name, next.ResourceVersion, p.Namespace, p.Name, p.ResourceVersion)
		}
		if len(p.OwnerReferences) != 1 || len(p.Spec.Containers) < 2 || len(p.Status.Conditions) != 4 || p.Spec.NodeName == "" {
			t.Fatalf("pod %d is not realistic: %+v", i, p)
		}
	}
	if len(keys) != shape.pods || len(perNamespace) != shape.namespaces {
		t.Fatalf("got %d distinct keys over %d namespaces, want %d over %d", len(keys), len(perNamespace), shape.pods, shape.namespaces)
	}
	for i, app := range c.apps[:len(c.apps)-1] {
		if n := perApp[app]; n < shape.appMin || n > shape.appMax {
			t.Fatalf("app %d (%s) has %d pods, want %d to %d", i, app, n, shape.appMin, shape.appMax)
		}
	}
}
