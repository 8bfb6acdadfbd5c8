package cache

import (
	"strconv"
	"sync"
)

// GaugeMetric represents a single numerical value that can arbitrarily go up
// and down.
type GaugeMetric interface {
	Set(float64)
}

// HistogramMetric captures individual observations into configurable buckets.
// It also provides a sum and count of observations.
type HistogramMetric interface {
	Observe(float64)
}

// InformerMetricsProvider defines an interface for creating metrics that
// track informer operations: the depth of a queue, how long processing of a
// popped item takes, and the resource version a store has reached.
//
// Every metric is created for one InformerNameAndResource; the returned
// metric should check id.Reserved() before updating, so that a dynamic
// informer that shut down stops publishing.
type InformerMetricsProvider interface {
	// NewQueuedItemMetric returns a gauge for the number of items currently
	// queued and waiting to be processed.
	NewQueuedItemMetric(id InformerNameAndResource) GaugeMetric

	// NewProcessingLatencyMetric returns a histogram for the time, in
	// seconds, taken to process an item after it was popped.
	NewProcessingLatencyMetric(id InformerNameAndResource) HistogramMetric

	// NewStoreResourceVersionMetric returns a gauge for the resource
	// version of the store.
	NewStoreResourceVersionMetric(id InformerNameAndResource) GaugeMetric
}

// informerMetricsDefault holds the provider installed by
// SetInformerMetricsProvider. Only the first call installs one.
var informerMetricsDefault struct {
	once     sync.Once
	provider InformerMetricsProvider
}

// SetInformerMetricsProvider sets the metrics provider for all subsequently
// created FIFOs. Only the first call has an effect.
func SetInformerMetricsProvider(metricsProvider InformerMetricsProvider) {
	informerMetricsDefault.once.Do(func() {
		informerMetricsDefault.provider = metricsProvider
	})
}

// defaultInformerMetricsProvider returns the provider installed by
// SetInformerMetricsProvider, or a provider whose metrics do nothing.
func defaultInformerMetricsProvider() InformerMetricsProvider {
	informerMetricsDefault.once.Do(func() {})
	if p := informerMetricsDefault.provider; p != nil {
		return p
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
