package extras

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-logr/logr"
	kcache "github.com/kcache-go/cache"
	cgcache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// namedChecker is a DoneChecker of both implementations (the interfaces
// have the same method set).
type namedChecker struct {
	name string
	done chan struct{}
}

func (c *namedChecker) Name() string          { return c.name }
func (c *namedChecker) Done() <-chan struct{} { return c.done }

// waitKit is one implementation's waiting functions, each taking the
// checkers or sync functions of the scenario.
type waitKit struct {
	waitFor      func(ctx context.Context, what string, checkers []*namedChecker) bool
	cacheSync    func(stop <-chan struct{}, synced []func() bool) bool
	namedSync    func(name string, stop <-chan struct{}, synced []func() bool) bool
	namedCtxSync func(ctx context.Context, synced []func() bool) bool
}

// callWaitFor calls a WaitFor from one source line for both
// implementations, so that a line attributed to the caller reads alike.
func callWaitFor[D any](waitFor func(context.Context, string, ...D) bool, ctx context.Context, what string, checkers []*namedChecker, conv func(*namedChecker) D) bool {
	ds := make([]D, 0, len(checkers))
	for _, c := range checkers {
		ds = append(ds, conv(c))
	}
	return waitFor(ctx, what, ds...)
}

// callSync calls a sync-function waiter from one source line for both
// implementations.
func callSync[S ~func() bool](wait func(...S) bool, synced []func() bool) bool {
	ss := make([]S, 0, len(synced))
	for _, f := range synced {
		ss = append(ss, S(f))
	}
	return wait(ss...)
}

var clientGoWait = waitKit{
	waitFor: func(ctx context.Context, what string, checkers []*namedChecker) bool {
		return callWaitFor(cgcache.WaitFor, ctx, what, checkers, func(c *namedChecker) cgcache.DoneChecker { return c })
	},
	cacheSync: func(stop <-chan struct{}, synced []func() bool) bool {
		return callSync(func(s ...cgcache.InformerSynced) bool { return cgcache.WaitForCacheSync(stop, s...) }, synced)
	},
	namedSync: func(name string, stop <-chan struct{}, synced []func() bool) bool {
		return callSync(func(s ...cgcache.InformerSynced) bool { return cgcache.WaitForNamedCacheSync(name, stop, s...) }, synced)
	},
	namedCtxSync: func(ctx context.Context, synced []func() bool) bool {
		return callSync(func(s ...cgcache.InformerSynced) bool { return cgcache.WaitForNamedCacheSyncWithContext(ctx, s...) }, synced)
	},
}

var kcacheWait = waitKit{
	waitFor: func(ctx context.Context, what string, checkers []*namedChecker) bool {
		return callWaitFor(kcache.WaitFor, ctx, what, checkers, func(c *namedChecker) kcache.DoneChecker { return c })
	},
	cacheSync: func(stop <-chan struct{}, synced []func() bool) bool {
		return callSync(func(s ...kcache.InformerSynced) bool { return kcache.WaitForCacheSync(stop, s...) }, synced)
	},
	namedSync: func(name string, stop <-chan struct{}, synced []func() bool) bool {
		return callSync(func(s ...kcache.InformerSynced) bool { return kcache.WaitForNamedCacheSync(name, stop, s...) }, synced)
	},
	namedCtxSync: func(ctx context.Context, synced []func() bool) bool {
		return callSync(func(s ...kcache.InformerSynced) bool { return kcache.WaitForNamedCacheSyncWithContext(ctx, s...) }, synced)
	},
}

// waitRun is the state of one waitfor.txt scenario while it plays.
type waitRun struct {
	kit      waitKit
	rec      *logRecorder
	ctx      context.Context
	cancel   context.CancelCauseFunc
	checkers map[string]*namedChecker
	what     string
	result   chan bool
	trace    []string
}

// playWait returns the player of waitfor.txt. Options: v=N puts the
// logger's V(N) in the context; klog=N sets klog's global verbosity while
// the scenario plays (and routes klog's global logger to the recorder).
func playWait(kit waitKit) player {
	return func(t *testing.T, sc scenario) []string {
		logger, rec := newCaptureLogger()
		if v, ok := sc.options["v"]; ok {
			var n int
			fmt.Sscan(v, &n)
			logger = logger.V(n)
		}
		if v, ok := sc.options["klog"]; ok {
			restore := routeKlog(t, logger, v)
			defer restore()
		}
		ctx, cancel := context.WithCancelCause(klog.NewContext(context.Background(), logger))
		defer cancel(nil)
		r := &waitRun{kit: kit, rec: rec, ctx: ctx, cancel: cancel, checkers: map[string]*namedChecker{}}
		for _, step := range sc.steps {
			r.trace = append(r.trace, strings.Join(step, " ")+":")
			result := r.step(t, step)
			for _, line := range rec.take() {
				r.trace = append(r.trace, "  "+line)
			}
			if result != "" {
				r.trace = append(r.trace, "  "+result)
			}
		}
		return r.trace
	}
}

// routeKlog sends klog's global output to logger at verbosity v and
// returns the function that undoes it.
func routeKlog(t *testing.T, logger klog.Logger, v string) func() {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	if err := fs.Set("v", v); err != nil {
		t.Fatal(err)
	}
	klog.SetLogger(logger)
	return func() {
		klog.ClearLogger()
		if err := fs.Set("v", "0"); err != nil {
			t.Error(err)
		}
	}
}

