package cache

// InformerHandlerMetricsProvider is an optional extension of
// InformerMetricsProvider (kcache only; client-go has no such figures).
// When the metrics provider of a shared informer also implements it, every
// event handler registered with that informer gets a histogram of the time
// each notification took to deliver (the handler's OnAdd, OnUpdate or
// OnDelete call) and a counter of the notifications delivered.
//
// The informer discovers the interface by type assertion, as it does
// InformerPendingNotificationsMetricsProvider. handlerName is the same name;
// the metrics should check id.Reserved() before publishing.
type InformerHandlerMetricsProvider interface {
	// NewHandlerDeliveryLatencyMetric returns the histogram of seconds one
	// handler spent on each notification.
	NewHandlerDeliveryLatencyMetric(id InformerNameAndResource, handlerName string) HistogramMetric
	// NewHandlerDeliveredMetric returns the counter of notifications the
	// handler has finished.
	NewHandlerDeliveredMetric(id InformerNameAndResource, handlerName string) CounterMetric
}

// handlerDeliveryMetrics returns the delivery metrics of a handler when
// provider supports InformerHandlerMetricsProvider, else no-ops.
func handlerDeliveryMetrics(provider InformerMetricsProvider, id InformerNameAndResource, handlerName string) (HistogramMetric, CounterMetric) {
	p, ok := provider.(InformerHandlerMetricsProvider)
	if !ok {
		return noopMetric{}, noopMetric{}
	}
	return orNoop[HistogramMetric](p.NewHandlerDeliveryLatencyMetric(id, handlerName)),
		orNoop[CounterMetric](p.NewHandlerDeliveredMetric(id, handlerName))
}
