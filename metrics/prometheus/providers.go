package prometheus

import (
	"math"
	"sync/atomic"

	cache "github.com/kcache-go/cache"
	"github.com/prometheus/client_golang/prometheus"
)

// informerProvider is kcache's informer metrics provider: queue, store and
// per-handler metrics, labelled by the informer's Identifier.
type informerProvider struct{ c *collectors }

var (
	_ cache.InformerMetricsProvider       = informerProvider{}
	_ cache.KcacheInformerMetricsProvider = informerProvider{}
)

// informerLabelValues returns the values of informerLabels for id.
func informerLabelValues(id cache.InformerNameAndResource) []string {
	gvr := id.GroupVersionResource()
	return []string{id.Name(), gvr.Group, gvr.Version, gvr.Resource}
}

// handlerLabelValues returns the values of handlerLabels.
func handlerLabelValues(id cache.InformerNameAndResource, handlerName string) []string {
	return append(informerLabelValues(id), handlerName)
}

func (p informerProvider) NewQueuedItemMetric(id cache.InformerNameAndResource) cache.GaugeMetric {
	if !id.Reserved() {
		return discard{}
	}
	return reservedGauge{id, p.c.queuedItems.WithLabelValues(informerLabelValues(id)...)}
}

func (p informerProvider) NewProcessingLatencyMetric(id cache.InformerNameAndResource) cache.HistogramMetric {
	if !id.Reserved() {
		return discard{}
	}
	return reservedObserver{id, p.c.processingLatency.WithLabelValues(informerLabelValues(id)...)}
}

func (p informerProvider) NewStoreResourceVersionMetric(id cache.InformerNameAndResource) cache.GaugeMetric {
	if !id.Reserved() {
		return discard{}
	}
	return reservedGauge{id, p.c.storeResourceVersion.WithLabelValues(informerLabelValues(id)...)}
}

// KcacheNewPendingNotificationsMetric returns a handler's share of the backlog
// series of its name: handlers of one informer that share a name (two
// FilteringResourceEventHandlers, say) publish the sum of their backlogs,
// as their counters and histograms add up.
func (p informerProvider) KcacheNewPendingNotificationsMetric(id cache.InformerNameAndResource, handlerName string) cache.GaugeMetric {
	if !id.Reserved() {
		return discard{}
	}
	return &shareOfGauge{id: id, g: p.c.handlerPending.WithLabelValues(handlerLabelValues(id, handlerName)...)}
}

func (p informerProvider) KcacheNewHandlerDeliveryLatencyMetric(id cache.InformerNameAndResource, handlerName string) cache.HistogramMetric {
	if !id.Reserved() {
		return discard{}
	}
	return reservedObserver{id, p.c.handlerLatency.WithLabelValues(handlerLabelValues(id, handlerName)...)}
}

func (p informerProvider) KcacheNewHandlerDeliveredMetric(id cache.InformerNameAndResource, handlerName string) cache.CounterMetric {
	if !id.Reserved() {
		return discard{}
	}
	return reservedCounter{id, p.c.handlerDelivered.WithLabelValues(handlerLabelValues(id, handlerName)...)}
}

// The reserved* metrics publish only while their identity is reserved (a
// named informer that has not been released), as InformerMetricsProvider
// asks. For an identity that is not reserved when its metric is asked for
// (an informer without an Identifier) the provider returns discard and
// creates no child series: it would be exported (at zero) with empty labels
// shared by every such informer.
type (
	reservedGauge struct {
		id cache.InformerNameAndResource
		g  prometheus.Gauge
	}
	reservedObserver struct {
		id cache.InformerNameAndResource
		o  prometheus.Observer
	}
	reservedCounter struct {
		id cache.InformerNameAndResource
		c  prometheus.Counter
	}
)

// shareOfGauge adds one handler's value to a gauge that sums the values of
// every handler sharing the series. Set may be called concurrently (the
// distributor and the handler's goroutine): the last value is swapped
// atomically and the difference added, and additions commute.
type shareOfGauge struct {
	id cache.InformerNameAndResource
	g  prometheus.Gauge
	// last holds the float64 bits of the value this share contributes.
	last atomic.Uint64
}

func (m *shareOfGauge) Set(v float64) {
	if m.id.Reserved() {
		old := math.Float64frombits(m.last.Swap(math.Float64bits(v)))
		m.g.Add(v - old)
	}
}

func (m reservedGauge) Set(v float64) {
	if m.id.Reserved() {
		m.g.Set(v)
	}
}

func (m reservedObserver) Observe(v float64) {
	if m.id.Reserved() {
		m.o.Observe(v)
	}
}

func (m reservedCounter) Inc() {
	if m.id.Reserved() {
		m.c.Inc()
	}
}

// reflectorProvider is kcache's Reflector metrics provider, labelled by the
// Reflector's name.
type reflectorProvider struct{ c *collectors }

var (
	_ cache.MetricsProvider                = reflectorProvider{}
	_ cache.KcacheReflectorMetricsProvider = reflectorProvider{}
)

func (p reflectorProvider) NewListsMetric(name string) cache.CounterMetric {
	return p.c.lists.WithLabelValues(name)
}

func (p reflectorProvider) NewListDurationMetric(name string) cache.SummaryMetric {
	return p.c.listDuration.WithLabelValues(name)
}

func (p reflectorProvider) NewItemsInListMetric(name string) cache.SummaryMetric {
	return p.c.itemsPerList.WithLabelValues(name)
}

func (p reflectorProvider) NewWatchesMetric(name string) cache.CounterMetric {
	return p.c.watches.WithLabelValues(name)
}

func (p reflectorProvider) NewShortWatchesMetric(name string) cache.CounterMetric {
	return p.c.shortWatches.WithLabelValues(name)
}

func (p reflectorProvider) NewWatchDurationMetric(name string) cache.SummaryMetric {
	return p.c.watchDuration.WithLabelValues(name)
}

func (p reflectorProvider) NewItemsInWatchMetric(name string) cache.SummaryMetric {
	return p.c.itemsPerWatch.WithLabelValues(name)
}

func (p reflectorProvider) NewLastResourceVersionMetric(name string) cache.GaugeMetric {
	return p.c.lastResourceVersion.WithLabelValues(name)
}

func (p reflectorProvider) KcacheNewWatchListsMetric(name string) cache.CounterMetric {
	return p.c.watchLists.WithLabelValues(name)
}

func (p reflectorProvider) KcacheNewRelistsMetric(name, cause string) cache.CounterMetric {
	return p.c.relists.WithLabelValues(name, cause)
}

func (p reflectorProvider) KcacheNewLastSyncTimeMetric(name string) cache.GaugeMetric {
	return p.c.lastSyncTime.WithLabelValues(name)
}

// discard is every kind of metric and drops every value; it is what an
// identity that is not reserved gets.
type discard struct{}

func (discard) Set(float64)     {}
func (discard) Observe(float64) {}
func (discard) Inc()            {}
