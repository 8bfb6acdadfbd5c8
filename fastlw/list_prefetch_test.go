package fastlw_test

import (
	"context"
	"sync"
	"testing"

	"go.uber.org/goleak"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"

	cache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/fastlw"
)

// TestTheNextPageIsRequestedWhileThisPagesItemsDecode blocks the decoding
// of the first page's items until the server has received the request for
// the second page: only a prefetch can unblock it. The pages are still the
// plain path's.
func TestTheNextPageIsRequestedWhileThisPagesItemsDecode(t *testing.T) {
	for _, format := range []string{"json", "protobuf"} {
		t.Run(format, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			secondPageAsked := make(chan struct{})
			var once sync.Once
			env := startEnv(scenario{pods: newPods(7), onContinue: func(string) { once.Do(func() { close(secondPageAsked) }) }})
			defer env.close()
			client := env.client(t, format)
			serializer := newObservedSerializer(func(obj runtime.Object) {
				if meta.LenList(obj) > 0 {
					<-secondPageAsked
				}
			})
			fast := fastlw.New(fastlw.Config{Client: client, Resource: "pods", Namespace: "ns", Serializer: serializer, Workers: 2})
			got := listAll(t.Context(), fast, metav1.ListOptions{Limit: 3})
			want := listAll(t.Context(), cache.NewListWatchFromClient(client, "pods", "ns", fields.Everything()), metav1.ListOptions{Limit: 3})
			requireSameOutcomes(t, want, got)
			if n := continueRequests(env.server); n != 4 {
				t.Fatalf("the server got %d continue requests, want 4 (two per path: each page once)", n)
			}
		})
	}
}

// TestAPrefetchedPageIsDroppedWhenTheNextCallAsksForAnother lists a first
// page (which prefetches the second), then lists the first page again and
// then watches: the prefetched pages are dropped, each answer is right, and
// no goroutine is left.
func TestAPrefetchedPageIsDroppedWhenTheNextCallAsksForAnother(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	env := startEnv(scenario{pods: newPods(7), watchEnd: endClose})
	defer env.close()
	client := env.client(t, "json")
	plain := cache.NewListWatchFromClient(client, "pods", "ns", fields.Everything())
	fast := fastlw.NewFromClient(client, "pods", "ns", fields.Everything(), nil)
	first := metav1.ListOptions{Limit: 3}
	for range 2 {
		requireSameOutcomes(t, listOnce(t.Context(), plain, first), listOnce(t.Context(), fast, first))
	}
	w, err := fast.WatchWithContext(t.Context(), metav1.ListOptions{ResourceVersion: "100"})
	if err != nil {
		t.Fatal(err)
	}
	for range w.ResultChan() {
	}
	w.Stop()
}

// TestAPrefetchWhoseContextEndedIsNotUsed lists the first page under a
// context that then ends; the second page, asked for under a live context,
// is fetched again rather than answered with the cancellation (and the rest
// of the list is read, so no prefetch is left running).
func TestAPrefetchWhoseContextEndedIsNotUsed(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	env := startEnv(scenario{pods: newPods(7)})
	defer env.close()
	client := env.client(t, "protobuf")
	plain := cache.NewListWatchFromClient(client, "pods", "ns", fields.Everything())
	fast := fastlw.NewFromClient(client, "pods", "ns", fields.Everything(), nil)
	ctx, cancel := context.WithCancel(t.Context())
	page1 := listOnce(ctx, fast, metav1.ListOptions{Limit: 3})
	cancel()
	if page1[0].err != nil {
		t.Fatal(page1[0].err)
	}
	second := metav1.ListOptions{Limit: 3, Continue: "c3"}
	requireSameOutcomes(t, listAll(t.Context(), plain, second), listAll(t.Context(), fast, second))
}

// listOnce is one List call as an outcome.
func listOnce(ctx context.Context, lw cache.ListerWatcherWithContext, options metav1.ListOptions) []listOutcome {
	obj, err := lw.ListWithContext(ctx, options)
	return []listOutcome{{obj, err}}
}

// continueRequests counts the requests that carried a continue token.
func continueRequests(f *fakeAPIServer) int {
	n := 0
	for _, q := range f.requestLog() {
		if q.Get("continue") != "" {
			n++
		}
	}
	return n
}
