package extras

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	ksynctrack "github.com/kcache-go/cache/synctrack"
	cgsynctrack "k8s.io/client-go/tools/cache/synctrack"
)

// tracker is the surface shared by both trackers of both implementations,
// with the key ignored by single-file trackers.
type tracker struct {
	start, finished func(key string)
	upstream        func()
	hasSynced       func() bool
	done            func() <-chan struct{}
	name            func() string
}

// lazyInt is Lazy[int] of either implementation.
type lazyInt interface {
	Get() (int, error)
	Notify()
}

// syncKit builds one implementation's trackers and lazies.
type syncKit struct {
	single func(name string) tracker
	async  func(name string) tracker
	// zeroSingle and zeroAsync are the trackers' zero values (no
	// constructor); the name is ignored.
	zeroSingle func(name string) tracker
	zeroAsync  func(name string) tracker
	lazy       func(eval func() (int, error)) lazyInt
}

// syncTrackerCommon is what both trackers of either implementation have.
type syncTrackerCommon interface {
	UpstreamHasSynced()
	HasSynced() bool
	Done() <-chan struct{}
	Name() string
}

// singleTracker binds a SingleFileTracker of either implementation; its
// Start and Finished take no key.
func singleTracker(t interface {
	syncTrackerCommon
	Start()
	Finished()
}) tracker {
	return tracker{func(string) { t.Start() }, func(string) { t.Finished() }, t.UpstreamHasSynced, t.HasSynced, t.Done, t.Name}
}

// asyncTracker binds an AsyncTracker[string] of either implementation.
func asyncTracker(t interface {
	syncTrackerCommon
	Start(string)
	Finished(string)
}) tracker {
	return tracker{t.Start, t.Finished, t.UpstreamHasSynced, t.HasSynced, t.Done, t.Name}
}

var clientGoSync = syncKit{
	single:     func(name string) tracker { return singleTracker(cgsynctrack.NewSingleFileTracker(name)) },
	async:      func(name string) tracker { return asyncTracker(cgsynctrack.NewAsyncTracker[string](name)) },
	zeroSingle: func(string) tracker { return singleTracker(&cgsynctrack.SingleFileTracker{}) },
	zeroAsync:  func(string) tracker { return asyncTracker(&cgsynctrack.AsyncTracker[string]{}) },
	lazy:       func(eval func() (int, error)) lazyInt { return &cgsynctrack.Lazy[int]{Evaluate: eval} },
}

var kcacheSync = syncKit{
	single:     func(name string) tracker { return singleTracker(ksynctrack.NewSingleFileTracker(name)) },
	async:      func(name string) tracker { return asyncTracker(ksynctrack.NewAsyncTracker[string](name)) },
	zeroSingle: func(string) tracker { return singleTracker(&ksynctrack.SingleFileTracker{}) },
	zeroAsync:  func(string) tracker { return asyncTracker(&ksynctrack.AsyncTracker[string]{}) },
	lazy:       func(eval func() (int, error)) lazyInt { return &ksynctrack.Lazy[int]{Evaluate: eval} },
}

func doneClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// playTracker returns the player of synctrack.txt.
func playTracker(kit syncKit) player {
	return func(t *testing.T, sc scenario) []string {
		if sc.options["kind"] == "lazy" {
			return playLazy(kit, sc)
		}
		tr := map[string]func(string) tracker{
			"single": kit.single, "async": kit.async, "zero-single": kit.zeroSingle, "zero-async": kit.zeroAsync,
		}[sc.options["kind"]](sc.name)
		trace := []string{"name=" + capturePanic(tr.name)}
		for _, step := range sc.steps {
			key := ""
			if len(step) > 1 {
				key = step[1]
			}
			result := capturePanic(func() string {
				switch step[0] {
				case "start":
					tr.start(key)
				case "finished":
					tr.finished(key)
				case "upstream":
					tr.upstream()
				}
				return "ok"
			})
			synced := capturePanic(func() string { return fmt.Sprint(tr.hasSynced()) })
			done := capturePanic(func() string { return fmt.Sprint(doneClosed(tr.done())) })
			trace = append(trace, fmt.Sprintf("%s -> %s synced=%v done=%v", strings.Join(step, " "), result, synced, done))
		}
		return trace
	}
}

// playLazy runs get/notify/fail steps on a Lazy whose Evaluate counts its
// calls and fails while failures remain (option eval=nil: no Evaluate).
func playLazy(kit syncKit, sc scenario) []string {
	calls, failures := 0, 0
	eval := func() (int, error) {
		calls++
		if failures > 0 {
			failures--
			return calls, errors.New("evaluation failed")
		}
		return calls, nil
	}
	if sc.options["eval"] == "nil" {
		eval = nil
	}
	z := kit.lazy(eval)
	var trace []string
	for _, step := range sc.steps {
		result := "ok"
		switch step[0] {
		case "get":
			result = capturePanic(func() string {
				v, err := z.Get()
				return fmt.Sprintf("%d %v", v, err)
			})
		case "notify":
			z.Notify()
		case "fail-next":
			failures++
		}
		trace = append(trace, fmt.Sprintf("%s -> %s calls=%d", strings.Join(step, " "), result, calls))
	}
	return trace
}

func TestSynctrackMatchesClientGo(t *testing.T) {
	compareTraces(t, "synctrack.txt", klogged(playTracker(clientGoSync)), klogged(playTracker(kcacheSync)))
}
