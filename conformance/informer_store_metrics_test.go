package conformance

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	cache "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	upstream "k8s.io/client-go/tools/cache"
)

// storeRVRecorder records the values set on the store-resource-version
// gauge; the queue metrics are discarded. mu guards values and created.
type storeRVRecorder struct {
	mu      sync.Mutex
	values  []float64
	created int
}

func (r *storeRVRecorder) Set(v float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := len(r.values); n == 0 || r.values[n-1] != v {
		r.values = append(r.values, v) // repeats of one value are not compared
	}
}
func (r *storeRVRecorder) Observe(float64) {}

// last returns the last value set, or -1.
func (r *storeRVRecorder) last() float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.values) == 0 {
		return -1
	}
	return r.values[len(r.values)-1]
}

// storeRVSource lists one pod at RV 7 and serves one fake watch.
type storeRVSource struct{ w *watch.FakeWatcher }

func (s storeRVSource) List(metav1.ListOptions) (runtime.Object, error) {
	return &v1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "7"},
		Items: []v1.Pod{{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: "7"}}}}, nil
}
func (s storeRVSource) Watch(metav1.ListOptions) (watch.Interface, error) { return s.w, nil }
func (s storeRVSource) IsWatchListSemanticsUnSupported() bool             { return true }

// storeRVPod is the pod a at rv.
func storeRVPod(rv int) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: strconv.Itoa(rv)}}
}

// playStoreRV runs an informer built by start over a list at 7 and watch
// events at 9 and 12, and returns the store-resource-version values and how
// many store gauges the informer created.
func playStoreRV(t *testing.T, start func(lw storeRVSource, rec *storeRVRecorder, ctx context.Context)) ([]float64, int) {
	lw := storeRVSource{w: watch.NewFake()}
	rec := &storeRVRecorder{}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { start(lw, rec, ctx) })
	defer func() { cancel(); wg.Wait() }()
	for _, rv := range []int{9, 12} {
		lw.w.Modify(storeRVPod(rv)) // blocks until the reflector watches
	}
	deadline := time.Now().Add(time.Minute)
	for rec.last() != 12 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return slices.Clone(rec.values), rec.created
}

// storeRVMetrics returns a newMetric that hands out rec as the store
// gauge, counting how many it created, and discards the queue metrics.
func storeRVMetrics[ID metricsID](rec *storeRVRecorder) func(string, ID) any {
	return func(kind string, _ ID) any {
		if kind != "store-rv" {
			return &storeRVRecorder{}
		}
		rec.mu.Lock()
		defer rec.mu.Unlock()
		rec.created++
		return rec
	}
}

func TestAnIdentifiedInformersStorePublishesItsResourceVersionAsClientGosDoes(t *testing.T) {
	play := func(lib metricsInformer, provider func(*storeRVRecorder) any) ([]float64, int) {
		return playStoreRV(t, func(lw storeRVSource, rec *storeRVRecorder, ctx context.Context) {
			run, release, err := lib(lw, "conformance-store-rv", provider(rec), false)
			if err != nil {
				t.Error(err)
				return
			}
			defer release()
			run(ctx)
		})
	}
	got, gotCreated := play(kcacheMetricsInformer, func(rec *storeRVRecorder) any {
		return kcacheMetrics{storeRVMetrics[cache.InformerNameAndResource](rec)}
	})
	want, wantCreated := play(upstreamMetricsInformer, func(rec *storeRVRecorder) any {
		return upstreamMetrics{storeRVMetrics[upstream.InformerNameAndResource](rec)}
	})
	if fmt.Sprint(got) != fmt.Sprint(want) || gotCreated != wantCreated {
		t.Errorf("kcache's store published resource versions %v from %d gauges, client-go's %v from %d", got, gotCreated, want, wantCreated)
	}
}
