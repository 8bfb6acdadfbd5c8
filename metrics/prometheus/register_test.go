package prometheus

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/internal/obstest"
	"github.com/kcache-go/cache/status"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// otherCounter is a second handler type, so that the two handlers get
// different handler labels.
type otherCounter struct{ obstest.Counter }

// scrape serves reg over HTTP as Prometheus does and parses the text.
func scrape(t *testing.T, reg *prometheus.Registry) map[string]*dto.MetricFamily {
	t.Helper()
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	req.Header.Set("Accept", "text/plain") // the text format, not protobuf
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.LegacyValidation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("the /metrics text does not parse: %v", err)
	}
	return families
}

// series returns the metric of family name whose labels include want, or
// fails the test.
func series(t *testing.T, families map[string]*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	t.Helper()
	f, ok := families[name]
	if !ok {
		t.Fatalf("no metric family %s", name)
	}
	for _, m := range f.Metric {
		if labelsInclude(m, want) {
			return m
		}
	}
	t.Fatalf("%s has no series with labels %v", name, want)
	return nil
}

// labelsInclude reports whether m carries every label of want.
func labelsInclude(m *dto.Metric, want map[string]string) bool {
	have := map[string]string{}
	for _, l := range m.Label {
		have[l.GetName()] = l.GetValue()
	}
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}

// value is the value of a counter, gauge or untyped metric.
func value(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	}
	return m.Untyped.GetValue()
}

// with returns labels plus one more pair.
func with(labels map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for lk, lv := range labels {
		out[lk] = lv
	}
	return out
}

// scriptedRun is an informer run the metrics are checked against: three
// pods listed, two updates, a 410 Gone that forces a relist, one update
// after it; two counting handlers.
type scriptedRun struct {
	src            *obstest.Source
	informer       cache.SharedIndexInformer
	counter        *obstest.Counter
	other          *otherCounter
	regs           []cache.ResourceEventHandlerRegistration
	started, ended time.Time
	finalRV        string
}

