package cache

// CounterMetric is a number that can only grow, one step at a time.
type CounterMetric interface {
	Inc()
}

// SummaryMetric receives individual observations, e.g. durations.
type SummaryMetric interface {
	Observe(float64)
}

// MetricsProvider makes the metrics of a Reflector, each named after it.
// kcache Reflectors report to them: lists and watches made, their
// durations and sizes, short watches, and the last synced resource version
// (as a number, when it is one).
type MetricsProvider interface {
	// NewLastResourceVersionMetric shows the last synced resource version.
	NewLastResourceVersionMetric(name string) GaugeMetric
	// NewListsMetric counts completed lists.
	NewListsMetric(name string) CounterMetric
	// NewWatchesMetric counts consumed watch streams.
	NewWatchesMetric(name string) CounterMetric
	// NewShortWatchesMetric counts very short watches.
	NewShortWatchesMetric(name string) CounterMetric
	// NewListDurationMetric observes list durations in seconds.
	NewListDurationMetric(name string) SummaryMetric
	// NewWatchDurationMetric observes watch durations in seconds.
	NewWatchDurationMetric(name string) SummaryMetric
	// NewItemsInListMetric observes the number of objects per list.
	NewItemsInListMetric(name string) SummaryMetric
	// NewItemsInWatchMetric observes the number of events per watch.
	NewItemsInWatchMetric(name string) SummaryMetric
}
