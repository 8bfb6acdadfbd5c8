package conformance

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	kcache "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/features"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	clocktesting "k8s.io/utils/clock/testing"
)

// reflectorBookmarkWarnings runs a WatchList whose stream never delivers
// the initial-events-end bookmark, moves the fake clock on by 10s three
// times once the Reflector waits on it (its ticker), and returns the
// warning logged after each step.
func reflectorBookmarkWarnings(t *testing.T, start func(ctx context.Context, list cache.ListFunc, watch cache.WatchFunc, c *clocktesting.FakeClock)) []string {
	t.Helper()
	warnings := make(chan string, 16)
	logger := funcr.New(func(prefix, args string) {
		if strings.Contains(args, "bookmark") {
			warnings <- args
		}
	}, funcr.Options{Verbosity: 10})
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	defer cancel()
	fc := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	fw := watch.NewFake()
	opened := make(chan struct{}, 1)
	list := func(metav1.ListOptions) (kruntime.Object, error) { return &v1.PodList{}, nil }
	watchFunc := func(metav1.ListOptions) (watch.Interface, error) {
		opened <- struct{}{}
		return fw, nil
	}
	start(ctx, list, watchFunc, fc)
	<-opened
	// The only timer of a WatchList waiting for its stream is the ticker.
	for !fc.HasWaiters() {
		runtime.Gosched()
	}
	var got []string
	for i := 0; i < 3; i++ {
		fc.Step(10 * time.Second)
		got = append(got, <-warnings)
	}
	return got
}

func TestWatchListWarnsEveryTenSecondsOfTheInjectedClockWhileTheEndBookmarkIsMissing(t *testing.T) {
	informerSetGates(t, map[features.Feature]bool{features.WatchListClient: true})
	want := reflectorBookmarkWarnings(t, func(ctx context.Context, list cache.ListFunc, watch cache.WatchFunc, c *clocktesting.FakeClock) {
		lw := &cache.ListWatch{ListFunc: list, WatchFunc: watch}
		r := cache.NewReflectorWithOptions(lw, &v1.Pod{}, cache.NewStore(cache.MetaNamespaceKeyFunc), cache.ReflectorOptions{Name: "warn", Clock: c})
		go r.RunWithContext(ctx)
	})
	got := reflectorBookmarkWarnings(t, func(ctx context.Context, list cache.ListFunc, watch cache.WatchFunc, c *clocktesting.FakeClock) {
		klw := &kcache.ListWatch{ListFunc: kcache.ListFunc(list), WatchFunc: kcache.WatchFunc(watch)}
		r := kcache.NewReflectorWithOptions(klw, &v1.Pod{}, kcache.NewStore(kcache.MetaNamespaceKeyFunc), kcache.ReflectorOptions{Name: "warn", Clock: c})
		go r.RunWithContext(ctx)
	})
	if strings.Join(want, "\n") != strings.Join(got, "\n") {
		t.Errorf("warnings differ:\nclient-go:\n%s\nkcache:\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
	}
	t.Logf("client-go:\n%s", strings.Join(want, "\n"))
}