// runScript runs the script; the informer is stopped by t.Cleanup.
func runScript(t *testing.T, informerName string) *scriptedRun {
	name, err := cache.NewInformerName(informerName)
	if err != nil {
		t.Fatal(err)
	}
	r := &scriptedRun{src: obstest.NewSource("ns", 3), counter: &obstest.Counter{}, other: &otherCounter{}, started: time.Now()}
	r.informer = cache.NewSharedIndexInformerWithOptions(r.src, &v1.Pod{}, cache.SharedIndexInformerOptions{
		Indexers:   cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
		Identifier: name.WithResource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}),
		// Given explicitly, so that the store publishes its resource
		// version too (the process-wide provider does not reach the store,
		// as in client-go).
		InformerMetricsProvider: InformerMetricsProvider(),
	})
	for _, h := range []cache.ResourceEventHandler{r.counter, r.other} {
		reg, err := r.informer.AddEventHandler(h)
		if err != nil {
			t.Fatal(err)
		}
		r.regs = append(r.regs, reg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { r.informer.RunWithContext(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait(); name.Release() })

	w := r.src.NextWatch(t)
	r.src.Relabel(w, 0)
	rv := r.src.Relabel(w, 1)
	r.waitFor(t, rv)
	obstest.Expire(w)
	w = r.src.NextWatch(t)
	r.finalRV = r.src.Relabel(w, 2)
	r.waitFor(t, r.finalRV)
	r.ended = time.Now()
	return r
}

// waitFor waits until the informer reached rv and every handler caught up.
func (r *scriptedRun) waitFor(t *testing.T, rv string) {
	obstest.Eventually(t, "the informer reached "+rv+" and the handlers caught up", func() bool {
		if r.informer.LastSyncResourceVersion() != rv {
			return false
		}
		for _, reg := range r.regs {
			if !reg.HasSynced() || reg.(interface{ KcachePendingNotifications() int }).KcachePendingNotifications() != 0 {
				return false
			}
		}
		return true
	})
}

// status returns the status of the run's informer.
func (r *scriptedRun) status(t *testing.T, informerName string) status.Informer {
	for _, st := range status.Informers() {
		if st.Name == informerName {
			return st
		}
	}
	t.Fatalf("informer %q is not in status.Informers", informerName)
	return status.Informer{}
}

func TestAScriptedInformerRunIsPublishedWithKubernetesNamesLabelsAndBuckets(t *testing.T) {
	reg := prometheus.NewRegistry()
	if err := Register(reg); err != nil {
		t.Fatal(err)
	}
	const informerName = "metrics-test"
	// NB: the series outlive the informer (the families are process-wide
	// and the Reflector's name is the line that runs the informer), so a
	// second run in the same process (-count) continues the counters of
	// the first; counters and histograms are checked as growth over the
	// scrape taken before the run.
	before := scrape(t, reg)
	run := runScript(t, informerName)
	s := scrapes{before: before, after: scrape(t, reg)}
	t.Run("queue, store and handler metrics", func(t *testing.T) {
		checkInformerMetrics(t, s, run, informerName)
	})
	t.Run("reflector lists, watches and relists by cause", func(t *testing.T) {
		checkReflectorMetrics(t, s, run, run.status(t, informerName).Reflector.Name)
	})
}

// scrapes are the scrapes taken before and after a run.
type scrapes struct{ before, after map[string]*dto.MetricFamily }

// now is the value of the series after the run (for gauges).
func (s scrapes) now(t *testing.T, name string, labels map[string]string) float64 {
	t.Helper()
	return value(series(t, s.after, name, labels))
}

// added is how much the counter grew during the run.
func (s scrapes) added(t *testing.T, name string, labels map[string]string) float64 {
	t.Helper()
	v := value(series(t, s.after, name, labels))
	if m := find(s.before, name, labels); m != nil {
		v -= value(m)
	}
	return v
}

// observed is the histogram of the run: its buckets, and the samples and
// their sum added during the run.
func (s scrapes) observed(t *testing.T, name string, labels map[string]string) (h *dto.Histogram, count uint64, sum float64) {
	t.Helper()
	h = series(t, s.after, name, labels).Histogram
	count, sum = h.GetSampleCount(), h.GetSampleSum()
	if m := find(s.before, name, labels); m != nil {
		count -= m.Histogram.GetSampleCount()
		sum -= m.Histogram.GetSampleSum()
	}
	return h, count, sum
}

// find returns the metric of family name whose labels include want, or nil.
func find(families map[string]*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	for _, m := range families[name].GetMetric() {
		if labelsInclude(m, want) {
			return m
		}
	}
	return nil
}

// checkInformerMetrics checks the informer_* families against the run.
func checkInformerMetrics(t *testing.T, s scrapes, run *scriptedRun, informerName string) {
	id := map[string]string{"name": informerName, "group": "", "version": "v1", "resource": "pods"}

	if v := s.now(t, "informer_queued_items", id); v != 0 {
		t.Errorf("informer_queued_items = %v after the queue drained, want 0", v)
	}
	if v := s.now(t, "informer_store_resource_version", id); strconv.FormatFloat(v, 'f', -1, 64) != run.finalRV {
		t.Errorf("informer_store_resource_version = %v, want the final resource version %s", v, run.finalRV)
	}
	h, pops, _ := s.observed(t, "informer_processing_latency_seconds", id)
	if pops < 4 {
		t.Errorf("informer_processing_latency_seconds counted %d pops, want at least 4 (list, two updates, relist, update)", pops)
	}
	checkBuckets(t, "informer_processing_latency_seconds", h, latencyBuckets)

	for _, c := range []struct {
		handler string
		count   int
	}{
		{"github.com/kcache-go/cache/internal/obstest.Counter", run.counter.Count()},
		{"github.com/kcache-go/cache/metrics/prometheus.otherCounter", run.other.Count()},
	} {
		hl := with(id, "handler", c.handler)
		if c.count < 6 {
			t.Errorf("handler %s saw %d notifications, want at least 6 (3 adds, 3 updates)", c.handler, c.count)
		}
		if v := s.added(t, "informer_handler_notifications_delivered_total", hl); v != float64(c.count) {
			t.Errorf("informer_handler_notifications_delivered_total{handler=%q} = %v, the handler counted %d", c.handler, v, c.count)
		}
		if v := s.now(t, "informer_handler_pending_notifications", hl); v != 0 {
			t.Errorf("informer_handler_pending_notifications{handler=%q} = %v after it caught up, want 0", c.handler, v)
		}
		lat, n, _ := s.observed(t, "informer_handler_delivery_latency_seconds", hl)
		if n != uint64(c.count) {
			t.Errorf("informer_handler_delivery_latency_seconds{handler=%q} counted %d, the handler counted %d", c.handler, n, c.count)
		}
		checkBuckets(t, "informer_handler_delivery_latency_seconds", lat, latencyBuckets)
	}
}

// checkReflectorMetrics checks the reflector_* families against the run.
func checkReflectorMetrics(t *testing.T, s scrapes, run *scriptedRun, reflectorName string) {
	if reflectorName == "" {
		t.Fatal("the informer's Reflector has no name")
	}
	r := map[string]string{"name": reflectorName}

	finalRV, _ := strconv.ParseFloat(run.finalRV, 64)
	if got := s.now(t, "reflector_last_resource_version", r); got != finalRV {
		t.Errorf("reflector_last_resource_version{name=%q} = %v, want %v", reflectorName, got, finalRV)
	}
	want := map[string]float64{"reflector_lists_total": 2, "reflector_watch_lists_total": 0, "reflector_watches_total": 1}
	for name, v := range want {
		if got := s.added(t, name, r); got != v {
			t.Errorf("%s{name=%q} grew by %v, want %v", name, reflectorName, got, v)
		}
	}
	for _, cause := range status.RelistCauses() {
		wantN := 0.0
		if cause == status.RelistCauseExpired {
			wantN = 1
		}
		if got := s.added(t, "reflector_relists_total", with(r, "cause", cause)); got != wantN {
			t.Errorf("reflector_relists_total{cause=%q} grew by %v, want %v", cause, got, wantN)
		}
	}
	if _, n, items := s.observed(t, "reflector_items_per_list", r); n != 2 || items != 6 {
		t.Errorf("reflector_items_per_list: %d lists, %v items; want 2 lists of 3 pods", n, items)
	}
	if _, n, _ := s.observed(t, "reflector_list_duration_seconds", r); n != 2 {
		t.Errorf("reflector_list_duration_seconds counted %d lists, want 2", n)
	}
	synced := s.now(t, "reflector_last_sync_timestamp_seconds", r)
	lo, hi := float64(run.started.UnixNano())/1e9, float64(run.ended.UnixNano())/1e9
	if synced < lo || synced > hi || math.IsNaN(synced) {
		t.Errorf("reflector_last_sync_timestamp_seconds = %v, want within the run [%v, %v]", synced, lo, hi)
	}
}

// checkBuckets compares the upper bounds of h with want.
func checkBuckets(t *testing.T, name string, h *dto.Histogram, want []float64) {
	t.Helper()
	var got []float64
	for _, b := range h.Bucket {
		if !math.IsInf(b.GetUpperBound(), 1) {
			got = append(got, b.GetUpperBound())
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s buckets %v, want %v", name, got, want)
	}
}

func TestRegisterTwiceOnOneRegistryIsNoErrorButAConflictingFamilyIs(t *testing.T) {
	reg := prometheus.NewRegistry()
	for i := 0; i < 2; i++ {
		if err := Register(reg); err != nil {
			t.Fatalf("registration %d: %v", i+1, err)
		}
	}
	clash := prometheus.NewRegistry()
	clash.MustRegister(prometheus.NewGauge(prometheus.GaugeOpts{Name: "informer_queued_items", Help: "someone else's"}))
	err := Register(clash)
	if err == nil || !strings.Contains(err.Error(), "informer_queued_items") {
		t.Fatalf("Register on a registry with a conflicting informer_queued_items returned %v, want an error naming it", err)
	}
}

func TestPublishingAHandlerDeliveryAllocatesNothing(t *testing.T) {
	name, err := cache.NewInformerName("metrics-allocs")
	if err != nil {
		t.Fatal(err)
	}
	defer name.Release()
	id := name.WithResource(schema.GroupVersionResource{Version: "v1", Resource: "pods"})
	p := InformerMetricsProvider().(cache.KcacheInformerMetricsProvider)
	latency, delivered := p.KcacheNewHandlerDeliveryLatencyMetric(id, "h"), p.KcacheNewHandlerDeliveredMetric(id, "h")
	backlog := p.KcacheNewPendingNotificationsMetric(id, "h")
	if allocs := testing.AllocsPerRun(1000, func() { latency.Observe(0.001); delivered.Inc(); backlog.Set(3) }); allocs != 0 {
		t.Errorf("publishing one delivery allocates %v times, want 0", allocs)
	}
}

func TestHandlersSharingANamePublishTheSumOfTheirBacklogs(t *testing.T) {
	reg := prometheus.NewRegistry()
	if err := Register(reg); err != nil {
		t.Fatal(err)
	}
	name, err := cache.NewInformerName("metrics-shared-handler-name")
	if err != nil {
		t.Fatal(err)
	}
	defer name.Release()
	id := name.WithResource(schema.GroupVersionResource{Version: "v1", Resource: "pods"})
	p := InformerMetricsProvider().(cache.KcacheInformerMetricsProvider)
	first, second := p.KcacheNewPendingNotificationsMetric(id, "same"), p.KcacheNewPendingNotificationsMetric(id, "same")
	labels := map[string]string{"name": "metrics-shared-handler-name", "handler": "same"}
	for _, step := range []struct {
		first, second, want float64
	}{{5, 0, 5}, {5, 7, 12}, {0, 7, 7}, {0, 0, 0}} {
		first.Set(step.first)
		second.Set(step.second)
		if got := value(series(t, scrape(t, reg), "informer_handler_pending_notifications", labels)); got != step.want {
			t.Errorf("backlogs %v and %v published as %v, want their sum %v", step.first, step.second, got, step.want)
		}
	}
}

// gatedInformer starts an informer named informerName over three pods with
// a gated handler whose backlog builds up to more than a delivery batch,
// and returns it with the gate, its registration and the stop function
// (also run by t.Cleanup), which stops the informer before it opens the
// gate, so that the handler's notifications not taken yet are dropped.
func gatedInformer(t *testing.T, informerName string) (cache.SharedIndexInformer, *obstest.Gate, cache.ResourceEventHandlerRegistration, func()) {
	name, err := cache.NewInformerName(informerName)
	if err != nil {
		t.Fatal(err)
	}
	inf := cache.NewSharedIndexInformerWithOptions(obstest.NewSource("ns", gatedBacklog), &v1.Pod{}, cache.SharedIndexInformerOptions{
		Identifier:              name.WithResource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}),
		InformerMetricsProvider: InformerMetricsProvider(),
	})
	gate := obstest.NewGate()
	reg, err := inf.AddEventHandler(gate)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { inf.RunWithContext(ctx) })
	stop := sync.OnceFunc(func() {
		cancel()
		obstest.Eventually(t, "the informer stopped", inf.IsStopped)
		gate.Open()
		wg.Wait()
		name.Release()
	})
	t.Cleanup(stop)
	obstest.Eventually(t, "the gated handler's backlog built up", func() bool {
		return reg.(interface{ KcachePendingNotifications() int }).KcachePendingNotifications() == gatedBacklog
	})
	return inf, gate, reg, stop
}

