// Package prometheus publishes kcache's metrics on a Prometheus registry.
//
// One call, Register, creates the metric families, registers them on a
// prometheus.Registerer (controller-runtime's metrics.Registry works as is)
// and installs kcache's Reflector and informer metrics providers
// (cache.SetReflectorMetricsProvider, cache.SetInformerMetricsProvider), so
// that every Reflector and informer queue created afterwards reports to
// them. Call it at startup, before creating informers.
//
// Names, labels and buckets follow what Kubernetes components publish for
// the same quantities: the informer queue's informer_queued_items,
// informer_processing_latency_seconds and informer_store_resource_version
// (labels name, group, version, resource: the informer's Identifier), and
// the Reflector's reflector_* family (label name: the Reflector's name).
// kcache's extras use the same style: per-handler
// informer_handler_pending_notifications,
// informer_handler_delivery_latency_seconds and
// informer_handler_notifications_delivered_total (plus label handler), and
// reflector_watch_lists_total, reflector_relists_total (plus label cause)
// and reflector_last_sync_timestamp_seconds.
//
// As in client-go, an informer's store publishes
// informer_store_resource_version only when the informer is given the
// provider in its options
// (SharedIndexInformerOptions.InformerMetricsProvider:
// InformerMetricsProvider()); the process-wide provider Register installs
// reaches the queue and the handlers, not the store.
//
// Informer metrics are published only for a reserved Identifier (see
// cache.InformerNameAndResource.Reserved), so label values are bounded by the
// informer names, resources and handler types of the program; an informer
// without an Identifier publishes no informer or handler metrics.
package prometheus
