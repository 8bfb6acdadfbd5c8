package reflectortest

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"

	"github.com/go-logr/logr/funcr"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/util/consistencydetector"
	"k8s.io/utils/clock"
)

// Reflector is what Play drives: kcache's and client-go's *Reflector both
// satisfy it.
type Reflector interface {
	ListAndWatchWithContext(ctx context.Context) error
	LastSyncResourceVersion() string
}

// Setup is what a Factory builds a Reflector from.
type Setup struct {
	// LW is the scripted ListerWatcher.
	LW *ListerWatcher
	// Store records every call; wrap it when Scenario.Transforming is set.
	Store *Recorder
	// Clock is a fake clock whose timers fire as soon as they are created.
	Clock clock.WithTicker
	// ExpectedType is the expectedType argument for the Reflector.
	ExpectedType interface{}
	// Scenario is the scenario being played (for its Reflector settings).
	Scenario Scenario
	// MaxInternalErrorRetryDuration is the parsed scenario setting.
	MaxInternalErrorRetryDuration time.Duration
}

// Factory builds the Reflector under test. It runs with the WatchListClient
// gate already set for the play.
type Factory func(s Setup) Reflector

// Result is what a play observed.
type Result struct {
	// Trace lists the ListerWatcher calls, store calls and round endings in order.
	Trace []string
	// Final is the store content at the end ("ns/name@rv", sorted).
	Final []string
	// TransformCalls counts calls of the scenario's transform.
	TransformCalls int
	// Waited lists the durations the Reflector waited on its clock.
	Waited []time.Duration
	// Queued lists what a scenario's queue held at the end, in pop order
	// (see Drainer).
	Queued []string
	// Logs lists what the Reflector logged through the rounds' context
	// logger (every verbosity), in order.
	Logs []string
}

// Drainer is implemented by a Reflector a Factory built on a real queue
// (Scenario.Queue): Drain closes the queue and pops everything, describing
// each delta as "Type:object" (see DescribeDelta).
type Drainer interface {
	Drain() []string
}

// Play runs sc against the Reflector build makes, with the WatchListClient
// gate set to watchList, calling ListAndWatchWithContext until a script runs
// out (the round in progress is then stopped) or the round limit is reached.
func Play(sc Scenario, watchList bool, build Factory) Result {
	restoreGate := setWatchListGate(watchList)
	defer restoreGate()
	if sc.ConsistencyDetector {
		defer consistencydetector.SetDataConsistencyDetectionForWatchListEnabledForTest(true)()
	}
	trace := &Trace{}
	pump := NewPumpClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	defer pump.Stop()
	logs := &Trace{}
	logger := funcr.New(func(prefix, args string) { logs.Add(strings.TrimSpace(prefix + " " + args)) }, funcr.Options{Verbosity: 10})
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	defer cancel()
	lw := NewListerWatcher(sc, trace, pump.FakeClock, cancel)
	store := NewRecorder(trace)
	store.FailNextReplaces(sc.FailReplaces)
	store.RefuseTransformOf(sc.TransformFailOn)
	retry, _ := sc.internalRetry()
	r := build(Setup{LW: lw, Store: store, Clock: pump, ExpectedType: sc.expectedType(), Scenario: sc, MaxInternalErrorRetryDuration: retry})
	rounds := sc.Rounds
	if rounds == 0 {
		rounds = 8
	}
	for round := 1; round <= rounds && ctx.Err() == nil; round++ {
		err, panicked := playRound(ctx, r)
		if panicked != nil {
			trace.Add(fmt.Sprintf("ROUND %d -> PANIC %T: %v", round, panicked, panicked))
			break
		}
		trace.Add(fmt.Sprintf("ROUND %d -> %s lastSyncRV=%q", round, errorText(err), r.LastSyncResourceVersion()))
	}
	cancel()
	lw.Release()
	lw.Wait()
	var queued []string
	if d, ok := r.(Drainer); ok {
		queued = d.Drain()
	}
	return Result{Trace: trace.Lines(), Final: store.Content(), TransformCalls: store.TransformCalls(), Waited: pump.Waited(), Queued: queued, Logs: logs.Lines()}
}