// gatedBacklog is the backlog gatedInformer builds: more notifications than
// a listener takes in one batch, so that some are still queued when it stops.
const gatedBacklog = 100

func TestARemovedHandlersDroppedNotificationsAreNoLongerPublishedAsPending(t *testing.T) {
	reg := prometheus.NewRegistry()
	if err := Register(reg); err != nil {
		t.Fatal(err)
	}
	inf, gate, handle, _ := gatedInformer(t, "metrics-removed-handler")
	labels := map[string]string{"name": "metrics-removed-handler", "handler": "github.com/kcache-go/cache/internal/obstest.Gate"}
	if got := value(series(t, scrape(t, reg), "informer_handler_pending_notifications", labels)); got != gatedBacklog {
		t.Fatalf("the gated handler's backlog is published as %v, want %d", got, gatedBacklog)
	}
	if err := inf.RemoveEventHandler(handle); err != nil {
		t.Fatal(err)
	}
	gate.Open()
	obstest.Eventually(t, "the removed handler's gauge went back to 0", func() bool {
		return value(series(t, scrape(t, reg), "informer_handler_pending_notifications", labels)) == 0
	})
}

func TestAStoppedInformersHandlersAreNoLongerPublishedAsPending(t *testing.T) {
	reg := prometheus.NewRegistry()
	if err := Register(reg); err != nil {
		t.Fatal(err)
	}
	_, _, _, stop := gatedInformer(t, "metrics-stopped-informer")
	labels := map[string]string{"name": "metrics-stopped-informer", "handler": "github.com/kcache-go/cache/internal/obstest.Gate"}
	stop() // stops the informer, opens the gate, waits, releases the name
	if got := value(series(t, scrape(t, reg), "informer_handler_pending_notifications", labels)); got != 0 {
		t.Errorf("after the informer stopped its handler's backlog is still published as %v, want 0", got)
	}
}

