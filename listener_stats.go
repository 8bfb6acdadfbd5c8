package cache

import (
	"sync/atomic"
	"time"
)

// listenerStats are what a processorListener counts about its deliveries:
// for status.Informers always, and for the metrics of
// KcacheInformerMetricsProvider when the informer's provider has them.
//
// Only the listener's run goroutine writes; the fields are atomics (or set
// before the listener is registered), so readers need no lock. Recording a
// delivery allocates nothing.
type listenerStats struct {
	// delivered counts the notifications the handler returned from.
	delivered atomic.Int64
	// slowestNanos is the longest single delivery so far.
	slowestNanos atomic.Int64
	// latency and deliveredMetric are nil until attachMetrics; nil means
	// no metrics.
	latency         HistogramMetric
	deliveredMetric CounterMetric
}

// attachMetrics gives the stats their metrics from provider. It must be
// called before the listener is registered (no goroutine reads them yet).
func (s *listenerStats) attachMetrics(provider InformerMetricsProvider, id InformerNameAndResource, handlerName string) {
	s.latency, s.deliveredMetric = handlerDeliveryMetrics(provider, id, handlerName)
}

// observe records one delivery that began at start.
func (s *listenerStats) observe(start time.Time) {
	d := time.Since(start)
	s.delivered.Add(1)
	for {
		slowest := s.slowestNanos.Load()
		if int64(d) <= slowest || s.slowestNanos.CompareAndSwap(slowest, int64(d)) {
			break
		}
	}
	if s.latency != nil {
		s.latency.Observe(d.Seconds())
		s.deliveredMetric.Inc()
	}
}
