package conformance

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"
)

// informerMisuse is one library's informer seen through the calls the
// misuse cases make; every call returns its error rendered ("<nil>" for
// none) or, when it panicked, "panic: <value>".
type informerMisuse struct {
	addNilHandler func() string
	addHandler    func(h *informerCrashHandler) string
	// addNegative adds h with period, logging through logger when set.
	addNegative      func(h *informerCrashHandler, period time.Duration, logger *klog.Logger) string
	removeForeign    func() string
	addIndexers      func(names ...string) string
	addNilIndexers   func() string
	setNilTransform  func() string
	removeNil        func() string
	run              func(ctx context.Context)
	cacheContents    func() []string
	hasSynced        func() bool
	processErrorPlay func(ctx context.Context, lw *informerScriptedSource) []string
	// checkerNames names the informer's, its GetController()'s and a new
	// registration's DoneCheckers.
	checkerNames func() []string
}

// informerMisuseCall runs fn and renders its error or its panic.
func informerMisuseCall(fn func() error) (out string) {
	defer func() {
		if r := recover(); r != nil {
			out = fmt.Sprintf("panic: %v", r)
		}
	}()
	return fmt.Sprint(fn())
}

// informerMisuseTrace is everything a misuse play observes.
type informerMisuseTrace struct {
	Results []string
	Events  []string
	Panics  int
	Errors  int
	Logs    []string
	Sync    []string
}

func informerMisusePlay(t *testing.T, build func(lw *informerScriptedSource) informerMisuse) informerMisuseTrace {
	var trace informerMisuseTrace
	var mu sync.Mutex
	defer informerCatchCrashes(&mu, func() { trace.Panics++ }, func(string, error) { trace.Errors++ })()
	synctest.Test(t, func(t *testing.T) {
		logger := informerCaptureLogger(&mu, &trace.Logs)
		// NB: handlers without a logger of their own log through klog's
		// global logger; capture it too.
		klog.SetLogger(logger.WithName("global"))
		defer klog.ClearLogger()
		lw := &informerScriptedSource{lists: []informerListResponse{{RV: "10", Pods: []string{"a@1:app=web", "b@2"}}}, watchers: make(chan *watch.FakeWatcher, 16)}
		inf := build(lw)
		second := logger.WithName("second")
		h := &informerCrashHandler{start: time.Now()}
		trace.Results = append(trace.Results,
			"add nil handler: "+inf.addNilHandler(),
			"add handler: "+inf.addHandler(h),
			"add handler with negative resync: "+inf.addNegative(&informerCrashHandler{start: time.Now()}, -time.Second, nil),
			"add handler lowering the check period: "+inf.addNegative(&informerCrashHandler{start: time.Now()}, 30*time.Second, &second),
			"remove another informer's registration: "+inf.removeForeign(),
			"remove nil before start: "+inf.removeNil(),
			"add nil indexers: "+inf.addNilIndexers(),
			"add indexers: "+inf.addIndexers("by-app"),
			"add the same index again: "+inf.addIndexers("by-app"),
			"set nil transform: "+inf.setNilTransform(),
		)
		ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger.WithName("ctx")))
		done := make(chan struct{})
		go func() { inf.run(ctx); close(done) }()
		w := <-lw.watchers
		synctest.Wait()
		w.Add(informerParsePod("c@11"))
		// NB: 2.5s, so that no recovered panic coincides with the stop.
		time.Sleep(2500 * time.Millisecond)
		trace.Sync = append(trace.Sync, fmt.Sprintf("informer=%v cache=%v", inf.hasSynced(), inf.cacheContents()))
		trace.Results = append(trace.Results, "checker names: "+strings.Join(inf.checkerNames(), ", "))
		trace.Results = append(trace.Results, "add the same index after start: "+inf.addIndexers("by-app"))
		cancel()
		<-done
		trace.Results = append(trace.Results, "add indexers after stop: "+inf.addIndexers("other"), "add handler after stop: "+inf.addHandler(&informerCrashHandler{start: time.Now()}))
		pctx, pcancel := context.WithCancel(klog.NewContext(context.Background(), logger.WithName("controller")))
		plw := &informerScriptedSource{lists: []informerListResponse{{RV: "5", Pods: []string{"x@1", "y@2"}}}, watchers: make(chan *watch.FakeWatcher, 16)}
		pdone := make(chan []string)
		go func() { pdone <- inf.processErrorPlay(pctx, plw) }()
		pw := <-plw.watchers
		synctest.Wait()
		pw.Add(informerParsePod("z@6"))
		synctest.Wait()
		time.Sleep(2 * time.Second)
		pcancel()
		trace.Results = append(trace.Results, "controller Process calls: "+strings.Join(<-pdone, " "))
		h.mu.Lock()
		trace.Events = informerSortInitialRuns(h.events)
		h.mu.Unlock()
	})
	// NB: lines logged by different goroutines at the same (fake) instant
	// come in either order in both libraries; compare them as a multiset.
	sort.Strings(trace.Logs)
	return trace
}

// TestInformerEntryPointsAnswerMisuseAsClientGoDoes feeds both libraries'
// shared informers bad input at their entry points (nil handler, negative
// resync, a foreign registration, nil registration, nil and clashing
// indexers, nil transform, calls after stop) and a low-level controller
// whose Process fails, with ReallyCrash off; results, panics, error handler
// calls, handler calls and log lines must match.
func TestInformerEntryPointsAnswerMisuseAsClientGoDoes(t *testing.T) {
	for _, mode := range informerModes {
		t.Run(mode.Name, func(t *testing.T) {
			informerSetGates(t, mode.Gates)
			if informerWatchListOn() {
				t.Skip("the misuse cases do not depend on how the list is read")
			}
			want := informerMisusePlay(t, informerMisuseOn(informerClientGo))
			got := informerMisusePlay(t, informerMisuseOn(informerKCache))
			if !reflect.DeepEqual(want, got) {
				t.Errorf("kcache differs from client-go:\n%s", informerTraceDiff(want, got))
			}
		})
	}
}
