package conformance

import (
	"context"
	"errors"
	"reflect"
	"sort"
	"testing"
	"time"

	kcache "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
)

// informerPlainController adapts the NewInformerWithOptions family of either
// library to informerUnderTest. Such an informer has exactly one handler,
// given at construction: the adapter builds the informer when the scenario
// starts it, from the handler registered before.
type informerPlainController struct {
	// build makes the store and controller for the handler (filtered when
	// filter is set) and the resync period.
	build func(lw *informerScriptedSource, h *informerRecorder, filter func(interface{}) bool, resync time.Duration, indexers []string, transform func(interface{}) (interface{}, error)) (informerPlainStore, informerPlainRunner)

	lw        *informerScriptedSource
	resync    time.Duration
	indexers  []string
	transform func(interface{}) (interface{}, error)
	handler   *informerRecorder
	filter    func(interface{}) bool
	store     informerPlainStore
	ctrl      informerPlainRunner
	ran       bool
}

// informerPlainStore is the read side both libraries' stores share.
type informerPlainStore interface {
	List() []interface{}
	ByIndex(index, value string) ([]interface{}, error)
	LastStoreSyncResourceVersion() string
}

// informerPlainRunner is the part of a Controller the adapter uses.
type informerPlainRunner interface {
	RunWithContext(ctx context.Context)
	HasSynced() bool
	LastSyncResourceVersion() string
}

// informerPlainRegistration reports the controller's HasSynced, the only
// sync state a plain informer has.
type informerPlainRegistration struct{ a *informerPlainController }

func (r informerPlainRegistration) HasSynced() bool { return r.a.hasSynced() }

func (a *informerPlainController) addHandler(r *informerRecorder, filter func(interface{}) bool, resync *time.Duration) (informerRegistration, error) {
	if a.handler != nil || a.ran {
		return nil, errors.New("a plain informer has exactly one handler, given before it runs")
	}
	if resync != nil {
		a.resync = *resync
	}
	a.handler, a.filter = r, filter
	return informerPlainRegistration{a}, nil
}

func (a *informerPlainController) remove(informerRegistration) error {
	return errors.New("a plain informer cannot remove its handler")
}

func (a *informerPlainController) run(ctx context.Context) {
	a.ctrl.RunWithContext(ctx)
}

// prepare builds the informer; the runner calls it before starting.
func (a *informerPlainController) prepare() {
	h := a.handler
	if h == nil {
		h = &informerRecorder{}
	}
	a.store, a.ctrl = a.build(a.lw, h, a.filter, a.resync, a.indexers, a.transform)
	a.ran = true
}

func (a *informerPlainController) hasSynced() bool {
	return a.ctrl != nil && a.ctrl.HasSynced()
}

func (a *informerPlainController) cacheContents() []string {
	if a.store == nil {
		return nil
	}
	var out []string
	for _, obj := range a.store.List() {
		out = append(out, informerDescribe(obj))
	}
	sort.Strings(out)
	return out
}

func (a *informerPlainController) byIndex(index, value string) []string {
	objs, err := a.store.ByIndex(index, value)
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	var out []string
	for _, obj := range objs {
		out = append(out, informerDescribe(obj))
	}
	sort.Strings(out)
	return out
}

func (a *informerPlainController) addIndexers([]string) error {
	return errors.New("not supported by plain informers")
}

func (a *informerPlainController) setTransform(fn func(interface{}) (interface{}, error)) error {
	if a.ran {
		return errors.New("already built")
	}
	a.transform = fn
	return nil
}

func (a *informerPlainController) lastSyncResourceVersion() string {
	if a.ctrl == nil {
		return ""
	}
	return a.ctrl.LastSyncResourceVersion()
}

func (a *informerPlainController) storeResourceVersion() string {
	if a.store == nil {
		return ""
	}
	return a.store.LastStoreSyncResourceVersion()
}

func (a *informerPlainController) isStopped() bool { return false }

