package cache

import (
	"sync"
	"sync/atomic"
	"time"
)

// This file holds the Reflector's metrics hooks: the provider interface a
// monitoring system implements, the metric kinds it returns, and the
// process-wide provider installed by SetReflectorMetricsProvider.

// reflectorMetricsDefault holds the provider installed by
// SetReflectorMetricsProvider. Only the first call installs one; Reflectors
// created before it discard their metrics and do not use up the call.
var reflectorMetricsDefault struct {
	// once makes the first SetReflectorMetricsProvider call the only one that counts.
	once sync.Once
	// provider is the installed provider; nil (or a nil provider) means
	// metrics are discarded.
	provider atomic.Pointer[MetricsProvider]
}

// SetReflectorMetricsProvider sets the metrics provider used by every
// Reflector created afterwards. Only the first call has an effect.
func SetReflectorMetricsProvider(metricsProvider MetricsProvider) {
	reflectorMetricsDefault.once.Do(func() {
		reflectorMetricsDefault.provider.Store(&metricsProvider)
	})
}

// reflectorMetrics is the set of metrics one Reflector reports to, and the
// Reflector's own counters (stats). All metrics are created once, at
// construction, and never replaced; each metric does its own
// synchronisation, and stats uses atomics.
type reflectorMetrics struct {
	// lists counts completed initial lists and relists (List or WatchList).
	lists CounterMetric
	// listDuration observes how long each list took, in seconds.
	listDuration SummaryMetric
	// itemsInList observes how many objects each list delivered.
	itemsInList SummaryMetric
	// watches counts watch streams that were consumed.
	watches CounterMetric
	// shortWatches counts watches that ended as a VeryShortWatchError.
	shortWatches CounterMetric
	// watchDuration observes how long each watch stream lasted, in seconds.
	watchDuration SummaryMetric
	// itemsInWatch observes how many events each watch stream delivered.
	itemsInWatch SummaryMetric
	// lastResourceVersion shows the last synced resource version as a number.
	lastResourceVersion GaugeMetric
	// extra holds the kcache-only metrics (KcacheReflectorMetricsProvider).
	extra reflectorExtraMetrics
	// enabled is false when no provider was installed, so that per-event
	// work (parsing resource versions) is skipped.
	enabled bool
	// stats are the Reflector's own counters, kept with or without a provider.
	stats reflectorStats
}

// newReflectorMetrics creates the metrics of the Reflector called name from
// the installed provider, or no-op metrics when none is installed.
func newReflectorMetrics(name string) *reflectorMetrics {
	var p MetricsProvider
	if installed := reflectorMetricsDefault.provider.Load(); installed != nil {
		p = *installed
	}
	return newReflectorMetricsFrom(p, name)
}

// newReflectorMetricsFrom creates the metrics of the Reflector called name
// from p, or no-op metrics when p is nil.
func newReflectorMetricsFrom(p MetricsProvider, name string) *reflectorMetrics {
	if p == nil {
		n := noopMetric{}
		return &reflectorMetrics{lists: n, listDuration: n, itemsInList: n, watches: n, shortWatches: n,
			watchDuration: n, itemsInWatch: n, lastResourceVersion: n, extra: newReflectorExtraMetrics(nil, name)}
	}
	return &reflectorMetrics{
		lists:               p.NewListsMetric(name),
		listDuration:        p.NewListDurationMetric(name),
		itemsInList:         p.NewItemsInListMetric(name),
		watches:             p.NewWatchesMetric(name),
		shortWatches:        p.NewShortWatchesMetric(name),
		watchDuration:       p.NewWatchDurationMetric(name),
		itemsInWatch:        p.NewItemsInWatchMetric(name),
		lastResourceVersion: p.NewLastResourceVersionMetric(name),
		extra:               newReflectorExtraMetrics(p, name),
		enabled:             true,
	}
}

// observeList records one completed List of items objects that took seconds.
func (m *reflectorMetrics) observeList(seconds float64, items int) {
	m.observeAnyList(seconds, items, false)
}

// observeWatchList records one completed WatchList (initial state streamed)
// of items objects that took seconds.
func (m *reflectorMetrics) observeWatchList(seconds float64, items int) {
	m.observeAnyList(seconds, items, true)
}

// observeAnyList records a completed list of either kind, and a relist under
// the cause of the last error when it was not the first.
func (m *reflectorMetrics) observeAnyList(seconds float64, items int, watchList bool) {
	now := time.Now()
	m.lists.Inc()
	m.listDuration.Observe(seconds)
	m.itemsInList.Observe(float64(items))
	relist, cause := m.stats.noteList(watchList, now)
	m.extra.observeList(watchList, relist, cause, now)
}

// observeWatch records one consumed watch stream that ended with err.
func (m *reflectorMetrics) observeWatch(seconds float64, events int, err error) {
	m.watches.Inc()
	m.stats.watches.Add(1)
	if isVeryShortWatch(err) {
		m.shortWatches.Inc()
	}
	m.watchDuration.Observe(seconds)
	m.itemsInWatch.Observe(float64(events))
	m.stats.noteError(err, time.Now())
}

// observeRoundError records the error that ended a list-and-watch round.
func (m *reflectorMetrics) observeRoundError(err error) {
	m.stats.noteError(err, time.Now())
}

// observeResourceVersion shows rv on the last-resource-version gauge when it
// is a decimal number.
func (m *reflectorMetrics) observeResourceVersion(rv string) {
	if !m.enabled {
		return
	}
	if v, ok := resourceVersionGaugeValue(rv); ok {
		m.lastResourceVersion.Set(v)
	}
}
