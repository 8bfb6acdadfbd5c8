package cache

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kcache-go/cache/internal/reflectortest"
)

// reflectorScenarios loads the scenario files under testdata/reflector.
func reflectorScenarios(t *testing.T) []reflectortest.Scenario {
	t.Helper()
	scenarios, err := reflectortest.LoadScenarios(filepath.Join("testdata", "reflector"))
	if err != nil {
		t.Fatal(err)
	}
	return scenarios
}

// scenarioByName returns the named scenario.
func scenarioByName(t *testing.T, name string) reflectortest.Scenario {
	t.Helper()
	for _, sc := range reflectorScenarios(t) {
		if sc.Name == name {
			return sc
		}
	}
	t.Fatalf("no scenario %q", name)
	return reflectortest.Scenario{}
}

// externalTransformingStore is a TransformingStore the Reflector does not
// know: it only offers Replace.
type externalTransformingStore struct{ *reflectortest.Recorder }

func (s externalTransformingStore) Transformer() TransformFunc { return s.Recorder.Transform }

// kcacheTransformingStore is a TransformingStore that accepts transformed
// items, as kcache's queues do; it counts which Replace flavour is used.
type kcacheTransformingStore struct {
	*reflectortest.Recorder
	replaces, transformedReplaces *int
}

func (s kcacheTransformingStore) Transformer() TransformFunc { return s.Recorder.Transform }

func (s kcacheTransformingStore) Replace(list []interface{}, rv string) error {
	*s.replaces++
	for _, obj := range list {
		if _, err := s.Recorder.Transform(obj); err != nil {
			return err
		}
	}
	return s.Recorder.Replace(list, rv)
}

func (s kcacheTransformingStore) replaceTransformed(list []interface{}, rv string) error {
	*s.transformedReplaces++
	return s.Recorder.ReplaceTransformed(list, rv)
}

func (s kcacheTransformingStore) replacePartlyTransformed(_ []interface{}, _ string, _ int, failure error) error {
	*s.transformedReplaces++
	return failure
}

// buildReflector returns a factory of kcache Reflectors with a jitter-free
// backoff (or the default one when defaultBackoff is set) and the store
// chosen by wrap.
func buildReflector(defaultBackoff bool, wrap func(*reflectortest.Recorder) ReflectorStore) reflectortest.Factory {
	return func(s reflectortest.Setup) reflectortest.Reflector {
		var store ReflectorStore = s.Store
		switch {
		case wrap != nil:
			store = wrap(s.Store)
		case s.Scenario.Transforming:
			store = externalTransformingStore{s.Store}
		}
		options := ReflectorOptions{Name: "unit", Clock: s.Clock}
		if !defaultBackoff {
			options.Backoff = &wait.Backoff{Duration: time.Second, Factor: 2, Steps: 10, Cap: 30 * time.Second}
		}
		r := NewReflectorWithOptions(s.LW, s.ExpectedType, store, options)
		r.WatchListPageSize = s.Scenario.WatchListPageSize
		r.MaxInternalErrorRetryDuration = s.MaxInternalErrorRetryDuration
		return r
	}
}

func TestReflectorStoreEndsAtTheSourcesFinalStateInEveryScenario(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	checked := 0
	for _, sc := range reflectorScenarios(t) {
		for _, watchList := range sc.GateSettings() {
			want, ok := sc.ExpectedFinal(watchList)
			if !ok {
				continue
			}
			checked++
			t.Run(fmt.Sprintf("%s/watchList=%v", sc.Name, watchList), func(t *testing.T) {
				got := reflectortest.Play(sc, watchList, buildReflector(false, nil))
				if strings.Join(got.Final, " ") != strings.Join(want, " ") {
					t.Fatalf("store holds %v, want %v\ntrace:\n%s", got.Final, want, strings.Join(got.Trace, "\n"))
				}
			})
		}
	}
	if checked < 40 {
		t.Fatalf("only %d scenario plays state a final store content", checked)
	}
}

