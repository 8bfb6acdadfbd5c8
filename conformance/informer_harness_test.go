package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/features"
	featuretesting "k8s.io/client-go/features/testing"
)

// informerScenario is one scenario file of testdata/informer: a scripted
// source (successive list responses; watch events driven by steps) and the
// steps played against a shared index informer.
type informerScenario struct {
	// Name describes the scenario.
	Name string `json:"name"`
	// Modes restricts the queue modes the scenario runs in; empty means all.
	Modes []string `json:"modes,omitempty"`
	// Note explains a restriction of Modes.
	Note string `json:"note,omitempty"`
	// Resync is the informer's default resync period ("" = 0).
	Resync string `json:"resync,omitempty"`
	// Transform names a transform from informerTransforms, set before start.
	Transform string `json:"transform,omitempty"`
	// Indexers names indexers from informerIndexers, given at construction.
	Indexers []string `json:"indexers,omitempty"`
	// Lists are the successive List responses; the last one repeats.
	Lists []informerListResponse `json:"lists"`
	// Steps are played in order; after each one the bubble settles and
	// the sync state is recorded.
	Steps []informerStep `json:"steps"`
}

// informerListResponse is one List result.
type informerListResponse struct {
	// RV is the list's resource version.
	RV string `json:"rv"`
	// Pods are pod specs, see informerParsePod.
	Pods []string `json:"pods"`
}

// informerStep is one action of a scenario.
type informerStep struct {
	// Op is one of: handler, start, add, modify, delete, bookmark, gone,
	// close, sleep, remove, release, check, addIndexers, lateTransform.
	Op string `json:"op"`
	// Name names the handler of handler/remove/release.
	Name string `json:"name,omitempty"`
	// Resync is a handler's requested period; absent uses the default.
	Resync *string `json:"resync,omitempty"`
	// Filter wraps the handler in a FilteringResourceEventHandler with the
	// named filter of informerFilters.
	Filter string `json:"filter,omitempty"`
	// Blocked makes the handler block on its first call until release.
	Blocked bool `json:"blocked,omitempty"`
	// BlockOn makes the handler block, until release, on its first call
	// whose rendering contains this text (e.g. "ns/c@11").
	BlockOn string `json:"blockOn,omitempty"`
	// Pod is the pod spec of add/modify/delete.
	Pod string `json:"pod,omitempty"`
	// RV is the resource version of a bookmark.
	RV string `json:"rv,omitempty"`
	// Duration is the fake time a sleep lets pass.
	Duration string `json:"duration,omitempty"`
	// Indexers names indexers for addIndexers.
	Indexers []string `json:"indexers,omitempty"`
}

// informerLoadScenarios reads every scenario file of dir, sorted by name.
func informerLoadScenarios(t *testing.T, dir string) []informerScenario {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	var out []informerScenario
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var sc informerScenario
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&sc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if sc.Name == "" {
			sc.Name = strings.TrimSuffix(filepath.Base(f), ".json")
		}
		out = append(out, sc)
	}
	return out
}

// informerParsePod turns "name@rv", "ns/name@rv" or "name@rv:label=value"
// into a pod (namespace "ns" by default).
func informerParsePod(spec string) *v1.Pod {
	labels := map[string]string{}
	if i := strings.IndexByte(spec, ':'); i >= 0 {
		for _, kv := range strings.Split(spec[i+1:], ",") {
			k, v, _ := strings.Cut(kv, "=")
			labels[k] = v
		}
		spec = spec[:i]
	}
	name, rv, _ := strings.Cut(spec, "@")
	ns := "ns"
	if i := strings.IndexByte(name, '/'); i >= 0 {
		ns, name = name[:i], name[i+1:]
	}
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv}}
	if len(labels) > 0 {
		p.Labels = labels
	}
	return p
}

