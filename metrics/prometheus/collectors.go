package prometheus

import (
	"github.com/prometheus/client_golang/prometheus"
)

// informerLabels are the labels of the informer metrics: the informer's name
// and the group, version and resource of its Identifier.
var informerLabels = []string{"name", "group", "version", "resource"}

// handlerLabels add the handler's name to informerLabels.
var handlerLabels = append(append([]string(nil), informerLabels...), "handler")

// reflectorLabels label a Reflector's metrics with its name.
var reflectorLabels = []string{"name"}

// latencyBuckets are the buckets Kubernetes uses for
// informer_processing_latency_seconds, in seconds.
var latencyBuckets = []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// itemBuckets count objects per list and events per watch: 1 to 100,000.
var itemBuckets = prometheus.ExponentialBuckets(1, 10, 6)

// collectors are the metric families kcache publishes. They are created
// once per process (see families) and shared by every registry Register is
// called with; the vectors do their own locking.
type collectors struct {
	queuedItems, storeResourceVersion *prometheus.GaugeVec
	processingLatency                 *prometheus.HistogramVec

	handlerPending   *prometheus.GaugeVec
	handlerLatency   *prometheus.HistogramVec
	handlerDelivered *prometheus.CounterVec

	lists, watchLists, watches, shortWatches, relists *prometheus.CounterVec
	listDuration, itemsPerList                        *prometheus.HistogramVec
	watchDuration, itemsPerWatch                      *prometheus.HistogramVec
	lastResourceVersion, lastSyncTime                 *prometheus.GaugeVec
}

// newCollectors creates the metric families.
func newCollectors() *collectors {
	gauge := func(subsystem, name, help string, labels []string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: subsystem, Name: name, Help: help}, labels)
	}
	counter := func(subsystem, name, help string, labels []string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: subsystem, Name: name, Help: help}, labels)
	}
	histogram := func(subsystem, name, help string, buckets []float64, labels []string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Subsystem: subsystem, Name: name, Help: help, Buckets: buckets}, labels)
	}
	return &collectors{
		queuedItems:          gauge("informer", "queued_items", "Number of items currently queued in the FIFO.", informerLabels),
		processingLatency:    histogram("informer", "processing_latency_seconds", "Time taken to process events after popping from the queue.", latencyBuckets, informerLabels),
		storeResourceVersion: gauge("informer", "store_resource_version", "The 15 least significant digits of the resource version of the store.", informerLabels),

		handlerPending:   gauge("informer", "handler_pending_notifications", "Notifications distributed to an event handler that it has not finished processing yet.", handlerLabels),
		handlerLatency:   histogram("informer", "handler_delivery_latency_seconds", "Time an event handler took to process one notification.", latencyBuckets, handlerLabels),
		handlerDelivered: counter("informer", "handler_notifications_delivered_total", "Notifications an event handler finished processing.", handlerLabels),

		lists:               counter("reflector", "lists_total", "Total number of API lists done by the reflectors (List and WatchList).", reflectorLabels),
		watchLists:          counter("reflector", "watch_lists_total", "Total number of initial states streamed by the reflectors (WatchList); also counted in reflector_lists_total.", reflectorLabels),
		listDuration:        histogram("reflector", "list_duration_seconds", "How long an API list takes to return and decode for the reflectors.", prometheus.DefBuckets, reflectorLabels),
		itemsPerList:        histogram("reflector", "items_per_list", "How many items an API list returns to the reflectors.", itemBuckets, reflectorLabels),
		watches:             counter("reflector", "watches_total", "Total number of API watches done by the reflectors.", reflectorLabels),
		shortWatches:        counter("reflector", "short_watches_total", "Total number of short API watches done by the reflectors.", reflectorLabels),
		watchDuration:       histogram("reflector", "watch_duration_seconds", "How long an API watch lasts for the reflectors.", prometheus.DefBuckets, reflectorLabels),
		itemsPerWatch:       histogram("reflector", "items_per_watch", "How many items an API watch returns to the reflectors.", itemBuckets, reflectorLabels),
		lastResourceVersion: gauge("reflector", "last_resource_version", "Last resource version seen for the reflectors.", reflectorLabels),
		relists:             counter("reflector", "relists_total", "Lists after the first one, by the cause: the last error before the relist (expired, too_large_resource_version, decode_error, other).", append([]string{"name"}, "cause")),
		lastSyncTime:        gauge("reflector", "last_sync_timestamp_seconds", "When the reflector last completed a list (initial list or relist), in seconds since the Unix epoch.", reflectorLabels),
	}
}

// all returns every family, for registration.
func (c *collectors) all() []prometheus.Collector {
	return []prometheus.Collector{
		c.queuedItems, c.processingLatency, c.storeResourceVersion,
		c.handlerPending, c.handlerLatency, c.handlerDelivered,
		c.lists, c.watchLists, c.listDuration, c.itemsPerList, c.watches, c.shortWatches,
		c.watchDuration, c.itemsPerWatch, c.lastResourceVersion, c.relists, c.lastSyncTime,
	}
}