func TestPagedListIsTransformedAsPagesArriveAndReplacedOnceWithoutTransformingAgain(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	sc := reflectortest.Scenario{
		Name:         "paged-transform",
		Transforming: true,
		Lists: []reflectortest.ListStep{
			{ResourceVersion: "10", Continue: "t1", Items: []reflectortest.Object{{Name: "a", ResourceVersion: "1", Labels: map[string]string{"big": "x"}}}},
			{ResourceVersion: "10", Continue: "t2", Items: []reflectortest.Object{{Name: "b", ResourceVersion: "2", Labels: map[string]string{"big": "y"}}}},
			{ResourceVersion: "10", Items: []reflectortest.Object{{Name: "c", ResourceVersion: "3", Labels: map[string]string{"big": "z"}}}},
		},
	}
	var replaces, transformedReplaces int
	wrap := func(r *reflectortest.Recorder) ReflectorStore {
		return kcacheTransformingStore{Recorder: r, replaces: &replaces, transformedReplaces: &transformedReplaces}
	}
	got := reflectortest.Play(sc, false, buildReflector(false, wrap))
	if got.TransformCalls != 3 {
		t.Errorf("transform ran %d times, want once per listed object (3)", got.TransformCalls)
	}
	if replaces != 0 || transformedReplaces != 1 {
		t.Errorf("Replace called %d times and replaceTransformed %d times, want 0 and 1", replaces, transformedReplaces)
	}
	if want := []string{"ns/a@1", "ns/b@2", "ns/c@3"}; strings.Join(got.Final, " ") != strings.Join(want, " ") {
		t.Errorf("store holds %v, want the transformed %v", got.Final, want)
	}
}

func TestWatchListTransformsWhileStreamingAndReplacesWithoutTransformingAgain(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	sc := scenarioByName(t, "053_watchlist_transforming_store_transforms_while_streaming")
	var replaces, transformedReplaces int
	wrap := func(r *reflectortest.Recorder) ReflectorStore {
		return kcacheTransformingStore{Recorder: r, replaces: &replaces, transformedReplaces: &transformedReplaces}
	}
	got := reflectortest.Play(sc, true, buildReflector(false, wrap))
	if got.TransformCalls != 2 {
		t.Errorf("transform ran %d times, want once per streamed object (2)", got.TransformCalls)
	}
	if replaces != 0 || transformedReplaces != 1 {
		t.Errorf("Replace called %d times and replaceTransformed %d times, want 0 and 1", replaces, transformedReplaces)
	}
}

func TestExternalTransformingStoreReceivesUntransformedListItems(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	sc := scenarioByName(t, "054_list_transforming_store_gets_untransformed_items")
	got := reflectortest.Play(sc, false, buildReflector(false, nil))
	if got.TransformCalls != 0 {
		t.Fatalf("the Reflector ran an external store's transform %d times, want 0 (the store transforms)", got.TransformCalls)
	}
}

func TestWatchBackoffAfterThrottlingFollowsTheDefaultScheduleOnTheFakeClock(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	sc := reflectortest.Scenario{
		Name:  "throttled",
		Lists: []reflectortest.ListStep{{ResourceVersion: "10"}},
	}
	// Seven throttled attempts reach the cap; the fake time spent stays
	// under the two minutes after which the delay would start over.
	for i := 0; i < 7; i++ {
		sc.Watches = append(sc.Watches, reflectortest.WatchStep{Error: "tooManyRequests"})
	}
	got := reflectortest.Play(sc, false, buildReflector(true, nil))
	if len(got.Waited) != 7 {
		t.Fatalf("waited %d times, want 7: %v", len(got.Waited), got.Waited)
	}
	base := reflectorBackoffInitial
	for i, d := range got.Waited {
		lo := min(base, reflectorBackoffCap)
		if d < lo || d > 2*lo {
			t.Fatalf("wait %d = %v, want within [%v, %v] (800ms doubling, jitter 1.0, cap 30s)", i, d, lo, 2*lo)
		}
		base *= 2
	}
}