// informerDescribe renders an object handed to a handler or found in the
// cache. Tombstones of either library render alike.
func informerDescribe(obj interface{}) string {
	switch o := obj.(type) {
	case *v1.Pod:
		s := o.Namespace + "/" + o.Name + "@" + o.ResourceVersion
		if len(o.Labels) > 0 {
			keys := make([]string, 0, len(o.Labels))
			for k := range o.Labels {
				keys = append(keys, k+"="+o.Labels[k])
			}
			sort.Strings(keys)
			s += ":" + strings.Join(keys, ",")
		}
		if len(o.Annotations) > 0 {
			s += fmt.Sprintf("(%d annotations)", len(o.Annotations))
		}
		return s
	case nil:
		return "<nil>"
	}
	for _, decode := range informerTombstoneDecoders {
		if key, inner, ok := decode(obj); ok {
			return "tombstone(" + key + " " + informerDescribe(inner) + ")"
		}
	}
	return fmt.Sprintf("%T", obj)
}

// informerTombstoneDecoders recognise the DeletedFinalStateUnknown of each
// library; the adapters register theirs.
var informerTombstoneDecoders []func(obj interface{}) (key string, inner interface{}, ok bool)

// informerScriptedSource is a deterministic ListerWatcher: List returns the
// scripted responses in turn (repeating the last), Watch returns a fake
// watcher the steps drive. Unless watchList is set it declines WatchList
// semantics, so both reflectors list and then watch; with watchList, a
// Watch asking for initial events serves the next list response as Added
// events followed by the initial-events-end bookmark.
type informerScriptedSource struct {
	// watchList makes the source support WatchList semantics.
	watchList bool

	mu sync.Mutex
	// lists are the responses not yet returned (the last one stays).
	lists []informerListResponse
	// calls records every List and Watch call with its options.
	calls []string
	// watchers receives each watcher Watch returns.
	watchers chan *watch.FakeWatcher
}

func (s *informerScriptedSource) List(options metav1.ListOptions) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, fmt.Sprintf("list rv=%q limit=%d", options.ResourceVersion, options.Limit))
	resp := s.lists[0]
	if len(s.lists) > 1 {
		s.lists = s.lists[1:]
	}
	list := &v1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: resp.RV}}
	for _, spec := range resp.Pods {
		list.Items = append(list.Items, *informerParsePod(spec))
	}
	return list, nil
}

func (s *informerScriptedSource) Watch(options metav1.ListOptions) (watch.Interface, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	initial := options.SendInitialEvents != nil && *options.SendInitialEvents
	s.calls = append(s.calls, fmt.Sprintf("watch rv=%q bookmarks=%v initial-events=%v", options.ResourceVersion, options.AllowWatchBookmarks, initial))
	w := watch.NewFakeWithChanSize(100, false)
	if initial {
		resp := s.lists[0]
		if len(s.lists) > 1 {
			s.lists = s.lists[1:]
		}
		for _, spec := range resp.Pods {
			w.Add(informerParsePod(spec))
		}
		end := &v1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: resp.RV, Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}}
		w.Action(watch.Bookmark, end)
	}
	s.watchers <- w
	return w, nil
}

// IsWatchListSemanticsUnSupported makes both reflectors use List+Watch
// unless the source plays WatchList.
func (s *informerScriptedSource) IsWatchListSemanticsUnSupported() bool { return !s.watchList }

// informerRecorder is an event handler that records what it is told. When
// blocked, its first call (or, with blockOn, its first call about that
// object) waits for release.
type informerRecorder struct {
	mu     sync.Mutex
	events []string
	// gate, when non-nil, is waited on by the first call.
	gate chan struct{}
	// blockOn, when set, limits the waiting to calls whose rendering
	// contains it.
	blockOn string
}

func (r *informerRecorder) record(s string) {
	if r.gate != nil && (r.blockOn == "" || strings.Contains(s, r.blockOn)) {
		<-r.gate
	}
	r.mu.Lock()
	r.events = append(r.events, s)
	r.mu.Unlock()
}

