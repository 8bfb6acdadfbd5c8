package fastlw_test

import (
	"fmt"
	"reflect"
	"sort"
	"sync"
	"testing"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/rest"

	cache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/fastlw"
)

// informerRun is what one informer saw: its handler's events, in order,
// and its store's pods, sorted by key.
type informerRun struct {
	events []string
	store  []*corev1.Pod
}

// runInformer runs a kcache SharedIndexInformer on lw, with transform tf
// (nil for none), until its handler got want events, then stops it and
// waits for it to return.
func runInformer(t *testing.T, lw cache.ListerWatcher, tf cache.TransformFunc, want int) informerRun {
	inf := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, cache.Indexers{})
	if err := inf.SetTransform(tf); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var run informerRun
	got := make(chan struct{})
	record := func(event string) {
		mu.Lock()
		defer mu.Unlock()
		if run.events = append(run.events, event); len(run.events) == want {
			close(got)
		}
	}
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
		AddFunc:    func(obj any, initial bool) { record(fmt.Sprintf("add %s initial=%v", podKey(obj), initial)) },
		UpdateFunc: func(old, obj any) { record("update " + podKey(old) + " -> " + podKey(obj)) },
		DeleteFunc: func(obj any) { record("delete " + podKey(obj)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() { defer close(done); inf.Run(stop) }()
	<-got
	for _, obj := range inf.GetStore().List() {
		run.store = append(run.store, obj.(*corev1.Pod))
	}
	sort.Slice(run.store, func(i, j int) bool { return run.store[i].Name < run.store[j].Name })
	close(stop)
	<-done
	mu.Lock()
	defer mu.Unlock()
	return run
}

// podKey names a pod and its resource version.
func podKey(obj any) string {
	pod := obj.(*corev1.Pod)
	return pod.Name + "@" + pod.ResourceVersion
}

// TestAnInformerOnFastlwSyncsAndNotifiesAsOnThePlainPath runs a kcache
// SharedIndexInformer on cache.NewListWatchFromClient and one on fastlw
// against the same fake apiserver (600 pods: two pages of the Reflector's
// 500; then a watch with every kind of change), with WatchList off and on,
// JSON and protobuf: the same store content and the same handler events in
// the same order.
func TestAnInformerOnFastlwSyncsAndNotifiesAsOnThePlainPath(t *testing.T) {
	const pods = 600
	want := pods + 4 // the adds, then add, update, delete, update (the bookmark is silent)
	onEveryListPathAndFormat(t, pods, func(t *testing.T, env *testEnv, client rest.Interface, watchList bool) {
		plain := runInformer(t, cache.NewListWatchFromClient(client, "pods", "ns", fields.Everything()), nil, want)
		fast := runInformer(t, fastlw.NewFromClient(client, "pods", "ns", fields.Everything(), nil), nil, want)
		requireSameRun(t, "fastlw", plain, fast, pods)
		requireListPaths(t, env.server, watchList)
	})
}

// onEveryListPathAndFormat runs test against a fake apiserver of pods
// pods (then every kind of change), with WatchList off and on, JSON and
// protobuf, each in a subtest that checks no goroutine is left.
func onEveryListPathAndFormat(t *testing.T, pods int, test func(t *testing.T, env *testEnv, client rest.Interface, watchList bool)) {
	for _, watchList := range []bool{false, true} {
		for _, format := range []string{"json", "protobuf"} {
			t.Run(fmt.Sprintf("watchList=%v/%s", watchList, format), func(t *testing.T) {
				clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, watchList)
				defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
				env := startEnv(scenario{pods: newPods(pods), watchSteps: changes(), watchEnd: endHang})
				defer env.close()
				test(t, env, env.client(t, format), watchList)
			})
		}
	}
}

// requireSameRun fails unless run (of the informer called name) saw the
// plain run's handler events in the same order and stored the same pods,
// pods of them.
func requireSameRun(t *testing.T, name string, plain, run informerRun, pods int) {
	t.Helper()
	if !reflect.DeepEqual(plain.events, run.events) {
		t.Fatalf("%s: handler events differ: %s", name, firstDifference(plain.events, run.events))
	}
	if !reflect.DeepEqual(plain.store, run.store) || len(run.store) != pods {
		t.Fatalf("%s: stores differ: plain %d pods, %d", name, len(plain.store), len(run.store))
	}
}

// firstDifference renders where two event sequences part.
func firstDifference(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("event %d: %q vs %q", i, a[i], b[i])
		}
	}
	return fmt.Sprintf("lengths %d vs %d", len(a), len(b))
}

// requireListPaths checks that the informers took the list path asked for:
// paged lists (two pages each) without WatchList, watches sending initial
// events with it.
func requireListPaths(t *testing.T, f *fakeAPIServer, watchList bool) {
	t.Helper()
	pages, initial := 0, 0
	for _, q := range f.requestLog() {
		if q.Get("watch") != "true" {
			pages++
		}
		if q.Get("sendInitialEvents") == "true" {
			initial++
		}
	}
	if watchList && (pages != 0 || initial != 2) || !watchList && (pages != 4 || initial != 0) {
		t.Fatalf("the server saw %d list requests and %d WatchLists (WatchList %v)", pages, initial, watchList)
	}
}
