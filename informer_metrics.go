package cache

import (
	"strconv"
	"sync"
	"sync/atomic"
)

// GaugeMetric is a value that can go up and down, such as a queue depth.
type GaugeMetric interface {
	Set(float64)
}

// HistogramMetric records observations, such as latencies, into buckets
// (with their sum and count).
type HistogramMetric interface {
	Observe(float64)
}

// InformerMetricsProvider makes the metrics of an informer's queue and store.
// Each metric belongs to one InformerNameAndResource; an implementation
// should publish nothing for an identity whose Reserved() is false (it may
// become false when an informer shuts down).
type InformerMetricsProvider interface {
	// NewQueuedItemMetric returns the gauge of items waiting in the queue:
	// pending keys for DeltaFIFO, pending deltas for RealFIFO.
	NewQueuedItemMetric(id InformerNameAndResource) GaugeMetric
	// NewProcessingLatencyMetric returns the histogram of seconds spent
	// processing each popped item (running the handlers).
	NewProcessingLatencyMetric(id InformerNameAndResource) HistogramMetric
	// NewStoreResourceVersionMetric returns the gauge of the resource
	// version the store has reached.
	NewStoreResourceVersionMetric(id InformerNameAndResource) GaugeMetric
}

// informerMetricsDefault holds the provider installed by
// SetInformerMetricsProvider. Only the first call installs one; queues
// created before it get a provider that discards everything, and do not
// use up the call (NB: reading never touches once).
var informerMetricsDefault struct {
	once     sync.Once
	provider atomic.Pointer[InformerMetricsProvider]
}

// SetInformerMetricsProvider installs the provider that queues created from
// now on use when their options name none. Only the first call counts; later
// calls are ignored.
func SetInformerMetricsProvider(metricsProvider InformerMetricsProvider) {
	informerMetricsDefault.once.Do(func() {
		informerMetricsDefault.provider.Store(&metricsProvider)
	})
}

// defaultInformerMetricsProvider returns the provider installed by
// SetInformerMetricsProvider, or a provider whose metrics do nothing.
func defaultInformerMetricsProvider() InformerMetricsProvider {
	if p := informerMetricsDefault.provider.Load(); p != nil && *p != nil {
		return *p
	}
	return noopInformerMetrics{}
}

// noopInformerMetrics is the provider used when none was set; its metrics
// discard every value.
type noopInformerMetrics struct{}

func (noopInformerMetrics) NewQueuedItemMetric(InformerNameAndResource) GaugeMetric {
	return noopMetric{}
}

func (noopInformerMetrics) NewProcessingLatencyMetric(InformerNameAndResource) HistogramMetric {
	return noopMetric{}
}

func (noopInformerMetrics) NewStoreResourceVersionMetric(InformerNameAndResource) GaugeMetric {
	return noopMetric{}
}

// noopMetric discards every value; it is every kind of metric at once.
type noopMetric struct{}

func (noopMetric) Set(float64)     {}
func (noopMetric) Observe(float64) {}
func (noopMetric) Inc()            {}

// resourceVersionGaugeDigits is how many trailing digits of a resource version
// a gauge can carry exactly: a float64 holds every integer below 2^53.
const resourceVersionGaugeDigits = 15

// resourceVersionGaugeValue turns a resource version into the value a
// resource-version gauge shows. An empty version is 0; a longer one keeps its
// last 15 digits; anything that is not a decimal integer is not shown.
func resourceVersionGaugeValue(rv string) (float64, bool) {
	if rv == "" {
		return 0, true
	}
	if len(rv) > resourceVersionGaugeDigits {
		rv = rv[len(rv)-resourceVersionGaugeDigits:]
	}
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil {
		return 0, false
	}
	return float64(n), true
}
