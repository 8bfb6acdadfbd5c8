package conformance

import (
	"context"

	cache "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	upstream "k8s.io/client-go/tools/cache"
)

// metricsID is what both libraries' InformerNameAndResource expose.
type metricsID interface {
	Name() string
	GroupVersionResource() schema.GroupVersionResource
	Reserved() bool
}

// metricsProvider is an informer metrics provider of either library: ID is
// the library's InformerNameAndResource, G its GaugeMetric and H its
// HistogramMetric. Every metric it creates is the one newMetric returns for
// the kind ("queued", "latency", "store-rv") and the informer's identity.
type metricsProvider[ID metricsID, G, H any] struct {
	newMetric func(kind string, id ID) any
}

func (p metricsProvider[ID, G, H]) NewQueuedItemMetric(id ID) G {
	return p.newMetric("queued", id).(G)
}
func (p metricsProvider[ID, G, H]) NewProcessingLatencyMetric(id ID) H {
	return p.newMetric("latency", id).(H)
}
func (p metricsProvider[ID, G, H]) NewStoreResourceVersionMetric(id ID) G {
	return p.newMetric("store-rv", id).(G)
}

// The metrics providers of kcache and of client-go.
type (
	kcacheMetrics   = metricsProvider[cache.InformerNameAndResource, cache.GaugeMetric, cache.HistogramMetric]
	upstreamMetrics = metricsProvider[upstream.InformerNameAndResource, upstream.GaugeMetric, upstream.HistogramMetric]
)

// loggingMetrics returns a newMetric that logs each creation to log as
// "new kind name/gvr reserved=…" and hands out a loggedMetric of the kind.
func loggingMetrics[ID metricsID](log *metricsCallLog) func(string, ID) any {
	return func(kind string, id ID) any {
		log.add("new %s %s", kind, idString(id.Name(), id.GroupVersionResource(), id.Reserved()))
		return loggedMetric{log, kind}
	}
}

// metricsLister is the source of a metrics scenario, a ListerWatcher of
// either library.
type metricsLister interface {
	List(metav1.ListOptions) (runtime.Object, error)
	Watch(metav1.ListOptions) (watch.Interface, error)
}

// metricsInformer builds, in one library, a pod informer over lw
// identified as name with resource queueMetricsGVR, using the library's
// provider (nil: the process-wide one) and, when handler is set, a no-op
// event handler; it returns the informer's run and the name's release.
type metricsInformer func(lw metricsLister, name string, provider any, handler bool) (run func(context.Context), release func(), err error)

func upstreamMetricsInformer(lw metricsLister, name string, provider any, handler bool) (func(context.Context), func(), error) {
	n, err := upstream.NewInformerName(name)
	if err != nil {
		return nil, nil, err
	}
	p, _ := provider.(upstream.InformerMetricsProvider)
	inf := upstream.NewSharedIndexInformerWithOptions(lw, &v1.Pod{}, upstream.SharedIndexInformerOptions{
		Identifier: n.WithResource(queueMetricsGVR), InformerMetricsProvider: p})
	if handler {
		_, err = inf.AddEventHandler(upstream.ResourceEventHandlerFuncs{})
	}
	return inf.RunWithContext, n.Release, err
}

func kcacheMetricsInformer(lw metricsLister, name string, provider any, handler bool) (func(context.Context), func(), error) {
	n, err := cache.NewInformerName(name)
	if err != nil {
		return nil, nil, err
	}
	p, _ := provider.(cache.InformerMetricsProvider)
	inf := cache.NewSharedIndexInformerWithOptions(lw, &v1.Pod{}, cache.SharedIndexInformerOptions{
		Identifier: n.WithResource(queueMetricsGVR), InformerMetricsProvider: p})
	if handler {
		_, err = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{})
	}
	return inf.RunWithContext, n.Release, err
}
