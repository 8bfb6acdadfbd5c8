package cache

import "time"

// queueMetrics publishes a queue's depth and the time its consumer spends
// processing popped items, for one InformerNameAndResource.
//
// A nil *queueMetrics is valid and publishes nothing, so the queues call its
// methods unconditionally and pay one nil check when metrics are off. It has
// no lock of its own: the queue calls it under its own lock (setDepth) or from
// its single consumer (observe).
type queueMetrics struct {
	// depth is the queued-items gauge.
	depth GaugeMetric
	// latency is the processing-latency histogram, in seconds.
	latency HistogramMetric
}

// newQueueMetrics creates the queue's metrics when id is reserved for
// publishing (a named informer, first registration of its resource);
// otherwise it returns nil. A nil provider means the one installed by
// SetInformerMetricsProvider (or none).
func newQueueMetrics(id InformerNameAndResource, provider InformerMetricsProvider) *queueMetrics {
	if !id.Reserved() {
		return nil
	}
	if provider == nil {
		provider = defaultInformerMetricsProvider()
	}
	return &queueMetrics{
		depth:   provider.NewQueuedItemMetric(id),
		latency: provider.NewProcessingLatencyMetric(id),
	}
}

// setDepth publishes the number of queued items.
func (m *queueMetrics) setDepth(n int) {
	if m != nil {
		m.depth.Set(float64(n))
	}
}

// start returns the moment processing begins, or the zero time when metrics
// are off (so the clock is not read for nothing).
func (m *queueMetrics) start() time.Time {
	if m == nil {
		return time.Time{}
	}
	return time.Now()
}

// observeSince records the processing time since start.
func (m *queueMetrics) observeSince(start time.Time) {
	if m != nil {
		m.latency.Observe(time.Since(start).Seconds())
	}
}
