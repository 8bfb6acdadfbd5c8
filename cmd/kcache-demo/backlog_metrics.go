package main

import (
	"math"
	"sync"
	"sync/atomic"

	cache "github.com/kcache-go/cache"
)

// backlogGauge holds the last backlog a handler reported.
type backlogGauge struct{ bits atomic.Uint64 }

func (g *backlogGauge) Set(v float64)  { g.bits.Store(math.Float64bits(v)) }
func (g *backlogGauge) value() float64 { return math.Float64frombits(g.bits.Load()) }

// backlogMetrics is an InformerMetricsProvider that also implements kcache's
// InformerPendingNotificationsMetricsProvider, so the informer gives it one
// backlog gauge per handler. The other metrics are discarded.
//
// mu guards gauges.
type backlogMetrics struct {
	mu     sync.Mutex
	gauges map[string]*backlogGauge
}

var _ cache.InformerPendingNotificationsMetricsProvider = &backlogMetrics{}

func newBacklogMetrics() *backlogMetrics { return &backlogMetrics{gauges: map[string]*backlogGauge{}} }

func (m *backlogMetrics) NewPendingNotificationsMetric(_ cache.InformerNameAndResource, handlerName string) cache.GaugeMetric {
	m.mu.Lock()
	defer m.mu.Unlock()
	g := &backlogGauge{}
	m.gauges[handlerName] = g
	return g
}

func (m *backlogMetrics) NewQueuedItemMetric(cache.InformerNameAndResource) cache.GaugeMetric {
	return discard{}
}
func (m *backlogMetrics) NewProcessingLatencyMetric(cache.InformerNameAndResource) cache.HistogramMetric {
	return discard{}
}
func (m *backlogMetrics) NewStoreResourceVersionMetric(cache.InformerNameAndResource) cache.GaugeMetric {
	return discard{}
}

// backlog returns the gauge value of the handler whose name ends with
// suffix (names carry the import path), or -1.
func (m *backlogMetrics) backlog(suffix string) float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	for name, g := range m.gauges {
		if len(name) >= len(suffix) && name[len(name)-len(suffix):] == suffix {
			return g.value()
		}
	}
	return -1
}

// discard is a metric that keeps nothing.
type discard struct{}

func (discard) Set(float64)     {}
func (discard) Observe(float64) {}
