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
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

type kcacheLoggingProvider struct{ log *metricsCallLog }

func (p kcacheLoggingProvider) NewQueuedItemMetric(id cache.InformerNameAndResource) cache.GaugeMetric {
	p.log.add("new queued %s", idString(id.Name(), id.GroupVersionResource(), id.Reserved()))
	return loggedMetric{p.log, "queued"}
}
func (p kcacheLoggingProvider) NewProcessingLatencyMetric(id cache.InformerNameAndResource) cache.HistogramMetric {
	p.log.add("new latency %s", idString(id.Name(), id.GroupVersionResource(), id.Reserved()))
	return loggedMetric{p.log, "latency"}
}
func (p kcacheLoggingProvider) NewStoreResourceVersionMetric(id cache.InformerNameAndResource) cache.GaugeMetric {
	p.log.add("new store-rv %s", idString(id.Name(), id.GroupVersionResource(), id.Reserved()))
	return loggedMetric{p.log, "store-rv"}
}

type upstreamLoggingProvider struct{ log *metricsCallLog }

func (p upstreamLoggingProvider) NewQueuedItemMetric(id upstream.InformerNameAndResource) upstream.GaugeMetric {
	p.log.add("new queued %s", idString(id.Name(), id.GroupVersionResource(), id.Reserved()))
	return loggedMetric{p.log, "queued"}
}
func (p upstreamLoggingProvider) NewProcessingLatencyMetric(id upstream.InformerNameAndResource) upstream.HistogramMetric {
	p.log.add("new latency %s", idString(id.Name(), id.GroupVersionResource(), id.Reserved()))
	return loggedMetric{p.log, "latency"}
}
func (p upstreamLoggingProvider) NewStoreResourceVersionMetric(id upstream.InformerNameAndResource) upstream.GaugeMetric {
	p.log.add("new store-rv %s", idString(id.Name(), id.GroupVersionResource(), id.Reserved()))
	return loggedMetric{p.log, "store-rv"}
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
			case "modify":
				w.Modify(informerParsePod(st.pod))
			case "add":
				w.Add(informerParsePod(st.pod))
			case "delete":
				w.Delete(informerParsePod(st.pod))
			case "bookmark":
				w.Action(watch.Bookmark, &v1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: st.rv}})
			case "gone":
				status := apierrors.NewResourceExpired("too old resource version").Status()
				w.Error(&status)
				w = <-lw.watchers
			case "stop":
				cancel()
				<-done
				release()
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
	noop := upstream.ResourceEventHandlerFuncs{}
	want := playQueueMetrics(t, func(lw *informerScriptedSource, log *metricsCallLog) (func(context.Context), func()) {
		name, err := upstream.NewInformerName("conformance-queue-metrics")
		if err != nil {
			t.Fatal(err)
		}
		inf := upstream.NewSharedIndexInformerWithOptions(lw, &v1.Pod{}, upstream.SharedIndexInformerOptions{
			Identifier: name.WithResource(queueMetricsGVR), InformerMetricsProvider: upstreamLoggingProvider{log}})
		if _, err := inf.AddEventHandler(noop); err != nil {
			t.Fatal(err)
		}
		return inf.RunWithContext, name.Release
	})
	got := playQueueMetrics(t, func(lw *informerScriptedSource, log *metricsCallLog) (func(context.Context), func()) {
		name, err := cache.NewInformerName("conformance-queue-metrics")
		if err != nil {
			t.Fatal(err)
		}
		inf := cache.NewSharedIndexInformerWithOptions(lw, &v1.Pod{}, cache.SharedIndexInformerOptions{
			Identifier: name.WithResource(queueMetricsGVR), InformerMetricsProvider: kcacheLoggingProvider{log}})
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{}); err != nil {
			t.Fatal(err)
		}
		return inf.RunWithContext, name.Release
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

type kcacheGlobalProvider struct{}

func (kcacheGlobalProvider) NewQueuedItemMetric(id cache.InformerNameAndResource) cache.GaugeMetric {
	return kcacheLoggingProvider{globalLogFor(id.Name())}.NewQueuedItemMetric(id)
}
func (kcacheGlobalProvider) NewProcessingLatencyMetric(id cache.InformerNameAndResource) cache.HistogramMetric {
	return kcacheLoggingProvider{globalLogFor(id.Name())}.NewProcessingLatencyMetric(id)
}
func (kcacheGlobalProvider) NewStoreResourceVersionMetric(id cache.InformerNameAndResource) cache.GaugeMetric {
	return kcacheLoggingProvider{globalLogFor(id.Name())}.NewStoreResourceVersionMetric(id)
}

type upstreamGlobalProvider struct{}

func (upstreamGlobalProvider) NewQueuedItemMetric(id upstream.InformerNameAndResource) upstream.GaugeMetric {
	return upstreamLoggingProvider{globalLogFor(id.Name())}.NewQueuedItemMetric(id)
}
func (upstreamGlobalProvider) NewProcessingLatencyMetric(id upstream.InformerNameAndResource) upstream.HistogramMetric {
	return upstreamLoggingProvider{globalLogFor(id.Name())}.NewProcessingLatencyMetric(id)
}
func (upstreamGlobalProvider) NewStoreResourceVersionMetric(id upstream.InformerNameAndResource) upstream.GaugeMetric {
	return upstreamLoggingProvider{globalLogFor(id.Name())}.NewStoreResourceVersionMetric(id)
}

// installGlobalProviders installs the routing providers in both libraries,
// as component-base's Register does in a Kubernetes component.
var installGlobalProviders = sync.OnceFunc(func() {
	cache.SetInformerMetricsProvider(kcacheGlobalProvider{})
	upstream.SetInformerMetricsProvider(upstreamGlobalProvider{})
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
	want := playQueueMetrics(t, func(lw *informerScriptedSource, log *metricsCallLog) (func(context.Context), func()) {
		route(log)
		name, err := upstream.NewInformerName(informerName)
		if err != nil {
			t.Fatal(err)
		}
		inf := upstream.NewSharedIndexInformerWithOptions(lw, &v1.Pod{}, upstream.SharedIndexInformerOptions{Identifier: name.WithResource(queueMetricsGVR)})
		if _, err := inf.AddEventHandler(upstream.ResourceEventHandlerFuncs{}); err != nil {
			t.Fatal(err)
		}
		return inf.RunWithContext, name.Release
	})
	got := playQueueMetrics(t, func(lw *informerScriptedSource, log *metricsCallLog) (func(context.Context), func()) {
		route(log)
		name, err := cache.NewInformerName(informerName)
		if err != nil {
			t.Fatal(err)
		}
		inf := cache.NewSharedIndexInformerWithOptions(lw, &v1.Pod{}, cache.SharedIndexInformerOptions{Identifier: name.WithResource(queueMetricsGVR)})
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{}); err != nil {
			t.Fatal(err)
		}
		return inf.RunWithContext, name.Release
	})
	if !slices.Equal(got, want) {
		t.Errorf("the process-wide provider was called differently.\nkcache:\n  %s\nclient-go:\n  %s",
			strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