// playRound runs one ListAndWatch round and returns its error, or what it
// panicked with.
func playRound(ctx context.Context, r Reflector) (err error, panicked interface{}) {
	defer func() { panicked = recover() }()
	return r.ListAndWatchWithContext(ctx), nil
}

// errorText renders a round's error.
func errorText(err error) string {
	if err == nil {
		return "nil"
	}
	return fmt.Sprintf("%T: %v", err, err)
}

// expectedType is the expectedType argument the scenario asks for.
func (sc Scenario) expectedType() interface{} {
	switch sc.ExpectedType {
	case "none":
		return nil
	case "unstructured":
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("v1")
		u.SetKind("Pod")
		return u
	}
	return &v1.Pod{}
}

// watchListGates overrides WatchListClient and defers every other gate.
type watchListGates struct {
	// base answers every other feature.
	base clientfeatures.Gates
	// watchList is the WatchListClient setting.
	watchList bool
}

// Enabled implements clientfeatures.Gates.
func (g watchListGates) Enabled(key clientfeatures.Feature) bool {
	if key == clientfeatures.WatchListClient {
		return g.watchList
	}
	return g.base.Enabled(key)
}

// gateMu serialises plays, since the feature gates are process-wide.
var gateMu sync.Mutex

// setWatchListGate sets WatchListClient for the process and returns the
// function restoring the previous gates.
func setWatchListGate(on bool) func() {
	gateMu.Lock()
	base := clientfeatures.FeatureGates()
	clientfeatures.ReplaceFeatureGates(watchListGates{base: base, watchList: on})
	return func() {
		clientfeatures.ReplaceFeatureGates(base)
		gateMu.Unlock()
	}
}

// Trace is an append-only, concurrency-safe list of lines.
type Trace struct {
	mu    sync.Mutex
	lines []string
}

// Add appends a line.
func (t *Trace) Add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, line)
}

// Lines returns a copy of the lines.
func (t *Trace) Lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.lines...)
}

// Describe renders an object as "ns/name@rv", with its labels and its Go
// type when it is not a Pod.
func Describe(obj interface{}) string {
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return fmt.Sprintf("<%T>", obj)
	}
	var b strings.Builder
	if ns := accessor.GetNamespace(); ns != "" {
		b.WriteString(ns + "/")
	}
	b.WriteString(accessor.GetName() + "@" + accessor.GetResourceVersion())
	if labels := accessor.GetLabels(); len(labels) > 0 {
		keys := make([]string, 0, len(labels))
		for k, v := range labels {
			keys = append(keys, k+"="+v)
		}
		sort.Strings(keys)
		b.WriteString("{" + strings.Join(keys, ",") + "}")
	}
	if _, isPod := obj.(*v1.Pod); !isPod {
		b.WriteString(fmt.Sprintf("(%T)", obj))
	}
	return b.String()
}

// describeOptions renders the options of a List or Watch call; the watch
// timeout is shown as "in-range" when within [5m, 10m].
func describeOptions(verb string, o metav1.ListOptions) string {
	timeout := "nil"
	if o.TimeoutSeconds != nil {
		timeout = fmt.Sprintf("OUT-OF-RANGE(%d)", *o.TimeoutSeconds)
		if *o.TimeoutSeconds >= 300 && *o.TimeoutSeconds <= 600 {
			timeout = "in-range"
		}
	}
	sie := "nil"
	if o.SendInitialEvents != nil {
		sie = fmt.Sprint(*o.SendInitialEvents)
	}
	return fmt.Sprintf("%s rv=%q match=%q limit=%d continue=%q bookmarks=%v sendInitialEvents=%s timeout=%s watch=%v labels=%q fields=%q",
		verb, o.ResourceVersion, o.ResourceVersionMatch, o.Limit, o.Continue, o.AllowWatchBookmarks, sie, timeout, o.Watch, o.LabelSelector, o.FieldSelector)
}

// metaAccessor is meta.Accessor, named for the event builder.
func metaAccessor(obj runtime.Object) (metav1.Object, error) {
	return meta.Accessor(obj)
}

var _ watch.Interface = &scriptedWatch{}
