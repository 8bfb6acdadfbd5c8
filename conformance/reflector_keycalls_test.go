package conformance

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	kcache "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/features"
	"k8s.io/client-go/tools/cache"
)

// reflectorKeyCallPages answers a list of names in pages of pageSize (one
// page when pageSize is 0).
func reflectorKeyCallPages(names []string, pageSize int) func(metav1.ListOptions) (kruntime.Object, error) {
	return func(options metav1.ListOptions) (kruntime.Object, error) {
		start := 0
		if options.Continue != "" {
			fmt.Sscan(options.Continue, &start)
		}
		end := len(names)
		if pageSize > 0 && start+pageSize < end {
			end = start + pageSize
		}
		list := &v1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "10"}}
		if end < len(names) {
			list.Continue = fmt.Sprint(end)
		}
		for _, n := range names[start:end] {
			list.Items = append(list.Items, v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: n, ResourceVersion: "5"}})
		}
		return list, nil
	}
}

// reflectorKeyCallRound runs one ListAndWatch round whose watch call stops
// it, and returns how often the queue's key function and transform ran.
func reflectorKeyCallRound(t *testing.T, pageSize int, build func(key func(interface{}) (string, error), transform func(interface{}) (interface{}, error)) func(ctx context.Context, list func(metav1.ListOptions) (kruntime.Object, error), watchFunc func(metav1.ListOptions) (watch.Interface, error)) error) (keys, transforms int32) {
	t.Helper()
	var keyCalls, transformCalls atomic.Int32
	key := func(obj interface{}) (string, error) {
		keyCalls.Add(1)
		return cache.MetaNamespaceKeyFunc(obj)
	}
	transform := func(obj interface{}) (interface{}, error) {
		transformCalls.Add(1)
		return obj, nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watchFunc := func(metav1.ListOptions) (watch.Interface, error) {
		cancel()
		return nil, errors.New("stop")
	}
	run := build(key, transform)
	_ = run(ctx, reflectorKeyCallPages([]string{"a", "b", "c", "d", "e"}, pageSize), watchFunc)
	return keyCalls.Load(), transformCalls.Load()
}

func TestReflectorListCallsTheQueueKeyFunctionAsOftenAsClientGo(t *testing.T) {
	informerSetGates(t, map[features.Feature]bool{features.WatchListClient: false})
	type builder = func(key func(interface{}) (string, error), transform func(interface{}) (interface{}, error)) func(ctx context.Context, list func(metav1.ListOptions) (kruntime.Object, error), watchFunc func(metav1.ListOptions) (watch.Interface, error)) error
	clientGo := func(queue func(key cache.KeyFunc, transform cache.TransformFunc) cache.ReflectorStore, pageSize int64) builder {
		return func(key func(interface{}) (string, error), transform func(interface{}) (interface{}, error)) func(ctx context.Context, list func(metav1.ListOptions) (kruntime.Object, error), watchFunc func(metav1.ListOptions) (watch.Interface, error)) error {
			return func(ctx context.Context, list func(metav1.ListOptions) (kruntime.Object, error), watchFunc func(metav1.ListOptions) (watch.Interface, error)) error {
				r := cache.NewReflector(&cache.ListWatch{ListFunc: list, WatchFunc: watchFunc}, &v1.Pod{}, queue(key, transform), 0)
				r.WatchListPageSize = pageSize
				return r.ListAndWatchWithContext(ctx)
			}
		}
	}
	kcacheB := func(queue func(key kcache.KeyFunc, transform kcache.TransformFunc) kcache.ReflectorStore, pageSize int64) builder {
		return func(key func(interface{}) (string, error), transform func(interface{}) (interface{}, error)) func(ctx context.Context, list func(metav1.ListOptions) (kruntime.Object, error), watchFunc func(metav1.ListOptions) (watch.Interface, error)) error {
			return func(ctx context.Context, list func(metav1.ListOptions) (kruntime.Object, error), watchFunc func(metav1.ListOptions) (watch.Interface, error)) error {
				r := kcache.NewReflector(&kcache.ListWatch{ListFunc: list, WatchFunc: watchFunc}, &v1.Pod{}, queue(key, transform), 0)
				r.WatchListPageSize = pageSize
				return r.ListAndWatchWithContext(ctx)
			}
		}
	}
	queues := map[string]struct {
		clientGo func(key cache.KeyFunc, transform cache.TransformFunc) cache.ReflectorStore
		kcache   func(key kcache.KeyFunc, transform kcache.TransformFunc) kcache.ReflectorStore
	}{
		"DeltaFIFO": {
			func(k cache.KeyFunc, tr cache.TransformFunc) cache.ReflectorStore {
				return cache.NewDeltaFIFOWithOptions(cache.DeltaFIFOOptions{KeyFunction: k, Transformer: tr})
			},
			func(k kcache.KeyFunc, tr kcache.TransformFunc) kcache.ReflectorStore {
				return kcache.NewDeltaFIFOWithOptions(kcache.DeltaFIFOOptions{KeyFunction: k, Transformer: tr})
			},
		},
		"RealFIFO": {
			func(k cache.KeyFunc, tr cache.TransformFunc) cache.ReflectorStore {
				return cache.NewRealFIFOWithOptions(cache.RealFIFOOptions{KeyFunction: k, KnownObjects: cache.NewStore(cache.MetaNamespaceKeyFunc), Transformer: tr})
			},
			func(k kcache.KeyFunc, tr kcache.TransformFunc) kcache.ReflectorStore {
				return kcache.NewRealFIFOWithOptions(kcache.RealFIFOOptions{KeyFunction: k, KnownObjects: kcache.NewStore(kcache.MetaNamespaceKeyFunc), Transformer: tr})
			},
		},
		"atomic RealFIFO": {
			func(k cache.KeyFunc, tr cache.TransformFunc) cache.ReflectorStore {
				return cache.NewRealFIFOWithOptions(cache.RealFIFOOptions{KeyFunction: k, AtomicEvents: true, Transformer: tr})
			},
			func(k kcache.KeyFunc, tr kcache.TransformFunc) kcache.ReflectorStore {
				return kcache.NewRealFIFOWithOptions(kcache.RealFIFOOptions{KeyFunction: k, AtomicEvents: true, Transformer: tr})
			},
		},
	}
	for name, q := range queues {
		for _, pageSize := range []int{0, 1, 2, 5} {
			t.Run(fmt.Sprintf("%s, pages of %d", name, pageSize), func(t *testing.T) {
				wantKeys, wantTransforms := reflectorKeyCallRound(t, pageSize, clientGo(q.clientGo, int64(pageSize)))
				gotKeys, gotTransforms := reflectorKeyCallRound(t, pageSize, kcacheB(q.kcache, int64(pageSize)))
				if wantKeys != gotKeys {
					t.Errorf("key function ran %d times, client-go ran it %d times", gotKeys, wantKeys)
				}
				if wantTransforms != gotTransforms {
					t.Errorf("transform ran %d times, client-go ran it %d times", gotTransforms, wantTransforms)
				}
			})
		}
	}
}
