package cache

import "time"

// ReflectorExtendedMetricsProvider is an optional extension of
// MetricsProvider (kcache only; client-go has no such figures). When the
// provider installed with SetReflectorMetricsProvider also implements it,
// every Reflector created afterwards also reports WatchLists, relists by
// cause and the time of its last completed list (its last sync). A Reflector discovers the
// interface by type assertion when it is created.
type ReflectorExtendedMetricsProvider interface {
	// NewWatchListsMetric counts completed WatchLists (initial state
	// streamed); they are also counted by NewListsMetric.
	NewWatchListsMetric(name string) CounterMetric
	// NewRelistsMetric counts the lists after the first one attributed to
	// cause, one of RelistCauses() (the last error seen before the relist).
	NewRelistsMetric(name, cause string) CounterMetric
	// NewLastSyncTimeMetric shows when the store was last synced by a
	// complete list (initial list or relist), in seconds since the Unix
	// epoch.
	NewLastSyncTimeMetric(name string) GaugeMetric
}

// reflectorExtraMetrics are the metrics of ReflectorExtendedMetricsProvider,
// no-ops when the provider does not implement it. Created once; never
// replaced.
type reflectorExtraMetrics struct {
	// watchLists counts completed WatchLists.
	watchLists CounterMetric
	// relists counts relists, by cause in RelistCauses order.
	relists [numRelistCauses]CounterMetric
	// lastList shows the Unix time of the last completed list.
	lastList GaugeMetric
}

// newReflectorExtraMetrics creates the extended metrics of the Reflector
// called name from p when p implements ReflectorExtendedMetricsProvider.
func newReflectorExtraMetrics(p MetricsProvider, name string) reflectorExtraMetrics {
	n := noopMetric{}
	m := reflectorExtraMetrics{watchLists: n, lastList: n}
	for i := range m.relists {
		m.relists[i] = n
	}
	ext, ok := p.(ReflectorExtendedMetricsProvider)
	if !ok {
		return m
	}
	m.watchLists = orNoop[CounterMetric](ext.NewWatchListsMetric(name))
	m.lastList = orNoop[GaugeMetric](ext.NewLastSyncTimeMetric(name))
	for i, cause := range relistCauses {
		m.relists[i] = orNoop[CounterMetric](ext.NewRelistsMetric(name, cause))
	}
	return m
}

// orNoop returns m, or the no-op metric when a provider returned nil.
func orNoop[M any](m M) M {
	if any(m) == nil {
		return any(noopMetric{}).(M)
	}
	return m
}

// observeList records a completed list at now; relist and cause as
// reflectorStats.noteList returned them.
func (m *reflectorExtraMetrics) observeList(watchList, relist bool, cause int, now time.Time) {
	if watchList {
		m.watchLists.Inc()
	}
	if relist {
		m.relists[cause].Inc()
	}
	m.lastList.Set(float64(now.UnixNano()) / 1e9)
}