func TestReflectorDescribesItsExpectedType(t *testing.T) {
	deployment := &unstructured.Unstructured{}
	deployment.SetAPIVersion("apps/v1")
	deployment.SetKind("Deployment")
	kindOnly := &unstructured.Unstructured{}
	kindOnly.SetKind("Deployment")
	cases := []struct {
		name         string
		expectedType interface{}
		want         string
		wantGVK      bool
	}{
		{"nil", nil, "<unspecified>", false},
		{"a typed pointer", &v1.Pod{}, "*v1.Pod", false},
		{"a typed value", v1.Pod{}, "v1.Pod", false},
		{"an unstructured object with apiVersion and kind", deployment, "apps/v1, Kind=Deployment", true},
		{"an unstructured object with a kind only", kindOnly, "/, Kind=Deployment", true},
		{"an empty unstructured object", &unstructured.Unstructured{}, "*unstructured.Unstructured", false},
		{"an unstructured list", &unstructured.UnstructuredList{}, "*unstructured.UnstructuredList", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReflector(&ListWatch{}, tc.expectedType, NewStore(MetaNamespaceKeyFunc), 0)
			if got := r.TypeDescription(); got != tc.want {
				t.Errorf("TypeDescription() = %q, want %q", got, tc.want)
			}
			if (r.objectKind != nil) != tc.wantGVK {
				t.Errorf("expected GVK = %v, want set: %v", r.objectKind, tc.wantGVK)
			}
		})
	}
	named := NewReflectorWithOptions(&ListWatch{}, &v1.Pod{}, NewStore(MetaNamespaceKeyFunc), ReflectorOptions{Name: "mine", TypeDescription: "pods"})
	if named.Name() != "mine" || named.TypeDescription() != "pods" {
		t.Errorf("options ignored: name %q, type %q", named.Name(), named.TypeDescription())
	}
}

func TestReflectorNameDefaultsToTheCallersFileAndLine(t *testing.T) {
	r := NewReflector(&ListWatch{}, &v1.Pod{}, NewStore(MetaNamespaceKeyFunc), 0) // the line below is this line + 1
	_, reflector := NewNamespaceKeyedIndexerAndReflector(&ListWatch{}, &v1.Pod{}, 0)
	named := NewNamedReflector("given", &ListWatch{}, &v1.Pod{}, NewStore(MetaNamespaceKeyFunc), 0)
	if !strings.HasSuffix(r.Name(), "reflector_test.go:"+fmt.Sprint(lineOf(t, r.Name()))) || !strings.Contains(r.Name(), "reflector_test.go:") {
		t.Fatalf("name %q is not this file:line", r.Name())
	}
	if lineOf(t, reflector.Name()) != lineOf(t, r.Name())+1 {
		t.Fatalf("NewNamespaceKeyedIndexerAndReflector named %q, want the next line of %q", reflector.Name(), r.Name())
	}
	if named.Name() != "given" {
		t.Fatalf("NewNamedReflector named %q", named.Name())
	}
}

// lineOf extracts the line number of a "file:line" name.
func lineOf(t *testing.T, name string) int {
	t.Helper()
	var line int
	if _, err := fmt.Sscanf(name[strings.LastIndex(name, ":")+1:], "%d", &line); err != nil {
		t.Fatalf("name %q has no line: %v", name, err)
	}
	return line
}

func TestNamespaceKeyedIndexerIndexesByNamespace(t *testing.T) {
	indexer, _ := NewNamespaceKeyedIndexerAndReflector(&ListWatch{}, &v1.Pod{}, 0)
	for _, p := range []*v1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "1"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "2"}},
	} {
		if err := indexer.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	got, err := indexer.ByIndex(NamespaceIndex, "a")
	if err != nil || len(got) != 1 || got[0].(*v1.Pod).Name != "1" {
		t.Fatalf("ByIndex(namespace, a) = %v, %v", got, err)
	}
}

func TestVeryShortWatchErrorNamesTheReflector(t *testing.T) {
	err := &VeryShortWatchError{Name: "foo"}
	want := "very short watch: foo: Unexpected watch close - watch lasted less than a second and no items received"
	if err.Error() != want {
		t.Fatalf("Error() = %q, want %q", err.Error(), want)
	}
}

// timerSignalClock is a fake clock that announces every new timer.
type timerSignalClock struct {
	*clocktesting.FakeClock
	timers chan time.Duration
}

func (c timerSignalClock) NewTimer(d time.Duration) clock.Timer {
	t := c.FakeClock.NewTimer(d)
	c.timers <- d
	return t
}