// mark appends a step boundary, so that normalisation never reorders
// notifications across steps.
func (r *informerRecorder) mark(step int) {
	r.mu.Lock()
	r.events = append(r.events, fmt.Sprintf("-- after step %d", step))
	r.mu.Unlock()
}

func (r *informerRecorder) OnAdd(obj interface{}, initial bool) {
	r.record(fmt.Sprintf("add %s initial=%v", informerDescribe(obj), initial))
}
func (r *informerRecorder) OnUpdate(oldObj, newObj interface{}) {
	r.record(fmt.Sprintf("update %s -> %s", informerDescribe(oldObj), informerDescribe(newObj)))
}
func (r *informerRecorder) OnDelete(obj interface{}) {
	r.record("delete " + informerDescribe(obj))
}

// informerUnderTest is what the runner needs from a shared index informer;
// one adapter per library implements it.
type informerUnderTest interface {
	// addHandler registers r, optionally filtered, with resync (nil =
	// default) and returns a registration id.
	addHandler(r *informerRecorder, filter func(interface{}) bool, resync *time.Duration) (informerRegistration, error)
	remove(reg informerRegistration) error
	run(ctx context.Context)
	hasSynced() bool
	cacheContents() []string
	byIndex(index, value string) []string
	addIndexers(names []string) error
	setTransform(fn func(interface{}) (interface{}, error)) error
	lastSyncResourceVersion() string
	storeResourceVersion() string
	isStopped() bool
}

// informerRegistration is a library's registration handle.
type informerRegistration interface{ HasSynced() bool }

// informerBuilder makes an informer of one library for a scenario.
type informerBuilder func(lw *informerScriptedSource, resync time.Duration, indexers []string) informerUnderTest

// informerTransforms are the transforms scenarios can name. Each is
// idempotent and mutates in place, as TransformFunc allows.
var informerTransforms = map[string]func(obj interface{}) (interface{}, error){
	"strip-labels": func(obj interface{}) (interface{}, error) {
		if p, ok := obj.(*v1.Pod); ok {
			p.Labels = nil
		}
		return obj, nil
	},
	"mark-transformed": func(obj interface{}) (interface{}, error) {
		if p, ok := obj.(*v1.Pod); ok {
			if p.Labels == nil {
				p.Labels = map[string]string{}
			}
			p.Labels["transformed"] = "yes"
		}
		return obj, nil
	},
}

// informerFilters are the filters scenarios can name.
var informerFilters = map[string]func(obj interface{}) bool{
	"app=web": func(obj interface{}) bool {
		p, ok := obj.(*v1.Pod)
		return ok && p.Labels["app"] == "web"
	},
}

// informerIndexFuncs are the index functions scenarios can name.
var informerIndexFuncs = map[string]func(obj interface{}) ([]string, error){
	"by-app": func(obj interface{}) ([]string, error) {
		p, ok := obj.(*v1.Pod)
		if !ok || p.Labels["app"] == "" {
			return nil, nil
		}
		return []string{p.Labels["app"]}, nil
	},
}

// informerTrace is everything a play observed.
type informerTrace struct {
	// Handlers maps each handler name to its notifications, with runs of
	// order-unspecified notifications sorted (see informerNormalize).
	Handlers map[string][]string
	// Syncs records, after every step, the informer's and every
	// registration's HasSynced.
	Syncs []string
	// Checks records the cache (and index) contents at each check step.
	Checks []string
	// Errors records the error results of the API calls made by steps.
	Errors []string
	// TransformCalls counts calls of the scenario's transform.
	TransformCalls int
	// SourceCalls are the List and Watch calls with their options.
	SourceCalls []string
}

