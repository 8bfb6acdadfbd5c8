package conformance

import (
	"context"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"
)

// informerCrashCase is one way user code run by an informer panics (or
// one API misuse), played with utilruntime.ReallyCrash off.
type informerCrashCase struct {
	name string
	// plain uses NewInformerWithOptions instead of a shared informer.
	plain bool
	// panicOn makes the handler panic on objects rendered with this text.
	panicOn string
	// indexPanicOn makes an index function panic on objects rendered with
	// this text.
	indexPanicOn string
	// initialPanic says the panic hits an initial add; such a case does not
	// run in WatchList modes, where client-go hands the initial list on in
	// its temporary store's map order (which add panics first varies).
	initialPanic bool
	// transformPanicOn makes the shared informer's transform panic on
	// objects rendered with this text.
	transformPanicOn string
	// relistAfter, when set, is the play time after which the informer
	// relists; later events are rendered by informerRelativeAfterRelist.
	relistAfter time.Duration
	// relist ends the play with an expired watch; the relist drops b, whose
	// deletion reaches the handler as a tombstone.
	relist bool
}

var informerCrashCases = []informerCrashCase{
	{name: "handler panics on an initial add", panicOn: "ns/a@1", initialPanic: true},
	{name: "handler panics on a watch event", panicOn: "ns/c@11"},
	{name: "handler of a plain informer panics on an initial add", plain: true, panicOn: "ns/a@1", initialPanic: true},
	{name: "handler of a plain informer panics on a watch event", plain: true, panicOn: "ns/c@11"},
	{name: "index function panics on a watch event", indexPanicOn: "ns/c@11"},
	{name: "nothing panics"},
	{name: "transform panics on the last watch event", transformPanicOn: "ns/f@14", relistAfter: 2900 * time.Millisecond},
	{name: "handler panics on a tombstone in OnDelete after a relist", panicOn: "delete tombstone(ns/b", relist: true, relistAfter: 4900 * time.Millisecond},
	{name: "handler of a plain informer panics on a tombstone in OnDelete after a relist", plain: true, panicOn: "delete tombstone(ns/b", relist: true, relistAfter: 4900 * time.Millisecond},
}

// informerCrashTransform returns a transform that panics on the object
// rendered as target and passes every other object on.
func informerCrashTransform(target string) func(obj interface{}) (interface{}, error) {
	return func(obj interface{}) (interface{}, error) {
		if informerDescribe(obj) == target {
			panic("transform fails on " + target)
		}
		return obj, nil
	}
}

// informerCrashHandler records calls with the bubble time since start and
// panics on its target.
type informerCrashHandler struct {
	mu      sync.Mutex
	start   time.Time
	events  []string
	panicOn string
}

func (h *informerCrashHandler) record(s string) {
	h.mu.Lock()
	h.events = append(h.events, fmt.Sprintf("t=%v %s", time.Since(h.start), s))
	h.mu.Unlock()
	if h.panicOn != "" && strings.Contains(s, h.panicOn) {
		panic("handler fails on " + s)
	}
}

func (h *informerCrashHandler) OnAdd(obj interface{}, initial bool) {
	h.record(fmt.Sprintf("add %s initial=%v", informerDescribe(obj), initial))
}
func (h *informerCrashHandler) OnUpdate(oldObj, newObj interface{}) {
	h.record(fmt.Sprintf("update %s -> %s", informerDescribe(oldObj), informerDescribe(newObj)))
}
func (h *informerCrashHandler) OnDelete(obj interface{}) {
	h.record("delete " + informerDescribe(obj))
}

// informerCrashInformer is what a crash play needs from either library.
type informerCrashInformer interface {
	// addHandler registers h logging through logger (shared informers) or
	// builds the plain informer around h.
	addHandler(h *informerCrashHandler, logger klog.Logger) (informerRegistration, error)
	run(ctx context.Context)
	hasSynced() bool
	cacheContents() []string
	// controllerRV is GetController().LastSyncResourceVersion() (plain:
	// the controller's own).
	controllerRV() string
	// removeNil is RemoveEventHandler(nil); remove removes the handler.
	removeNil() error
	remove(reg informerRegistration) error
}

// informerCrashBuilder makes an informer of one library for a case.
type informerCrashBuilder func(lw *informerScriptedSource, c informerCrashCase) informerCrashInformer