// countingStore counts Resync calls.
type countingStore struct {
	Store
	mu      sync.Mutex
	resyncs int
	fail    error
}

func (s *countingStore) Resync() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resyncs++
	return s.fail
}

func (s *countingStore) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resyncs
}

// silentListerWatcher lists nothing at RV 1 and watches silently until stopped.
type silentListerWatcher struct{ watches chan struct{} }

func (l silentListerWatcher) List(metav1.ListOptions) (runtime.Object, error) {
	return &v1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}, nil
}

func (l silentListerWatcher) Watch(metav1.ListOptions) (watch.Interface, error) {
	l.watches <- struct{}{}
	return watch.NewFake(), nil
}

func (l silentListerWatcher) IsWatchListSemanticsUnSupported() bool { return true }

func TestResyncRunsEveryPeriodWhileShouldResyncAgrees(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	clk := timerSignalClock{clocktesting.NewFakeClock(time.Unix(0, 0)), make(chan time.Duration, 16)}
	store := &countingStore{Store: NewStore(MetaNamespaceKeyFunc)}
	lw := silentListerWatcher{watches: make(chan struct{}, 4)}
	r := NewReflectorWithOptions(lw, &v1.Pod{}, store, ReflectorOptions{ResyncPeriod: time.Minute, Clock: clk})
	allow := []bool{true, false, true}
	var asked int
	r.ShouldResync = func() bool { asked++; return allow[asked-1] }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- r.ListAndWatchWithContext(ctx) }()
	<-lw.watches
	for i := range allow {
		if d := <-clk.timers; d != time.Minute {
			t.Fatalf("resync timer %d is %v, want 1m", i, d)
		}
		clk.Step(time.Minute)
	}
	<-clk.timers // the timer after the third resync exists, so the third resync is done
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("ListAndWatch returned %v", err)
	}
	if store.count() != 2 || asked != 3 {
		t.Fatalf("Resync ran %d times after %d questions, want 2 of 3", store.count(), asked)
	}
}

func TestResyncErrorEndsTheWatch(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	clk := timerSignalClock{clocktesting.NewFakeClock(time.Unix(0, 0)), make(chan time.Duration, 16)}
	store := &countingStore{Store: NewStore(MetaNamespaceKeyFunc), fail: errors.New("resync failed")}
	lw := silentListerWatcher{watches: make(chan struct{}, 4)}
	r := NewReflectorWithOptions(lw, &v1.Pod{}, store, ReflectorOptions{ResyncPeriod: time.Second, Clock: clk})
	done := make(chan error)
	go func() { done <- r.ListAndWatchWithContext(context.Background()) }()
	<-lw.watches
	<-clk.timers
	clk.Step(time.Second)
	if err := <-done; err != nil {
		t.Fatalf("ListAndWatch returned %v, want nil (the next round relists)", err)
	}
	if store.count() != 1 {
		t.Fatalf("Resync ran %d times, want 1", store.count())
	}
}

// failingListerWatcher fails every List, announcing each on lists until
// stopped is closed.
type failingListerWatcher struct {
	lists   chan struct{}
	stopped chan struct{}
}

func (l failingListerWatcher) List(metav1.ListOptions) (runtime.Object, error) {
	select {
	case l.lists <- struct{}{}:
	case <-l.stopped:
	}
	return nil, errors.New("down")
}

func (l failingListerWatcher) Watch(metav1.ListOptions) (watch.Interface, error) {
	return nil, errors.New("down")
}

func TestRunHandsEveryFailedRoundToTheErrorHandlerUntilStopped(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	lw := failingListerWatcher{lists: make(chan struct{}), stopped: make(chan struct{})}
	r := NewReflectorWithOptions(ToListWatcherWithWatchListSemantics(&ListWatch{ListFunc: lw.List, WatchFunc: lw.Watch}, unsupportingClient{}),
		&v1.Pod{}, NewStore(MetaNamespaceKeyFunc), ReflectorOptions{Backoff: &wait.Backoff{Duration: time.Millisecond, Factor: 1, Steps: 1}})
	errs := make(chan error, 8)
	r.watchErrorHandler = func(_ context.Context, got *Reflector, err error) {
		if got != r {
			t.Errorf("handler called with another reflector")
		}
		errs <- err
	}
	stop := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		r.Run(stop)
		close(finished)
	}()
	for i := 0; i < 3; i++ {
		<-lw.lists
		if err := <-errs; err == nil || !strings.Contains(err.Error(), "failed to list *v1.Pod: down") {
			t.Fatalf("round %d handed %v to the handler", i, err)
		}
	}
	close(stop)
	// NB: Run may return while a List it started is still running on its
	// own goroutine (client-go's Run does too); that List must be able to
	// finish, so it is released rather than its channel closed under it.
	close(lw.stopped)
	<-finished
}