// informerPlay runs sc against the informer build makes, inside a synctest
// bubble, and returns the trace.
func informerPlay(t *testing.T, sc informerScenario, build informerBuilder) informerTrace {
	var trace informerTrace
	synctest.Test(t, func(t *testing.T) {
		trace = informerPlayInBubble(t, sc, build)
	})
	return trace
}

func informerPlayInBubble(t *testing.T, sc informerScenario, build informerBuilder) informerTrace {
	trace := informerTrace{Handlers: map[string][]string{}}
	lw := &informerScriptedSource{lists: sc.Lists, watchers: make(chan *watch.FakeWatcher, 16), watchList: informerWatchListOn()}
	resync := informerDuration(t, sc.Resync)
	inf := build(lw, resync, sc.Indexers)
	var transformCalls int
	var transformMu sync.Mutex
	if sc.Transform != "" {
		fn := informerTransforms[sc.Transform]
		if fn == nil {
			t.Fatalf("unknown transform %q", sc.Transform)
		}
		if err := inf.setTransform(func(obj interface{}) (interface{}, error) {
			transformMu.Lock()
			transformCalls++
			transformMu.Unlock()
			return fn(obj)
		}); err != nil {
			t.Fatal(err)
		}
	}
	recorders := map[string]*informerRecorder{}
	regs := map[string]informerRegistration{}
	var names []string
	var w *watch.FakeWatcher
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	started := false
	errorf := func(step int, err error) {
		if err != nil {
			trace.Errors = append(trace.Errors, fmt.Sprintf("step %d: %v", step, err))
		}
	}
	for i, st := range sc.Steps {
		switch st.Op {
		case "handler":
			r := &informerRecorder{}
			if st.Blocked || st.BlockOn != "" {
				r.gate = make(chan struct{})
				r.blockOn = st.BlockOn
			}
			var filter func(interface{}) bool
			if st.Filter != "" {
				filter = informerFilters[st.Filter]
			}
			var period *time.Duration
			if st.Resync != nil {
				d := informerDuration(t, *st.Resync)
				period = &d
			}
			reg, err := inf.addHandler(r, filter, period)
			errorf(i, err)
			if err == nil {
				recorders[st.Name], regs[st.Name] = r, reg
				names = append(names, st.Name)
			}
		case "start":
			started = true
			if p, ok := inf.(interface{ prepare() }); ok {
				p.prepare()
			}
			go func() { inf.run(ctx); close(done) }()
			w = <-lw.watchers
		case "close":
			w.Stop()
			w = <-lw.watchers
		case "sleep":
			time.Sleep(informerDuration(t, st.Duration))
		case "remove":
			errorf(i, inf.remove(regs[st.Name]))
		case "release":
			close(recorders[st.Name].gate)
		case "addIndexers":
			errorf(i, inf.addIndexers(st.Indexers))
		case "lateTransform":
			errorf(i, inf.setTransform(informerTransforms["strip-labels"]))
		case "stop":
			cancel()
			<-done
			started = false
		case "check":
			trace.Checks = append(trace.Checks, informerCheck(inf, sc, st))
		default:
			var ok bool
			if w, ok = informerWatchOp(lw, w, st.Op, st.Pod, st.RV); !ok {
				t.Fatalf("step %d: unknown op %q", i, st.Op)
			}
		}
		synctest.Wait()
		trace.Syncs = append(trace.Syncs, informerSyncLine(i, st.Op, inf, names, regs))
		for _, r := range recorders {
			r.mark(i)
		}
	}
	if started {
		cancel()
		<-done
	}
	for _, r := range recorders {
		if r.gate != nil {
			select {
			case <-r.gate:
			default:
				close(r.gate)
			}
		}
	}
	synctest.Wait()
	for name, r := range recorders {
		r.mu.Lock()
		trace.Handlers[name] = informerNormalize(r.events)
		if informerWatchListOn() {
			trace.Handlers[name] = informerSortRelistSteps(trace.Handlers[name], sc.Steps)
		}
		r.mu.Unlock()
	}
	trace.Checks = append(trace.Checks, "stopped="+fmt.Sprint(inf.isStopped()))
	lw.mu.Lock()
	trace.SourceCalls = slices.Clone(lw.calls)
	lw.mu.Unlock()
	transformMu.Lock()
	trace.TransformCalls = transformCalls
	transformMu.Unlock()
	if informerWatchListOn() {
		// NB: through WatchList client-go transforms each object twice and
		// kcache once, a deliberate difference (README); the objects handed
		// out are compared all the same.
		trace.TransformCalls = 0
	}
	return trace
}

