package cache

import "time"

// KcacheReflectorMetricsProvider is kcache's extension of MetricsProvider:
// Reflector figures client-go does not have. When the provider installed
// with SetReflectorMetricsProvider also implements it, every Reflector
// created afterwards also reports WatchLists, relists by cause and the time
// of its last completed list (its last sync). A Reflector discovers the
// interface by type assertion when it is created; a method may return nil
// for a metric the provider does not publish.
//
// The interface and its methods carry the Kcache prefix so that no
// client-go release can add a name of the same spelling with another
// meaning.
type KcacheReflectorMetricsProvider interface {
	// KcacheNewWatchListsMetric counts completed WatchLists (initial state
	// streamed); they are also counted by NewListsMetric.
	KcacheNewWatchListsMetric(name string) CounterMetric
	// KcacheNewRelistsMetric counts the lists after the first one
	// attributed to cause, one of status.RelistCauses() (the last error
	// seen before the relist).
	KcacheNewRelistsMetric(name, cause string) CounterMetric
	// KcacheNewLastSyncTimeMetric shows when the store was last synced by
	// a complete list (initial list or relist), in seconds since the Unix
	// epoch.
	KcacheNewLastSyncTimeMetric(name string) GaugeMetric
}

// reflectorExtraMetrics are the metrics of KcacheReflectorMetricsProvider,
// no-ops when the provider does not implement it. Created once; never
// replaced.
type reflectorExtraMetrics struct {
	// watchLists counts completed WatchLists.
	watchLists CounterMetric
	// relists counts relists, by cause in relistCauses order.
	relists [numRelistCauses]CounterMetric
	// lastList shows the Unix time of the last completed list.
	lastList GaugeMetric
}

// newReflectorExtraMetrics creates the extended metrics of the Reflector
// called name from p when p implements KcacheReflectorMetricsProvider.
func newReflectorExtraMetrics(p MetricsProvider, name string) reflectorExtraMetrics {
	n := noopMetric{}
	m := reflectorExtraMetrics{watchLists: n, lastList: n}
	for i := range m.relists {
		m.relists[i] = n
	}
	ext, ok := p.(KcacheReflectorMetricsProvider)
	if !ok {
		return m
	}
	m.watchLists = orNoop[CounterMetric](ext.KcacheNewWatchListsMetric(name))
	m.lastList = orNoop[GaugeMetric](ext.KcacheNewLastSyncTimeMetric(name))
	for i, cause := range relistCauses {
		m.relists[i] = orNoop[CounterMetric](ext.KcacheNewRelistsMetric(name, cause))
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
