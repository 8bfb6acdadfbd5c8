package extras

import (
	"fmt"
	"testing"
	"time"

	kcache "github.com/kcache-go/cache"
	ksynctrack "github.com/kcache-go/cache/synctrack"
	kframework "github.com/kcache-go/cache/testing"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	cgcache "k8s.io/client-go/tools/cache"
	cgsynctrack "k8s.io/client-go/tools/cache/synctrack"
	cgframework "k8s.io/client-go/tools/cache/testing"
	"k8s.io/klog/v2"
	clocktesting "k8s.io/utils/clock/testing"
)

// benchPods returns n pods ns/p<i> at resource version rv, labelled by i%10.
func benchPods(n int, rv string) []*v1.Pod {
	pods := make([]*v1.Pod, n)
	for i := range pods {
		pods[i] = &v1.Pod{ObjectMeta: metav1.ObjectMeta{
			Namespace: "ns", Name: fmt.Sprint("p", i), ResourceVersion: rv,
			Labels: map[string]string{"l": fmt.Sprint(i % 10)},
		}}
	}
	return pods
}

func byLabel(obj interface{}) ([]string, error) {
	return []string{obj.(*v1.Pod).Labels["l"]}, nil
}

// store is the part of Store the expiration benchmarks use.
type store interface {
	Add(obj interface{}) error
	GetByKey(key string) (interface{}, bool, error)
	List() []interface{}
}

func BenchmarkExpirationCacheAddGet(b *testing.B) {
	pods := benchPods(1000, "1")
	clk := clocktesting.NewFakeClock(time.Now())
	impls := map[string]func() store{
		"client-go": func() store {
			return cgcache.NewFakeExpirationStore(cgcache.MetaNamespaceKeyFunc, nil, &cgcache.TTLPolicy{TTL: time.Hour, Clock: clk}, clk)
		},
		"kcache": func() store {
			return kcache.NewFakeExpirationStore(kcache.MetaNamespaceKeyFunc, nil, &kcache.TTLPolicy{TTL: time.Hour, Clock: clk}, clk)
		},
	}
	for _, name := range []string{"client-go", "kcache"} {
		b.Run(name, func(b *testing.B) {
			s := impls[name]()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				p := pods[i%len(pods)]
				_ = s.Add(p)
				_, _, _ = s.GetByKey("ns/" + p.Name)
			}
		})
	}
}

func BenchmarkExpirationCacheList1000(b *testing.B) {
	pods := benchPods(1000, "1")
	clk := clocktesting.NewFakeClock(time.Now())
	impls := map[string]store{
		"client-go": cgcache.NewFakeExpirationStore(cgcache.MetaNamespaceKeyFunc, nil, &cgcache.TTLPolicy{TTL: time.Hour, Clock: clk}, clk),
		"kcache":    kcache.NewFakeExpirationStore(kcache.MetaNamespaceKeyFunc, nil, &kcache.TTLPolicy{TTL: time.Hour, Clock: clk}, clk),
	}
	for _, name := range []string{"client-go", "kcache"} {
		s := impls[name]
		for _, p := range pods {
			_ = s.Add(p)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if len(s.List()) != len(pods) {
					b.Fatal("wrong length")
				}
			}
		})
	}
}

// mutationCache is MutationCache of either implementation.
type mutationCache interface {
	GetByKey(key string) (interface{}, bool, error)
	ByIndex(indexName, indexKey string) ([]interface{}, error)
	Mutation(interface{})
}

func BenchmarkMutationCacheGetAndByIndex(b *testing.B) {
	backingPods := benchPods(1000, "1")
	newer := benchPods(50, "2")
	impls := map[string]func() mutationCache{
		"client-go": func() mutationCache {
			idx := cgcache.NewIndexer(cgcache.MetaNamespaceKeyFunc, cgcache.Indexers{"by": byLabel})
			for _, p := range backingPods {
				_ = idx.Add(p)
			}
			return cgcache.NewIntegerResourceVersionMutationCache(klog.Background(), idx, idx, time.Hour, true)
		},
		"kcache": func() mutationCache {
			idx := kcache.NewIndexer(kcache.MetaNamespaceKeyFunc, kcache.Indexers{"by": byLabel})
			for _, p := range backingPods {
				_ = idx.Add(p)
			}
			return kcache.NewIntegerResourceVersionMutationCache(klog.Background(), idx, idx, time.Hour, true)
		},
	}
	for _, name := range []string{"client-go", "kcache"} {
		b.Run(name, func(b *testing.B) {
			mc := impls[name]()
			for _, p := range newer {
				mc.Mutation(p)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_, _, _ = mc.GetByKey("ns/" + backingPods[i%len(backingPods)].Name)
				if i%100 == 0 {
					_, _ = mc.ByIndex("by", "3")
				}
			}
		})
	}
}

// tracker is the Start/Finished/UpstreamHasSynced surface of a
// SingleFileTracker.
type tracker interface {
	Start()
	Finished()
	UpstreamHasSynced()
	HasSynced() bool
}

func BenchmarkSingleFileTrackerStartFinished(b *testing.B) {
	impls := map[string]func() tracker{
		"client-go": func() tracker { return cgsynctrack.NewSingleFileTracker("bench") },
		"kcache":    func() tracker { return ksynctrack.NewSingleFileTracker("bench") },
	}
	for _, name := range []string{"client-go", "kcache"} {
		b.Run(name, func(b *testing.B) {
			tr := impls[name]()
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					tr.Start()
					tr.Finished()
					_ = tr.HasSynced()
				}
			})
		})
	}
}

// asyncTracker is AsyncTracker[int] of either implementation.
type asyncTracker interface {
	Start(key int)
	Finished(key int)
	UpstreamHasSynced()
	HasSynced() bool
}

func BenchmarkAsyncTrackerInitialList(b *testing.B) {
	impls := map[string]func() asyncTracker{
		"client-go": func() asyncTracker { return cgsynctrack.NewAsyncTracker[int]("bench") },
		"kcache":    func() asyncTracker { return ksynctrack.NewAsyncTracker[int]("bench") },
	}
	const items = 1000
	for _, name := range []string{"client-go", "kcache"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				tr := impls[name]()
				for k := 0; k < items; k++ {
					tr.Start(k)
				}
				tr.UpstreamHasSynced()
				for k := 0; k < items; k++ {
					tr.Finished(k)
				}
				if !tr.HasSynced() {
					b.Fatal("not synced")
				}
			}
		})
	}
}

// source is the part of FakeControllerSource the benchmark uses.
type source interface {
	Add(obj runtime.Object)
	List(options metav1.ListOptions) (runtime.Object, error)
	Shutdown()
}

func BenchmarkFakeControllerSourceAddAndList(b *testing.B) {
	impls := map[string]func() source{
		"client-go": func() source { return cgframework.NewFakeControllerSource() },
		"kcache":    func() source { return kframework.NewFakeControllerSource() },
	}
	for _, name := range []string{"client-go", "kcache"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				s := impls[name]()
				for _, p := range benchPods(100, "") {
					s.Add(p)
				}
				if _, err := s.List(metav1.ListOptions{}); err != nil {
					b.Fatal(err)
				}
				s.Shutdown()
			}
		})
	}
}
