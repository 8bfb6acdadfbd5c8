package clientgo

import (
	"context"
	"reflect"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	clientgocache "k8s.io/client-go/tools/cache"
)

// TestNewSharedInformerListsIntoAStoreWithoutIndexersAsClientGosDoes runs
// client-go's cache.NewSharedInformer and clientgo.NewSharedInformer on the
// same fake clientset: both sync the listed pods, report an empty
// non-nil Indexers map, and only clientgo's runs on kcache.
func TestNewSharedInformerListsIntoAStoreWithoutIndexersAsClientGosDoes(t *testing.T) {
	sides := []struct {
		name     string
		build    func(clientgocache.ListerWatcher) clientgocache.SharedInformer
		onKcache bool
	}{
		{"client-go", func(lw clientgocache.ListerWatcher) clientgocache.SharedInformer {
			return clientgocache.NewSharedInformer(lw, &corev1.Pod{}, 0)
		}, false},
		{"kcache", func(lw clientgocache.ListerWatcher) clientgocache.SharedInformer {
			return NewSharedInformer(lw, &corev1.Pod{}, 0)
		}, true},
	}
	type seen struct {
		Keys       []string
		IndexersOK bool
	}
	var got []seen
	for _, side := range sides {
		client := fake.NewClientset(
			&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}},
			&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "b"}},
		)
		pods := client.CoreV1().Pods("")
		inf := side.build(clientgocache.ToListWatcherWithWatchListSemantics(&clientgocache.ListWatch{
			ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
				return pods.List(ctx, opts)
			},
			WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
				return pods.Watch(ctx, opts)
			},
		}, client))
		if _, onKcache := KcacheInformer(inf); onKcache != side.onKcache {
			t.Errorf("%s: KcacheInformer = %v, want %v", side.name, onKcache, side.onKcache)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); inf.RunWithContext(ctx) }()
		if !clientgocache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
			t.Fatalf("%s: did not sync", side.name)
		}
		idx := inf.(clientgocache.SharedIndexInformer).GetIndexer().GetIndexers()
		keys := inf.GetStore().ListKeys()
		sort.Strings(keys)
		got = append(got, seen{Keys: keys, IndexersOK: idx != nil && len(idx) == 0})
		cancel()
		<-done
	}
	if !reflect.DeepEqual(got[0], got[1]) {
		t.Errorf("client-go %+v, kcache %+v", got[0], got[1])
	}
}