// recordingMetrics records every observation by metric name.
type recordingMetrics struct {
	mu   sync.Mutex
	seen map[string][]float64
}

type recordingMetric struct {
	m    *recordingMetrics
	name string
}

func (r recordingMetric) add(v float64) {
	r.m.mu.Lock()
	defer r.m.mu.Unlock()
	r.m.seen[r.name] = append(r.m.seen[r.name], v)
}
func (r recordingMetric) Inc()              { r.add(1) }
func (r recordingMetric) Observe(v float64) { r.add(v) }
func (r recordingMetric) Set(v float64)     { r.add(v) }

func (m *recordingMetrics) metric(name string) recordingMetric  { return recordingMetric{m, name} }
func (m *recordingMetrics) NewListsMetric(string) CounterMetric { return m.metric("lists") }
func (m *recordingMetrics) NewListDurationMetric(string) SummaryMetric {
	return m.metric("listDuration")
}
func (m *recordingMetrics) NewItemsInListMetric(string) SummaryMetric { return m.metric("itemsInList") }
func (m *recordingMetrics) NewWatchesMetric(string) CounterMetric     { return m.metric("watches") }
func (m *recordingMetrics) NewShortWatchesMetric(string) CounterMetric {
	return m.metric("shortWatches")
}
func (m *recordingMetrics) NewWatchDurationMetric(string) SummaryMetric {
	return m.metric("watchDuration")
}
func (m *recordingMetrics) NewItemsInWatchMetric(string) SummaryMetric {
	return m.metric("itemsInWatch")
}
func (m *recordingMetrics) NewLastResourceVersionMetric(string) GaugeMetric {
	return m.metric("lastResourceVersion")
}

func TestReflectorReportsWatchListSyncsToItsMetrics(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	provider := &recordingMetrics{seen: map[string][]float64{}}
	sc := scenarioByName(t, "051_watchlist_deletes_and_updates_during_initial_events")
	build := func(s reflectortest.Setup) reflectortest.Reflector {
		r := buildReflector(false, nil)(s).(*Reflector)
		r.metrics = newReflectorMetricsFrom(provider, r.label)
		return r
	}
	reflectortest.Play(sc, true, build)
	if got := fmt.Sprint(provider.seen["itemsInList"]); got != "[2]" {
		t.Errorf("itemsInList observed %s, want [2] (b and c survive the initial events)", got)
	}
	if got := fmt.Sprint(provider.seen["lists"]); got != "[1]" {
		t.Errorf("lists observed %s, want [1]", got)
	}
}

func TestReflectorReportsListsWatchesAndResourceVersionsToItsMetrics(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	provider := &recordingMetrics{seen: map[string][]float64{}}
	sc := scenarioByName(t, "021_very_short_watch_relists")
	build := func(s reflectortest.Setup) reflectortest.Reflector {
		r := buildReflector(false, nil)(s).(*Reflector)
		r.metrics = newReflectorMetricsFrom(provider, r.label)
		return r
	}
	reflectortest.Play(sc, false, build)
	want := map[string]string{
		"lists":               "[1 1]",
		"itemsInList":         "[1 2]",
		"watches":             "[1 1]",
		"shortWatches":        "[1]",
		"itemsInWatch":        "[0 0]",
		"lastResourceVersion": "[10 20]",
	}
	for name, w := range want {
		if got := fmt.Sprint(provider.seen[name]); got != w {
			t.Errorf("%s observed %s, want %s", name, got, w)
		}
	}
}

func (s kcacheTransformingStore) checkReplaceKey(interface{}) error { return nil }

func (s kcacheTransformingStore) keysBeforeTransform() bool { return false }
