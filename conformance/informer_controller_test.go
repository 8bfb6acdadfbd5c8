package conformance

import (
	"context"
	"errors"
	"reflect"
	"sort"
	"testing"
	"time"
)

// informerPlainController adapts the NewInformerWithOptions family of either
// library to informerUnderTest. Such an informer has exactly one handler,
// given at construction: the adapter builds the informer when the scenario
// starts it, from the handler registered before.
type informerPlainController struct {
	// lib builds the store and controller for the handler (filtered when
	// filter is set), the resync period, indexers and transform.
	lib informerLib

	lw        *informerScriptedSource
	resync    time.Duration
	indexers  []string
	transform func(interface{}) (interface{}, error)
	handler   *informerRecorder
	filter    func(interface{}) bool
	store     informerPlainStore
	ctrl      informerRunner
	ran       bool
}

// informerPlainStore is the read side both libraries' stores share.
type informerPlainStore interface {
	List() []interface{}
	ByIndex(index, value string) ([]interface{}, error)
	LastStoreSyncResourceVersion() string
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
	built := a.lib.plain(a.lw, h, informerPlainOptions{filter: a.filter, resync: a.resync, indexers: informerIndexFuncsOf(a.indexers), transform: a.transform})
	a.store, a.ctrl = built.store, built.ctrl
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

// informerPlainBuilder wraps a library's plain informer as an
// informerBuilder.
func informerPlainBuilder(lib informerLib) informerBuilder {
	return func(lw *informerScriptedSource, resync time.Duration, indexers []string) informerUnderTest {
		return &informerPlainController{lib: lib, lw: lw, resync: resync, indexers: indexers}
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
					want := informerPlay(t, sc, informerPlainBuilder(informerClientGo))
					got := informerPlay(t, sc, informerPlainBuilder(informerKCache))
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