func TestARegisterThatFailsLeavesNoneOfItsFamiliesOnTheRegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(prometheus.NewGauge(prometheus.GaugeOpts{Name: "reflector_last_sync_timestamp_seconds", Help: "someone else's"}))
	if err := Register(reg); err == nil {
		t.Fatal("Register on a registry with a conflicting reflector_last_sync_timestamp_seconds succeeded")
	}
	for _, c := range families().all() {
		if c == prometheus.Collector(families().lastSyncTime) {
			continue // the clashing name: Unregister would remove the other gauge
		}
		if reg.Unregister(c) {
			t.Errorf("a family is left registered after the failed Register: %v", describe(c))
		}
	}
	if err := Register(prometheus.NewRegistry()); err != nil {
		t.Errorf("Register on a fresh registry after a failed one: %v", err)
	}
}

// describe names the first descriptor of c.
func describe(c prometheus.Collector) string {
	ch := make(chan *prometheus.Desc, 1)
	go func() { c.Describe(ch); close(ch) }()
	d := <-ch
	for range ch {
	}
	return d.String()
}

func TestAnInformerWithoutAnIdentifierPublishesNoSeries(t *testing.T) {
	reg := prometheus.NewRegistry()
	if err := Register(reg); err != nil {
		t.Fatal(err)
	}
	src := obstest.NewSource("ns", 3)
	inf := cache.NewSharedIndexInformerWithOptions(src, &v1.Pod{}, cache.SharedIndexInformerOptions{
		InformerMetricsProvider: InformerMetricsProvider(),
	})
	counter := &obstest.Counter{}
	handle, err := inf.AddEventHandler(counter)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { inf.RunWithContext(ctx) })
	defer func() { cancel(); wg.Wait() }()
	src.NextWatch(t)
	obstest.Eventually(t, "the handler got the three pods", func() bool { return handle.HasSynced() && counter.Count() == 3 })
	for name, f := range scrape(t, reg) {
		if !strings.HasPrefix(name, "informer_") {
			continue
		}
		for _, m := range f.Metric {
			if labelsInclude(m, map[string]string{"name": ""}) {
				t.Errorf("%s has a series for an informer without an Identifier: %v", name, m.Label)
			}
		}
	}
}