// informerSortRelistSteps sorts the notifications of every "gone" step: in
// WatchList mode the relist is served as a stream into a temporary store,
// and client-go hands the relisted objects on in that store's (map) order,
// which differs from run to run.
func informerSortRelistSteps(events []string, steps []informerStep) []string {
	out := slices.Clone(events)
	begin := 0
	for i, e := range out {
		step, ok := strings.CutPrefix(e, "-- after step ")
		if !ok {
			continue
		}
		var n int
		fmt.Sscan(step, &n)
		if n < len(steps) && steps[n].Op == "gone" {
			sort.Strings(out[begin:i])
		}
		begin = i + 1
	}
	return out
}

// informerCheck renders the cache, the indexes the scenario uses, the last
// synced resource version and the store's resource version.
func informerCheck(inf informerUnderTest, sc informerScenario, st informerStep) string {
	parts := []string{"cache=" + strings.Join(inf.cacheContents(), " "), "rv=" + inf.lastSyncResourceVersion()}
	if informerStoreVersionCompared() {
		parts = append(parts, "store-rv="+inf.storeResourceVersion())
	}
	for _, idx := range append(slices.Clone(sc.Indexers), st.Indexers...) {
		parts = append(parts, fmt.Sprintf("%s[web]=%v", idx, inf.byIndex(idx, "web")))
	}
	return strings.Join(parts, " ")
}

// informerSyncLine renders the sync state after a step.
func informerSyncLine(step int, op string, inf informerUnderTest, names []string, regs map[string]informerRegistration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s informer=%v", step, op, inf.hasSynced())
	for _, n := range names {
		fmt.Fprintf(&b, " %s=%v", n, regs[n].HasSynced())
	}
	return b.String()
}

// informerNormalize sorts the runs of notifications whose relative order
// the contract leaves open: the synthetic adds a late handler gets (cache
// iteration order), the tombstones of a relist, and the same-version
// updates of a resync (cache iteration order). Everything else keeps its
// delivered order.
func informerNormalize(events []string) []string {
	out := slices.Clone(events)
	class := func(e string) string {
		switch {
		case strings.HasPrefix(e, "add ") && strings.HasSuffix(e, "initial=true"):
			return "initial"
		case strings.HasPrefix(e, "delete tombstone("):
			return "tombstone"
		case strings.HasPrefix(e, "update "):
			old, new, _ := strings.Cut(strings.TrimPrefix(e, "update "), " -> ")
			if old == new {
				return "resync"
			}
		}
		return ""
	}
	for i := 0; i < len(out); {
		c := class(out[i])
		j := i + 1
		for j < len(out) && c != "" && class(out[j]) == c {
			j++
		}
		if c != "" {
			sort.Strings(out[i:j])
		}
		i = j
	}
	return out
}

