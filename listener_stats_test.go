package cache

import (
	"sync/atomic"
	"testing"
	"time"
)

// countingMetric counts calls; it is a histogram and a counter at once.
type countingMetric struct{ observed, incs atomic.Int64 }

func (m *countingMetric) Observe(float64) { m.observed.Add(1) }
func (m *countingMetric) Inc()            { m.incs.Add(1) }

// countingHandlerMetrics is a KcacheInformerMetricsProvider handing out
// one countingMetric as the delivery metrics, and no backlog gauge.
type countingHandlerMetrics struct {
	noopInformerMetrics
	m *countingMetric
}

func (p countingHandlerMetrics) KcacheNewPendingNotificationsMetric(InformerNameAndResource, string) GaugeMetric {
	return nil
}
func (p countingHandlerMetrics) KcacheNewHandlerDeliveryLatencyMetric(InformerNameAndResource, string) HistogramMetric {
	return p.m
}
func (p countingHandlerMetrics) KcacheNewHandlerDeliveredMetric(InformerNameAndResource, string) CounterMetric {
	return p.m
}

func TestListenerStatsCountDeliveriesKeepTheSlowestAndFeedTheHandlerMetrics(t *testing.T) {
	for _, tc := range []struct {
		name     string
		provider InformerMetricsProvider
	}{
		{"without handler metrics", noopInformerMetrics{}},
		{"with handler metrics", countingHandlerMetrics{m: &countingMetric{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s listenerStats
			s.attachMetrics(tc.provider, InformerNameAndResource{}, "h")
			now := time.Now()
			for _, age := range []time.Duration{time.Millisecond, 5 * time.Millisecond, 2 * time.Millisecond} {
				s.observe(now.Add(-age))
			}
			if n := s.delivered.Load(); n != 3 {
				t.Errorf("delivered %d, want 3", n)
			}
			if slowest := time.Duration(s.slowestNanos.Load()); slowest < 5*time.Millisecond || slowest > time.Minute {
				t.Errorf("slowest %v, want the 5ms delivery", slowest)
			}
			if p, ok := tc.provider.(countingHandlerMetrics); ok && (p.m.observed.Load() != 3 || p.m.incs.Load() != 3) {
				t.Errorf("metrics saw %d observations and %d increments, want 3 each", p.m.observed.Load(), p.m.incs.Load())
			}
		})
	}
}

func TestRecordingADeliveryAllocatesNothing(t *testing.T) {
	var s listenerStats
	s.attachMetrics(countingHandlerMetrics{m: &countingMetric{}}, InformerNameAndResource{}, "h")
	start := time.Now()
	if allocs := testing.AllocsPerRun(1000, func() { s.observe(start) }); allocs != 0 {
		t.Errorf("observe allocates %v times per delivery, want 0", allocs)
	}
}

// settableGauge is a gauge that keeps nothing.
type settableGauge struct{ v atomic.Int64 }

func (g *settableGauge) Set(v float64) { g.v.Store(int64(v)) }

func TestQueueingAndDeliveringANotificationWithEveryHandlerMetricAllocatesNothing(t *testing.T) {
	l := newTestListener(ResourceEventHandlerFuncs{UpdateFunc: func(_, _ interface{}) {}}, newManualChecker(), &settableGauge{})
	l.stats.attachMetrics(countingHandlerMetrics{m: &countingMetric{}}, InformerNameAndResource{}, l.name)
	var obj interface{} = &struct{ a int }{}
	round := func() {
		l.add(notification{kind: notifyUpdate, oldObj: obj, newObj: obj})
		l.refill()
		for ; l.next < l.end; l.next++ {
			l.deliver(&l.batch[l.next])
		}
	}
	round() // the ring's first buffer
	if allocs := testing.AllocsPerRun(1000, round); allocs != 0 {
		t.Errorf("queueing and delivering one notification allocates %v times, want 0", allocs)
	}
}
