package conformance

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	kcache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/internal/reflectortest"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
)

// reflectorMinScenarios is the least number of scenarios the suite accepts.
var reflectorMinScenarios = 40

// reflectorScenarioDir holds the scenario files shared with the unit tests.
var reflectorScenarioDir = filepath.Join("..", "testdata", "reflector")

// reflectorTestBackoff is a jitter-free backoff, so that both reflectors
// wait the same fake durations and time-dependent decisions agree.
func reflectorTestBackoff() *wait.Backoff {
	return &wait.Backoff{Duration: time.Second, Factor: 2, Steps: 10, Cap: 30 * time.Second}
}

// reflectorTransforming makes the Recorder a TransformingStore of the
// library whose TransformFunc is T.
type reflectorTransforming[T ~func(interface{}) (interface{}, error)] struct{ *reflectortest.Recorder }

func (s reflectorTransforming[T]) Transformer() T { return T(s.Recorder.Transform) }

// reflectorBuildWith builds one library's Reflector for a play: over
// s.Store, or the queue of the scenario (queue builds it and its drain), or
// the Recorder as a TransformingStore of the library's TransformFunc T;
// newReflector builds the Reflector over a store and returns it with its
// WatchListPageSize and MaxInternalErrorRetryDuration fields, which are set
// from the scenario.
func reflectorBuildWith[S any, T ~func(interface{}) (interface{}, error)](s reflectortest.Setup, store S, queue func(reflectortest.Setup) (S, func() []string),
	newReflector func(S) (reflectortest.Reflector, *int64, *time.Duration)) reflectortest.Reflector {
	var drain func() []string
	if s.Scenario.Queue != "" {
		store, drain = queue(s)
	} else if s.Scenario.Transforming {
		store = any(reflectorTransforming[T]{s.Store}).(S)
	}
	r, pageSize, retry := newReflector(store)
	*pageSize = s.Scenario.WatchListPageSize
	*retry = s.MaxInternalErrorRetryDuration
	if drain != nil {
		return reflectorDrained{Reflector: r, drain: drain}
	}
	return r
}

// reflectorBuildClientGo builds client-go's Reflector for a play.
func reflectorBuildClientGo(s reflectortest.Setup) reflectortest.Reflector {
	return reflectorBuildWith[cache.ReflectorStore, cache.TransformFunc](s, s.Store, reflectorClientGoQueue,
		func(store cache.ReflectorStore) (reflectortest.Reflector, *int64, *time.Duration) {
			r := cache.NewReflectorWithOptions(s.LW, s.ExpectedType, store, cache.ReflectorOptions{Name: "conformance", Clock: s.Clock, Backoff: reflectorTestBackoff()})
			return r, &r.WatchListPageSize, &r.MaxInternalErrorRetryDuration
		})
}

// reflectorBuildKcache builds kcache's Reflector for a play.
func reflectorBuildKcache(s reflectortest.Setup) reflectortest.Reflector {
	return reflectorBuildWith[kcache.ReflectorStore, kcache.TransformFunc](s, s.Store, reflectorKcacheQueue,
		func(store kcache.ReflectorStore) (reflectortest.Reflector, *int64, *time.Duration) {
			r := kcache.NewReflectorWithOptions(s.LW, s.ExpectedType, store, kcache.ReflectorOptions{Name: "conformance", Clock: s.Clock, Backoff: reflectorTestBackoff()})
			return r, &r.WatchListPageSize, &r.MaxInternalErrorRetryDuration
		})
}

// reflectorGateName names a WatchListClient setting in subtest names.
func reflectorGateName(on bool) string {
	if on {
		return "WatchListClient=on"
	}
	return "WatchListClient=off"
}

func TestReflectorMakesTheSameCallsAsClientGoInEveryScenario(t *testing.T) {
	scenarios, err := reflectortest.LoadScenarios(reflectorScenarioDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(scenarios) < reflectorMinScenarios {
		t.Fatalf("want at least 40 reflector scenarios, found %d", len(scenarios))
	}
	for _, sc := range scenarios {
		for _, gate := range sc.GateSettings() {
			t.Run(sc.Name+"/"+reflectorGateName(gate), func(t *testing.T) {
				want := reflectortest.Play(sc, gate, reflectorBuildClientGo)
				got := reflectortest.Play(sc, gate, reflectorBuildKcache)
				reflectorCompare(t, "traces", want.Trace, got.Trace)
				if testing.Verbose() {
					t.Logf("trace:\n%s\nqueued: %v transforms: %d", strings.Join(got.Trace, "\n"), got.Queued, got.TransformCalls)
				}
				if strings.Join(want.Final, " ") != strings.Join(got.Final, " ") {
					t.Errorf("final store content differs:\nclient-go: %v\nkcache:    %v", want.Final, got.Final)
				}
				if final, ok := sc.ExpectedFinal(gate); ok && strings.Join(final, " ") != strings.Join(got.Final, " ") {
					t.Errorf("final store content is %v, the scenario expects %v", got.Final, final)
				}
				reflectorCompare(t, "logs", want.Logs, got.Logs)
				if strings.Join(want.Queued, " ") != strings.Join(got.Queued, " ") {
					t.Errorf("queued deltas differ:\nclient-go: %v\nkcache:    %v", want.Queued, got.Queued)
				}
				if sc.WatchListTransformsOnce && gate {
					if got.TransformCalls >= want.TransformCalls {
						t.Errorf("transform ran %d times, want fewer than client-go's %d (each streamed object once)", got.TransformCalls, want.TransformCalls)
					}
				} else if extra := sc.ExtraListTransforms; extra != 0 && !gate {
					if got.TransformCalls != want.TransformCalls+extra {
						t.Errorf("transform ran %d times, want client-go's %d plus the %d of the pages transformed before the list failed", got.TransformCalls, want.TransformCalls, extra)
					}
				} else if want.TransformCalls != got.TransformCalls {
					t.Errorf("transform ran %d times, client-go ran it %d times", got.TransformCalls, want.TransformCalls)
				}
			})
		}
	}
}

// reflectorCompare reports the first line where two transcripts of the
// named kind ("traces", "logs") differ, with both transcripts in full.
func reflectorCompare(t *testing.T, kind string, want, got []string) {
	t.Helper()
	if d := lineDiffs(want, got); len(d) > 0 {
		t.Errorf("%s differ at line %d:\nclient-go: %s\nkcache:    %s\n--- client-go %s:\n%s\n--- kcache %s:\n%s",
			kind, d[0].i+1, d[0].want, d[0].got, kind, strings.Join(want, "\n"), kind, strings.Join(got, "\n"))
	}
}