// informerModes are the feature-gate settings every scenario runs under
// (unless it lists its own): the default atomic RealFIFO with batching and
// unlocked processing, and one mode per gate turned off.
//
// WatchListClient is on by default (1.36); in the modes without a
// "watchlist" prefix the scripted source declines WatchList semantics, so
// both reflectors list and watch. The "watchlist" modes serve the initial
// list and every relist as a WatchList stream instead.
var informerModes = []struct {
	Name  string
	Gates map[features.Feature]bool
}{
	{"default", nil},
	{"watchlist", map[features.Feature]bool{features.WatchListClient: true}},
	{"watchlist-per-object-realfifo", map[features.Feature]bool{features.WatchListClient: true, features.AtomicFIFO: false}},
	{"watchlist-deltafifo", map[features.Feature]bool{features.WatchListClient: true, features.InOrderInformers: false}},
	{"per-object-realfifo", map[features.Feature]bool{features.AtomicFIFO: false}},
	{"deltafifo", map[features.Feature]bool{features.InOrderInformers: false}},
	{"deltafifo-per-object", map[features.Feature]bool{features.InOrderInformers: false, features.AtomicFIFO: false}},
	{"no-batch", map[features.Feature]bool{features.InOrderInformersBatchProcess: false}},
	{"per-object-realfifo-no-batch", map[features.Feature]bool{features.AtomicFIFO: false, features.InOrderInformersBatchProcess: false}},
	{"locked-processing", map[features.Feature]bool{features.UnlockWhileProcessingFIFO: false}},
}

// informerStoreVersionCompared reports whether the store's resource version
// is part of the checks in the current gate setting: only with the atomic
// RealFIFO (InOrderInformers and AtomicFIFO on). With per-object deltas
// (DeltaFIFO, or RealFIFO with AtomicFIFO off) a resync writes every cached
// object back in cache iteration order, so the last version written is not
// deterministic in either library. Besides, client-go's stores
// (NewStore/NewIndexer) do not track resource versions at all when
// AtomicFIFO is off at construction, which kcache's foundation store does
// not follow yet (reported to the lead).
func informerStoreVersionCompared() bool {
	gates := features.FeatureGates()
	return gates.Enabled(features.InOrderInformers) && gates.Enabled(features.AtomicFIFO)
}

// informerWatchListOn reports whether the current mode plays the source as
// a WatchList stream: the WatchListClient gate is on and the mode asked for
// it (the harness records the mode's choice in informerWatchListMode).
func informerWatchListOn() bool {
	return informerWatchListMode && features.FeatureGates().Enabled(features.WatchListClient)
}

// informerWatchListMode is set by informerSetGates for the "watchlist" modes.
var informerWatchListMode bool

// informerRunsIn reports whether sc runs in the mode called name.
func informerRunsIn(sc informerScenario, name string) bool {
	return len(sc.Modes) == 0 || slices.Contains(sc.Modes, name)
}

// informerSetGates sets the mode's gates for the duration of t. Gates are
// process-global: callers must not run such tests in parallel.
func informerSetGates(t *testing.T, gates map[features.Feature]bool) {
	_, informerWatchListMode = gates[features.WatchListClient]
	t.Cleanup(func() { informerWatchListMode = false })
	for f, on := range gates {
		featuretesting.SetFeatureDuringTest(t, f, on)
	}
}

// informerDuration parses a scenario duration; "" is zero.
func informerDuration(t *testing.T, s string) time.Duration {
	if s == "" {
		return 0
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatalf("bad duration %q: %v", s, err)
	}
	return d
}

// informerWatchOp plays a watch step of a script on w: add, modify or
// delete pod ("name@rv"), a bookmark at rv, or a 410 Gone, after which it
// waits for the reflector's next watch on lw and returns it. For any other
// op it returns w and false.
func informerWatchOp(lw *informerScriptedSource, w *watch.FakeWatcher, op, pod, rv string) (*watch.FakeWatcher, bool) {
	switch op {
	case "add":
		w.Add(informerParsePod(pod))
	case "modify":
		w.Modify(informerParsePod(pod))
	case "delete":
		w.Delete(informerParsePod(pod))
	case "bookmark":
		w.Action(watch.Bookmark, &v1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: rv}})
	case "gone":
		status := apierrors.NewResourceExpired("too old resource version").Status()
		w.Error(&status)
		return <-lw.watchers, true
	default:
		return w, false
	}
	return w, true
}