// checker returns the scenario's checker of that name, made on first use.
func (r *waitRun) checker(name string) *namedChecker {
	c, ok := r.checkers[name]
	if !ok {
		c = &namedChecker{name: name, done: make(chan struct{})}
		r.checkers[name] = c
	}
	return c
}

// step plays one line. "wait WHAT NAMES..." starts WaitFor (WHAT "-" is
// "") and, under a canceled context, waits for its result; "finish NAME" closes a checker and, while a logging WaitFor runs,
// waits for its line; "cancel [CAUSE]" cancels the context (and waits for
// a running WaitFor's result); "returned" waits for WaitFor's result; the sync steps call the polling waiters with
// functions returning the given booleans.
func (r *waitRun) step(t *testing.T, step []string) string {
	switch step[0] {
	case "wait":
		r.what = strings.TrimPrefix(step[1], "-")
		var cs []*namedChecker
		for _, name := range step[2:] {
			cs = append(cs, r.checker(name))
		}
		lines := 1
		for _, c := range cs {
			if kcache.IsDone(c) {
				lines++
			}
		}
		r.result = make(chan bool, 1)
		go func() { r.result <- r.kit.waitFor(r.ctx, r.what, cs) }()
		if r.ctx.Err() != nil {
			return r.returned()
		}
		if r.what != "" {
			r.rec.waitLines(t, lines)
		}
	case "finish":
		close(r.checker(step[1]).done)
		if r.result != nil && r.what != "" {
			r.rec.waitLines(t, 1)
		}
	case "cancel":
		var cause error
		if len(step) > 1 {
			cause = errors.New(step[1])
		}
		r.cancel(cause)
		if r.result != nil {
			return r.returned()
		}
	case "returned":
		return r.returned()
	case "cachesync", "namedsync", "namedctxsync":
		return fmt.Sprintf("returned %v", r.syncStep(step))
	default:
		t.Fatalf("unknown step %q", step)
	}
	return ""
}

// returned waits for the running WaitFor's result.
func (r *waitRun) returned() string {
	res := <-r.result
	r.result = nil
	return fmt.Sprintf("returned %v", res)
}

// syncStep runs "cachesync|namedsync|namedctxsync open|closed BOOLS...".
func (r *waitRun) syncStep(step []string) bool {
	stop := make(chan struct{})
	ctx := r.ctx
	if step[1] == "closed" {
		close(stop)
		canceled, cancel := context.WithCancel(ctx)
		cancel()
		ctx = canceled
	}
	var synced []func() bool
	for _, b := range step[2:] {
		val := b == "true"
		synced = append(synced, func() bool { return val })
	}
	switch step[0] {
	case "cachesync":
		return r.kit.cacheSync(stop, synced)
	case "namedsync":
		return r.kit.namedSync("ctrl", stop, synced)
	}
	return r.kit.namedCtxSync(ctx, synced)
}

func TestWaitFunctionsLogLikeClientGo(t *testing.T) {
	compareTraces(t, "waitfor.txt", playWait(clientGoWait), playWait(kcacheWait))
}

// countingChecker is a DoneChecker of both implementations that counts the
// calls of its methods.
type countingChecker struct {
	name         string
	done         chan struct{}
	dones, names atomic.Int32
}

func (c *countingChecker) Name() string          { c.names.Add(1); return c.name }
func (c *countingChecker) Done() <-chan struct{} { c.dones.Add(1); return c.done }

// waitForCalls runs one WaitFor over two checkers, both done already
// ("done") or neither under a canceled context ("canceled"), and reports
// the result and how often each method of each checker was called.
func waitForCalls(waitFor func(context.Context, string, ...*countingChecker) bool, what, mode string) string {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := &countingChecker{name: "a", done: make(chan struct{})}
	b := &countingChecker{name: "b", done: make(chan struct{})}
	if mode == "done" {
		close(a.done)
		close(b.done)
	} else {
		cancel()
	}
	r := waitFor(klog.NewContext(ctx, logr.Discard()), what, a, b)
	return fmt.Sprintf("returned %v; a: Done×%d Name×%d; b: Done×%d Name×%d", r, a.dones.Load(), a.names.Load(), b.dones.Load(), b.names.Load())
}

func TestWaitForCallsDoneAndNameAsOftenAsClientGo(t *testing.T) {
	cg := func(ctx context.Context, what string, cs ...*countingChecker) bool {
		return cgcache.WaitFor(ctx, what, cs[0], cs[1])
	}
	kc := func(ctx context.Context, what string, cs ...*countingChecker) bool {
		return kcache.WaitFor(ctx, what, cs[0], cs[1])
	}
	for _, what := range []string{"", "informers"} {
		for _, mode := range []string{"done", "canceled"} {
			t.Run(fmt.Sprintf("what=%q %s", what, mode), func(t *testing.T) {
				want, got := waitForCalls(cg, what, mode), waitForCalls(kc, what, mode)
				if want != got {
					t.Errorf("client-go: %s\nkcache:    %s", want, got)
				}
			})
		}
	}
}
