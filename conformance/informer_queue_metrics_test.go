package conformance

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	cache "github.com/kcache-go/cache"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	upstream "k8s.io/client-go/tools/cache"
)

// metricsCallLog records, in order, every metric a provider creates and
// every value set or observed on them. mu guards calls.
type metricsCallLog struct {
	mu    sync.Mutex
	calls []string
}

func (l *metricsCallLog) add(format string, args ...interface{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, fmt.Sprintf(format, args...))
}

// loggedMetric logs each call as "kind value"; latencies are logged
// without their value (the bubble's clock makes both 0, but the count and
// the moments matter).
type loggedMetric struct {
	log  *metricsCallLog
	kind string
}

func (m loggedMetric) Set(v float64) { m.log.add("%s=%v", m.kind, v) }
func (m loggedMetric) Observe(float64) {
	m.log.add("%s observed", m.kind)
}

// idString renders an identifier of either library.
func idString(name string, gvr schema.GroupVersionResource, reserved bool) string {
	return fmt.Sprintf("%s/%s reserved=%v", name, gvr.String(), reserved)
}

// queueMetricsStep is one action of the scripted source.
type queueMetricsStep struct {
	op, pod, rv string
}

// queueMetricsScript lists three pods, then watches: updates, a delete, an
// add, a bookmark, a 410 Gone that forces a relist, and events after it.
var queueMetricsScript = []queueMetricsStep{
	{op: "start"},
	{op: "modify", pod: "a@11"},
	{op: "delete", pod: "b@12"},
	{op: "add", pod: "d@13"},
	{op: "bookmark", rv: "14"},
	{op: "modify", pod: "abc@15"},
	{op: "gone"},
	{op: "modify", pod: "a@21"},
	{op: "delete", pod: "c@22"},
	{op: "stop"},
}

// queueMetricsLists are the List responses: the initial one, then the
// relist after the 410.
var queueMetricsLists = []informerListResponse{
	{RV: "10", Pods: []string{"a@5", "b@6", "c@10"}},
	{RV: "20", Pods: []string{"a@16", "c@18", "d@13", "e@20"}},
}

// playQueueMetrics plays the script against the informer run starts, in a
// bubble, and returns the provider's call log with step boundaries.
func playQueueMetrics(t *testing.T, build func(lw *informerScriptedSource, log *metricsCallLog) (run func(context.Context), release func())) []string {
	var out []string
	synctest.Test(t, func(t *testing.T) {
		log := &metricsCallLog{}
		lw := &informerScriptedSource{lists: slices.Clone(queueMetricsLists), watchers: make(chan *watch.FakeWatcher, 16)}
		run, release := build(lw, log)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := make(chan struct{})
		var w *watch.FakeWatcher
		for i, st := range queueMetricsScript {
			switch st.op {
			case "start":
				go func() { run(ctx); close(done) }()
				w = <-lw.watchers
			case "stop":
				cancel()
				<-done
				release()
			default:
				w, _ = informerWatchOp(lw, w, st.op, st.pod, st.rv)
			}
			synctest.Wait()
			log.add("-- after step %d %s %s%s", i, st.op, st.pod, st.rv)
		}
		log.mu.Lock()
		out = slices.Clone(log.calls)
		log.mu.Unlock()
	})
	return out
}

// queueMetricsGVR is the resource of the script's informers.
var queueMetricsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

func TestAnIdentifiedInformersQueueAndStoreMetricsAreCalledAsClientGoCallsThem(t *testing.T) {
	for _, mode := range informerModes {
		t.Run(mode.Name, func(t *testing.T) {
			informerSetGates(t, mode.Gates)
			compareQueueMetricsCalls(t)
		})
	}
}

// compareQueueMetricsCalls plays the script against both libraries in the
// current gate setting and compares the providers' call logs.
func compareQueueMetricsCalls(t *testing.T) {
	play := func(lib metricsInformer, provider func(*metricsCallLog) any) []string {
		return playQueueMetrics(t, func(lw *informerScriptedSource, log *metricsCallLog) (func(context.Context), func()) {
			run, release, err := lib(lw, "conformance-queue-metrics", provider(log), true)
			if err != nil {
				t.Fatal(err)
			}
			return run, release
		})
	}
	want := play(upstreamMetricsInformer, func(log *metricsCallLog) any {
		return upstreamMetrics{loggingMetrics[upstream.InformerNameAndResource](log)}
	})
	got := play(kcacheMetricsInformer, func(log *metricsCallLog) any {
		return kcacheMetrics{loggingMetrics[cache.InformerNameAndResource](log)}
	})
	if !slices.Equal(got, want) {
		t.Errorf("the informer metrics were called differently.\nkcache:\n  %s\nclient-go:\n  %s",
			strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// globalMetricLogs routes the metrics the process-wide providers create to
// the log of their informer's name; other informers' metrics go to a log
// nobody reads. mu guards byName.
var globalMetricLogs = struct {
	mu     sync.Mutex
	byName map[string]*metricsCallLog
}{byName: map[string]*metricsCallLog{}}

// globalLogFor returns the log of name (a discarded one when none).
func globalLogFor(name string) *metricsCallLog {
	globalMetricLogs.mu.Lock()
	defer globalMetricLogs.mu.Unlock()
	if l := globalMetricLogs.byName[name]; l != nil {
		return l
	}
	return &metricsCallLog{}
}

// globalMetrics is a newMetric that logs to the log of the informer's name.
func globalMetrics[ID metricsID](kind string, id ID) any {
	return loggingMetrics[ID](globalLogFor(id.Name()))(kind, id)
}

// installGlobalProviders installs the routing providers in both libraries,
// as component-base's Register does in a Kubernetes component.
var installGlobalProviders = sync.OnceFunc(func() {
	cache.SetInformerMetricsProvider(kcacheMetrics{globalMetrics[cache.InformerNameAndResource]})
	upstream.SetInformerMetricsProvider(upstreamMetrics{globalMetrics[upstream.InformerNameAndResource]})
})

func TestAnIdentifiedInformerUsesTheProcessWideProviderAsClientGosDoes(t *testing.T) {
	installGlobalProviders()
	const informerName = "conformance-global-queue-metrics"
	route := func(log *metricsCallLog) {
		globalMetricLogs.mu.Lock()
		defer globalMetricLogs.mu.Unlock()
		globalMetricLogs.byName[informerName] = log
	}
	defer route(nil)
	play := func(lib metricsInformer) []string {
		return playQueueMetrics(t, func(lw *informerScriptedSource, log *metricsCallLog) (func(context.Context), func()) {
			route(log)
			run, release, err := lib(lw, informerName, nil, true)
			if err != nil {
				t.Fatal(err)
			}
			return run, release
		})
	}
	want, got := play(upstreamMetricsInformer), play(kcacheMetricsInformer)
	if !slices.Equal(got, want) {
		t.Errorf("the process-wide provider was called differently.\nkcache:\n  %s\nclient-go:\n  %s",
			strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
