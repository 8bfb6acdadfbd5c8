package cache

// InformerPendingNotificationsMetricsProvider is an optional extension of
// InformerMetricsProvider (kcache only; client-go has no such figure). When
// the metrics provider of a shared informer also implements it, every event
// handler registered with that informer gets a gauge reporting its backlog:
// the notifications distributed to the handler that it has not finished
// processing yet. A handler that is stuck or too slow shows as a growing
// value long before its buffer exhausts memory.
//
// The informer discovers the interface by type assertion on the provider
// given in SharedIndexInformerOptions.InformerMetricsProvider, or on the one
// installed with SetInformerMetricsProvider.
type InformerPendingNotificationsMetricsProvider interface {
	// NewPendingNotificationsMetric returns the backlog gauge of one handler.
	// handlerName names the handler as the registration's HasSyncedChecker
	// does (e.g. "example.com/pkg.Handler"); two handlers may share a name.
	// Like the other informer metrics, the gauge should check id.Reserved()
	// before publishing.
	NewPendingNotificationsMetric(id InformerNameAndResource, handlerName string) GaugeMetric
}

// pendingNotificationsGauge returns the backlog gauge for a handler when
// provider supports InformerPendingNotificationsMetricsProvider, else a
// gauge that discards values.
func pendingNotificationsGauge(provider InformerMetricsProvider, id InformerNameAndResource, handlerName string) GaugeMetric {
	if p, ok := provider.(InformerPendingNotificationsMetricsProvider); ok {
		if g := p.NewPendingNotificationsMetric(id, handlerName); g != nil {
			return g
		}
	}
	return noopMetric{}
}
