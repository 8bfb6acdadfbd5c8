package cache

// KcacheInformerMetricsProvider is kcache's extension of
// InformerMetricsProvider: the metrics of each event handler, which
// client-go does not have. When the metrics provider of a shared informer
// (SharedIndexInformerOptions.InformerMetricsProvider, or the one installed
// with SetInformerMetricsProvider) also implements it, every event handler
// registered with that informer gets a gauge of its backlog, a histogram of
// the time each notification took to deliver and a counter of the
// notifications delivered. The informer discovers the interface by type
// assertion when the handler is added; a method may return nil for a metric
// the provider does not publish.
//
// The interface and its methods carry the Kcache prefix so that no
// client-go release can add a name of the same spelling with another
// meaning. handlerName names the handler as the registration's
// HasSyncedChecker does (e.g. "example.com/pkg.Handler"); two handlers may
// share a name. Like the other informer metrics, these should check
// id.Reserved() before publishing.
type KcacheInformerMetricsProvider interface {
	// KcacheNewPendingNotificationsMetric returns the backlog gauge of one
	// handler: the notifications distributed to it that it has not finished
	// processing yet. A handler that is stuck or too slow shows as a
	// growing value long before its buffer exhausts memory.
	KcacheNewPendingNotificationsMetric(id InformerNameAndResource, handlerName string) GaugeMetric
	// KcacheNewHandlerDeliveryLatencyMetric returns the histogram of seconds
	// one handler spent on each notification (its OnAdd, OnUpdate or
	// OnDelete call).
	KcacheNewHandlerDeliveryLatencyMetric(id InformerNameAndResource, handlerName string) HistogramMetric
	// KcacheNewHandlerDeliveredMetric returns the counter of notifications
	// the handler has finished.
	KcacheNewHandlerDeliveredMetric(id InformerNameAndResource, handlerName string) CounterMetric
}

// pendingNotificationsGauge returns the backlog gauge for a handler when
// provider implements KcacheInformerMetricsProvider, else a gauge that
// discards values.
func pendingNotificationsGauge(provider InformerMetricsProvider, id InformerNameAndResource, handlerName string) GaugeMetric {
	if p, ok := provider.(KcacheInformerMetricsProvider); ok {
		if g := p.KcacheNewPendingNotificationsMetric(id, handlerName); g != nil {
			return g
		}
	}
	return noopMetric{}
}

// handlerDeliveryMetrics returns the delivery metrics of a handler when
// provider implements KcacheInformerMetricsProvider, else no-ops.
func handlerDeliveryMetrics(provider InformerMetricsProvider, id InformerNameAndResource, handlerName string) (HistogramMetric, CounterMetric) {
	p, ok := provider.(KcacheInformerMetricsProvider)
	if !ok {
		return noopMetric{}, noopMetric{}
	}
	return orNoop[HistogramMetric](p.KcacheNewHandlerDeliveryLatencyMetric(id, handlerName)),
		orNoop[CounterMetric](p.KcacheNewHandlerDeliveredMetric(id, handlerName))
}
