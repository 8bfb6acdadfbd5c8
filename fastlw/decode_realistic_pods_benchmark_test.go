package fastlw_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	cache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/internal/realisticpods"
)

// realisticJSONServer serves n realistic pods as JSON: a GET of the
// collection is one list page of all of them, a watch is a stream of one
// ADDED event per pod that then ends.
func realisticJSONServer(b *testing.B, n int) *httptest.Server {
	gen, err := realisticpods.New(n, realisticpods.Seed)
	if err != nil {
		b.Fatal(err)
	}
	page := gen.AppendList(nil, 0, n, gen.ListResourceVersion(), "")
	var stream bytes.Buffer
	for i := range n {
		stream.WriteString(`{"type":"ADDED","object":`)
		stream.Write(gen.AppendPod(nil, i, true))
		stream.WriteString("}\n")
	}
	events := stream.Bytes()
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("watch") == "true" {
			_, _ = w.Write(events)
			return
		}
		_, _ = w.Write(page)
	}))
}

// BenchmarkDecodingRealisticPodsAsJSON lists one page of n realistic pods,
// and reads a watch stream of n ADDED events to its end, on the plain path
// (cache.NewListWatchFromClient) and on fastlw. Besides ns/op it reports
// the process CPU per pod (user+system, all goroutines, the in-process
// server's writes included).
func BenchmarkDecodingRealisticPodsAsJSON(b *testing.B) {
	const n = 1000
	server := realisticJSONServer(b, n)
	defer server.Close()
	client, err := rest.RESTClientFor(&rest.Config{
		Host: server.URL, APIPath: "/api", QPS: -1,
		ContentConfig: rest.ContentConfig{GroupVersion: &corev1.SchemeGroupVersion, NegotiatedSerializer: scheme.Codecs.WithoutConversion(), ContentType: "application/json"},
	})
	if err != nil {
		b.Fatal(err)
	}
	for _, src := range plainAndFastlw(client) {
		b.Run("list/"+src.name, func(b *testing.B) {
			benchmarkPerPod(b, n, func(ctx context.Context) { listAllPods(b, ctx, src.lw, n) })
		})
		b.Run("watch/"+src.name, func(b *testing.B) { benchmarkPerPod(b, n, func(ctx context.Context) { watchToEnd(b, ctx, src.lw, n) }) })
	}
	client.Client.CloseIdleConnections()
}

// benchmarkPerPod runs op per iteration and reports CPU ns per pod.
func benchmarkPerPod(b *testing.B, n int, op func(ctx context.Context)) {
	b.ReportAllocs()
	start := processCPU(b)
	for b.Loop() {
		op(b.Context())
	}
	b.ReportMetric(float64(processCPU(b)-start)/float64(b.N*n), "cpu-ns/pod")
}

// processCPU returns the process's user and system CPU time so far.
func processCPU(b *testing.B) time.Duration {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		b.Fatal(err)
	}
	return time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
}

// listAllPods lists and checks that n pods came back.
func listAllPods(b *testing.B, ctx context.Context, lw cache.ListerWatcherWithContext, n int) {
	obj, err := lw.ListWithContext(ctx, metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	if got := len(obj.(*corev1.PodList).Items); got != n {
		b.Fatalf("listed %d pods, want %d", got, n)
	}
}

// watchToEnd reads a watch to its end and checks that n pods came.
func watchToEnd(b *testing.B, ctx context.Context, lw cache.ListerWatcherWithContext, n int) {
	w, err := lw.WatchWithContext(ctx, metav1.ListOptions{ResourceVersion: "1"})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Stop()
	got := 0
	for event := range w.ResultChan() {
		if _, ok := event.Object.(*corev1.Pod); !ok {
			b.Fatalf("event %s of %T", event.Type, event.Object)
		}
		got++
	}
	if got != n {
		b.Fatalf("watched %d pods, want %d", got, n)
	}
}
