package compat137

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kcache-go/cache/clientgo"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/informers/internalinterfaces"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	cg "k8s.io/client-go/tools/cache"
)

var podsResource = v1.SchemeGroupVersion.WithResource("pods")

// newGapClient is a fake clientset with pods a/web, a/db and b/web whose
// watches report nothing: each watch request hands its FakeWatcher to
// watchers, so the test ends a watch when it chooses and the deletes it
// makes in the tracker are seen only on the relist.
func newGapClient() (*fake.Clientset, chan *watch.FakeWatcher) {
	var objs []runtime.Object
	for _, key := range [][2]string{{"a", "web"}, {"a", "db"}, {"b", "web"}} {
		objs = append(objs, &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: key[0], Name: key[1], Labels: map[string]string{"app": key[1]}}})
	}
	client := fake.NewClientset(objs...)
	watchers := make(chan *watch.FakeWatcher, 4)
	client.PrependWatchReactor("*", func(clienttesting.Action) (bool, watch.Interface, error) {
		w := watch.NewFakeWithChanSize(1, false)
		watchers <- w
		return true, w, nil
	})
	return client, watchers
}

// playTypedSingleInformer builds an informer with build (taken over by
// clientgo.OnKcache when onKcache), adds a typed handler through client-go's
// TypedSharedIndexInformer interface, syncs, deletes a/web during a watch
// gap and renders what the informer and the handler show.
func playTypedSingleInformer(t *testing.T, build func(kubernetes.Interface) cg.SharedIndexInformer, onKcache bool) []string {
	t.Helper()
	client, watchers := newGapClient()
	inf := build(client)
	if onKcache {
		inf = clientgo.OnKcache(inf)
	}
	if _, isKcache := clientgo.KcacheInformer(inf); isKcache != onKcache {
		t.Fatalf("informer %T: kcache = %v, want %v", inf, isKcache, onKcache)
	}
	typed, isTyped := inf.(cg.TypedSharedIndexInformer[*v1.Pod])
	var indexers []string
	for name := range inf.GetIndexer().GetIndexers() {
		indexers = append(indexers, name)
	}
	slices.Sort(indexers)
	trace := []string{fmt.Sprintf("informer %T, typed %v, indexers %v", inf, isTyped, indexers)}
	if !isTyped {
		return trace
	}
	var mu sync.Mutex
	var events []string
	deleted := make(chan struct{}, 4)
	reg, err := typed.AddTypedEventHandler(cg.TypedResourceEventHandlerFuncs[*v1.Pod]{
		AddFunc: func(p *v1.Pod) { mu.Lock(); events = append(events, "add "+describe(p)); mu.Unlock() },
		DeleteFunc: func(d cg.DeletedObject[*v1.Pod]) {
			mu.Lock()
			events = append(events, "delete "+describeDeletedCG(d))
			mu.Unlock()
			deleted <- struct{}{}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); typed.RunWithContext(ctx) }()
	defer func() { cancel(); <-done }()
	if !cg.WaitForCacheSync(ctx.Done(), reg.HasSynced) {
		t.Fatal("no sync")
	}
	_ = client.Tracker().Delete(podsResource, "a", "web")
	(<-watchers).Error(&metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired})
	<-deleted
	<-watchers // the relist happened before the second watch
	keys := typed.GetTypedIndexer().ListKeys()
	slices.Sort(keys)
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(events)
	return append(append(trace, fmt.Sprintf("typed indexer %v", keys)), events...)
}

func TestOnKcacheOfAV037TypedConstructorKeepsItsTypedInformerAndDeliversWhatClientGosDelivers(t *testing.T) {
	cases := []struct {
		name  string
		build func(kubernetes.Interface) cg.SharedIndexInformer
	}{
		{"coreinformers.NewPodInformer", func(c kubernetes.Interface) cg.SharedIndexInformer {
			return coreinformers.NewPodInformer(c, metav1.NamespaceAll, 0, cg.Indexers{})
		}},
		{"coreinformers.NewFilteredPodInformer", func(c kubernetes.Interface) cg.SharedIndexInformer {
			return coreinformers.NewFilteredPodInformer(c, "a", time.Minute, cg.Indexers{cg.NamespaceIndex: cg.MetaNamespaceIndexFunc}, nil)
		}},
		{"coreinformers.NewPodInformerWithOptions", func(c kubernetes.Interface) cg.SharedIndexInformer {
			return coreinformers.NewPodInformerWithOptions(c, metav1.NamespaceAll, internalinterfaces.InformerOptions{ResyncPeriod: time.Hour})
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // NB: each side waits out its reflector's backoff before the relist
			compareTraces(t, playTypedSingleInformer(t, tc.build, false), playTypedSingleInformer(t, tc.build, true))
		})
	}
}