// informerCrashIndexFunc indexes by the "app" label and panics on target.
func informerCrashIndexFunc(target string) func(obj interface{}) ([]string, error) {
	return func(obj interface{}) ([]string, error) {
		if target != "" && strings.Contains(informerDescribe(obj), target) {
			panic("index function fails on " + informerDescribe(obj))
		}
		return informerIndexFuncs["by-app"](obj)
	}
}

// informerCrashTrace is everything a crash play observes.
type informerCrashTrace struct {
	Events   []string
	Sync     []string
	Panics   int
	Logs     []string
	APIs     []string
	Contents []string
}

// informerLogNoise matches values that legitimately differ: stack traces
// and the reflector's caller-derived name.
var informerLogNoise = regexp.MustCompile(`"(stacktrace|reflector)"="(\\.|[^"\\])*"`)

// informerLogLine renders one captured line: the root logger name (the
// rest of a name is the reflector's name, owned by the reflector suite),
// then the key/value pairs without noise.
func informerLogLine(prefix, args string) string {
	root, _, sub := strings.Cut(prefix, "/")
	if sub {
		root += "/<reflector>"
	}
	return root + " " + informerLogNoise.ReplaceAllString(args, `"$1"=<...>`)
}

func informerCrashPlay(t *testing.T, c informerCrashCase, build informerCrashBuilder) informerCrashTrace {
	var trace informerCrashTrace
	var mu sync.Mutex
	defer informerCatchCrashes(&mu, func() { trace.Panics++ }, nil)()
	synctest.Test(t, func(t *testing.T) {
		logger := informerCaptureLogger(&mu, &trace.Logs)
		lw := &informerScriptedSource{lists: []informerListResponse{{RV: "10", Pods: []string{"a@1:app=web", "b@2"}}}, watchers: make(chan *watch.FakeWatcher, 16), watchList: informerWatchListOn()}
		inf := build(lw, c)
		h := &informerCrashHandler{start: time.Now(), panicOn: c.panicOn}
		reg, err := inf.addHandler(h, logger.WithName("handler"))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger.WithName("ctx")))
		done := make(chan struct{})
		go func() { inf.run(ctx); close(done) }()
		w := <-lw.watchers
		syncLine := func(what string) {
			synctest.Wait()
			trace.Sync = append(trace.Sync, fmt.Sprintf("%s informer=%v reg=%v cache=%v", what, inf.hasSynced(), reg.HasSynced(), inf.cacheContents()))
		}
		syncLine("started")
		// NB: the pauses check when a recovered loop delivers again.
		w.Add(informerParsePod("c@11:app=web"))
		syncLine("c added")
		time.Sleep(200 * time.Millisecond)
		w.Add(informerParsePod("d@12"))
		syncLine("d added")
		time.Sleep(700 * time.Millisecond)
		w.Add(informerParsePod("e@13"))
		time.Sleep(2 * time.Second)
		w.Add(informerParsePod("f@14"))
		syncLine("f added")
		time.Sleep(2 * time.Second)
		syncLine("later")
		if c.relist {
			lw.mu.Lock()
			lw.lists = []informerListResponse{{RV: "20", Pods: []string{"a@1:app=web", "c@11:app=web", "d@12", "e@13", "f@14", "g@15"}}}
			lw.mu.Unlock()
			w.Error(&metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "expired"})
			<-lw.watchers
			syncLine("relisted")
			time.Sleep(2 * time.Second)
			syncLine("after the relist")
		}
		trace.APIs = append(trace.APIs, "controller rv="+inf.controllerRV(), fmt.Sprintf("remove(nil) before stop: %v", inf.removeNil()))
		cancel()
		<-done
		trace.APIs = append(trace.APIs, fmt.Sprintf("remove(nil) after stop: %v", inf.removeNil()), fmt.Sprintf("remove(reg) after stop: %v", inf.remove(reg)))
		h.mu.Lock()
		trace.Events = informerSortInitialRuns(h.events)
		h.mu.Unlock()
		if c.relistAfter > 0 {
			trace.Events = informerRelativeAfterRelist(trace.Events, c.relistAfter)
		}
	})
	// NB: lines logged by different goroutines at the same (fake) instant
	// come in either order in both libraries; compare them as a multiset.
	sort.Strings(trace.Logs)
	return trace
}