func informerPlainClientGo(lw *informerScriptedSource, h *informerRecorder, filter func(interface{}) bool, resync time.Duration, indexers []string, transform func(interface{}) (interface{}, error)) (informerPlainStore, informerPlainRunner) {
	var handler cache.ResourceEventHandler = h
	if filter != nil {
		handler = cache.FilteringResourceEventHandler{FilterFunc: filter, Handler: h}
	}
	idx := cache.Indexers{}
	for _, n := range indexers {
		idx[n] = informerIndexFuncs[n]
	}
	store, ctrl := cache.NewInformerWithOptions(cache.InformerOptions{
		ListerWatcher: lw, ObjectType: &v1.Pod{}, Handler: handler, ResyncPeriod: resync, Indexers: idx, Transform: transform,
	})
	return store.(cache.Indexer), ctrl
}

func informerPlainKcache(lw *informerScriptedSource, h *informerRecorder, filter func(interface{}) bool, resync time.Duration, indexers []string, transform func(interface{}) (interface{}, error)) (informerPlainStore, informerPlainRunner) {
	var handler kcache.ResourceEventHandler = h
	if filter != nil {
		handler = kcache.FilteringResourceEventHandler{FilterFunc: filter, Handler: h}
	}
	idx := kcache.Indexers{}
	for _, n := range indexers {
		idx[n] = informerIndexFuncs[n]
	}
	store, ctrl := kcache.NewInformerWithOptions(kcache.InformerOptions{
		ListerWatcher: lw, ObjectType: &v1.Pod{}, Handler: handler, ResyncPeriod: resync, Indexers: idx, Transform: transform,
	})
	return store.(kcache.Indexer), ctrl
}

// informerPlainBuilder wraps a library's plain informer constructor as an
// informerBuilder.
func informerPlainBuilder(build func(*informerScriptedSource, *informerRecorder, func(interface{}) bool, time.Duration, []string, func(interface{}) (interface{}, error)) (informerPlainStore, informerPlainRunner)) informerBuilder {
	return func(lw *informerScriptedSource, resync time.Duration, indexers []string) informerUnderTest {
		return &informerPlainController{build: build, lw: lw, resync: resync, indexers: indexers}
	}
}

// informerSuitsPlainInformer reports whether a scenario only uses what a
// plain informer offers: at most one handler, registered before start, and
// no removal, late indexers, late transform or stop.
func informerSuitsPlainInformer(sc informerScenario) bool {
	handlers, started := 0, false
	for _, st := range sc.Steps {
		switch st.Op {
		case "start":
			started = true
		case "handler":
			handlers++
			if started {
				return false
			}
		case "remove", "addIndexers", "lateTransform", "stop":
			return false
		}
	}
	return handlers <= 1
}

// TestInformerPlainInformersBehaveLikeClientGos plays every scenario that
// fits a single-handler informer through NewInformerWithOptions of both
// libraries, in every gate mode, and requires identical traces.
func TestInformerPlainInformersBehaveLikeClientGos(t *testing.T) {
	played := 0
	for _, sc := range informerLoadScenarios(t, informerScenarioDir) {
		if !informerSuitsPlainInformer(sc) {
			continue
		}
		played++
		t.Run(sc.Name, func(t *testing.T) {
			for _, mode := range informerModes {
				if !informerRunsIn(sc, mode.Name) {
					continue
				}
				t.Run(mode.Name, func(t *testing.T) {
					informerSetGates(t, mode.Gates)
					want := informerPlay(t, sc, informerPlainBuilder(informerPlainClientGo))
					got := informerPlay(t, sc, informerPlainBuilder(informerPlainKcache))
					if informerTraceIsEmpty(want) {
						t.Fatal("client-go produced an empty trace; the scenario observes nothing")
					}
					if !reflect.DeepEqual(want, got) {
						t.Errorf("kcache differs from client-go:\n%s", informerDiff(want, got))
					}
				})
			}
		})
	}
	if played < 10 {
		t.Fatalf("only %d scenarios suit a plain informer", played)
	}
}