// informerRelativeAfterRelist renders the events of the relist (those
// after the play time after) with times relative to the
// relist's first event, sorted: the relist waits a jittered backoff, and
// client-go's WatchList path hands the relisted objects on in map order.
func informerRelativeAfterRelist(events []string, after time.Duration) []string {
	at := func(e string) (time.Duration, string) {
		stamp, rest, _ := strings.Cut(strings.TrimPrefix(e, "t="), " ")
		d, _ := time.ParseDuration(stamp)
		return d, rest
	}
	first := slices.IndexFunc(events, func(e string) bool { d, _ := at(e); return d > after })
	if first < 0 {
		return events
	}
	base, _ := at(events[first])
	out := slices.Clone(events[:first])
	for _, e := range events[first:] {
		d, rest := at(e)
		out = append(out, fmt.Sprintf("relist+%v %s", d-base, rest))
	}
	slices.Sort(out[first:])
	return out
}

// TestInformerUserCodePanicsAreHandledAsClientGoHandlesThem plays each
// crash case against both libraries with ReallyCrash off and requires the
// same handler calls (and their bubble times: a recovered loop resumes
// after one second), sync states, cache contents, number of panic handler
// calls, log lines (logger name, message, keys and values but stack traces)
// and API results (GetController().LastSyncResourceVersion(),
// RemoveEventHandler(nil) before and after stop).
func TestInformerUserCodePanicsAreHandledAsClientGoHandlesThem(t *testing.T) {
	for _, c := range informerCrashCases {
		t.Run(c.name, func(t *testing.T) {
			for _, mode := range informerModes {
				t.Run(mode.Name, func(t *testing.T) {
					informerSetGates(t, mode.Gates)
					if c.initialPanic && informerWatchListOn() {
						t.Skip("initial order is map order in client-go's WatchList path; see initialPanic")
					}
					want := informerCrashPlay(t, c, informerCrashOn(informerClientGo))
					got := informerCrashPlay(t, c, informerCrashOn(informerKCache))
					if len(want.Events) == 0 {
						t.Fatal("client-go's handler saw nothing; the case observes nothing")
					}
					if !reflect.DeepEqual(want, got) {
						t.Errorf("kcache differs from client-go:\n%s", informerTraceDiff(want, got))
					}
				})
			}
		})
	}
}

// informerCrashAdapter implements informerCrashInformer with one library's
// functions.
type informerCrashAdapter struct {
	add        func(h *informerCrashHandler, logger klog.Logger) (informerRegistration, error)
	runF       func(ctx context.Context)
	synced     func() bool
	list       func() []interface{}
	ctrlRV     func() string
	removeNilF func() error
	removeF    func(reg informerRegistration) error
}

func (a *informerCrashAdapter) addHandler(h *informerCrashHandler, logger klog.Logger) (informerRegistration, error) {
	return a.add(h, logger)
}
func (a *informerCrashAdapter) run(ctx context.Context) { a.runF(ctx) }
func (a *informerCrashAdapter) hasSynced() bool         { return a.synced() }
func (a *informerCrashAdapter) controllerRV() string    { return a.ctrlRV() }
func (a *informerCrashAdapter) removeNil() error        { return a.removeNilF() }
func (a *informerCrashAdapter) remove(reg informerRegistration) error {
	return a.removeF(reg)
}
func (a *informerCrashAdapter) cacheContents() []string {
	var out []string
	for _, obj := range a.list() {
		out = append(out, informerDescribe(obj))
	}
	sort.Strings(out)
	return out
}

// informerCrashPlainRegistration reports a plain informer's HasSynced.
type informerCrashPlainRegistration struct{ synced func() bool }

func (r informerCrashPlainRegistration) HasSynced() bool { return r.synced() }

// informerCrashPlainUnsupported is what a plain informer answers to handler
// removal, identical for both libraries.
var informerCrashPlainUnsupported = func() error { return nil }

// informerSortInitialRuns sorts each run of initial adds, whose order is the
// cache's (or, through WatchList, a temporary store's) iteration order.
func informerSortInitialRuns(events []string) []string {
	out := slices.Clone(events)
	for i := 0; i < len(out); {
		j := i
		for j < len(out) && strings.HasSuffix(out[j], "initial=true") {
			j++
		}
		sort.Strings(out[i:j])
		i = max(j, i+1)
	}
	return out
}
