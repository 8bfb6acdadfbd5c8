package conformance

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	kcache "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// informerRemovalSide is one library's shared informer reduced to the calls
// the removal-race plays make. Registrations are handed around as any.
type informerRemovalSide struct {
	add    func(h *informerRemovalHandler) any
	remove func(reg any) string
	synced func(reg any) bool
	run    func(ctx context.Context)
	rvs    func() string
	// setters calls every configuration method and renders the errors.
	setters func() string
}

// informerRemovalHandler counts deliveries; while gate is set, the first
// call that finds it set blocks on it. onUpdate, when set, runs inside the
// first update before the count.
type informerRemovalHandler struct {
	mu       sync.Mutex
	calls    []string
	gate     chan struct{}
	onUpdate func()
}

func (h *informerRemovalHandler) note(s string) {
	h.mu.Lock()
	h.calls = append(h.calls, s)
	gate := h.gate
	h.gate = nil
	var hook func()
	if strings.HasPrefix(s, "update") {
		hook, h.onUpdate = h.onUpdate, nil
	}
	h.mu.Unlock()
	if hook != nil {
		hook()
	}
	if gate != nil {
		<-gate
	}
}
func (h *informerRemovalHandler) OnAdd(obj interface{}, initial bool) {
	h.note(fmt.Sprintf("add %s initial=%v", informerDescribe(obj), initial))
}
func (h *informerRemovalHandler) OnUpdate(_, obj interface{}) {
	h.note("update " + informerDescribe(obj))
}
func (h *informerRemovalHandler) OnDelete(obj interface{}) {
	h.note("delete " + informerDescribe(obj))
}
func (h *informerRemovalHandler) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.calls)
}

func informerRemovalClientGo(lw *informerScriptedSource) informerRemovalSide {
	return informerRemovalOf[cache.IndexFunc, cache.Reflector](
		informerRemovalClientGoAPI(cache.NewSharedIndexInformer(lw, &v1.Pod{}, 0, cache.Indexers{})))
}

func informerRemovalKcache(lw *informerScriptedSource) informerRemovalSide {
	return informerRemovalOf[kcache.IndexFunc, kcache.Reflector](
		informerRemovalKCacheAPI(kcache.NewSharedIndexInformer(lw, &v1.Pod{}, 0, kcache.Indexers{})))
}

// informerRemovalAPI is a library's SharedIndexInformer as the removal
// side calls it: H is its ResourceEventHandler, R its registration, C what
// GetController returns, X its Indexers, T its TransformFunc, W and WC its
// WatchErrorHandler and WatchErrorHandlerWithContext.
type informerRemovalAPI[H any, R informerRegistration, C interface{ LastSyncResourceVersion() string }, X, T, W, WC any] interface {
	AddEventHandler(handler H) (R, error)
	RemoveEventHandler(handle R) error
	RunWithContext(ctx context.Context)
	LastSyncResourceVersion() string
	GetController() C
	SetTransform(handler T) error
	SetWatchErrorHandler(handler W) error
	SetWatchErrorHandlerWithContext(handler WC) error
	AddIndexers(indexers X) error
}

// informerRemovalClientGoAPI and informerRemovalKCacheAPI are
// informerRemovalAPI of each library's types.
type (
	informerRemovalClientGoAPI = informerRemovalAPI[cache.ResourceEventHandler, cache.ResourceEventHandlerRegistration,
		cache.Controller, cache.Indexers, cache.TransformFunc, cache.WatchErrorHandler, cache.WatchErrorHandlerWithContext]
	informerRemovalKCacheAPI = informerRemovalAPI[kcache.ResourceEventHandler, kcache.ResourceEventHandlerRegistration,
		kcache.Controller, kcache.Indexers, kcache.TransformFunc, kcache.WatchErrorHandler, kcache.WatchErrorHandlerWithContext]
)

// informerRemovalOf is the removal side of a library's informer inf: F is
// its IndexFunc, RF its Reflector, the rest informerRemovalAPI's.
func informerRemovalOf[F ~func(any) ([]string, error), RF any, H any, R informerRegistration,
	C interface{ LastSyncResourceVersion() string }, X ~map[string]F, T ~func(any) (any, error),
	W ~func(*RF, error), WC ~func(context.Context, *RF, error)](inf informerRemovalAPI[H, R, C, X, T, W, WC]) informerRemovalSide {
	return informerRemovalSide{
		add: func(h *informerRemovalHandler) any {
			reg, err := inf.AddEventHandler(any(h).(H))
			if err != nil {
				return err.Error()
			}
			return reg
		},
		remove: func(reg any) string {
			r, _ := reg.(R)
			return fmt.Sprint(inf.RemoveEventHandler(r))
		},
		synced: func(reg any) bool {
			r, ok := reg.(R)
			return ok && r.HasSynced()
		},
		run: inf.RunWithContext,
		rvs: func() string {
			return fmt.Sprintf("informer=%q controller=%q", inf.LastSyncResourceVersion(), inf.GetController().LastSyncResourceVersion())
		},
		setters: func() string {
			return fmt.Sprintf("transform=%v watch-error=%v watch-error-ctx=%v indexers=%v",
				informerMisuseCall(func() error { return inf.SetTransform(func(o interface{}) (interface{}, error) { return o, nil }) }),
				informerMisuseCall(func() error { return inf.SetWatchErrorHandler(func(*RF, error) {}) }),
				informerMisuseCall(func() error {
					return inf.SetWatchErrorHandlerWithContext(func(context.Context, *RF, error) {})
				}),
				informerMisuseCall(func() error { return inf.AddIndexers(X{"x": informerIndexFuncs["by-app"]}) }))
		},
	}
}

// informerRemovalPlay runs one side through: a handler blocked in its first
// update with nine more queued is removed concurrently; a second handler
// removes itself from inside its first update; removal twice, after stop;
// a handler blocked while the informer stops (does Run wait?); resource
// versions at each moment.
func informerRemovalPlay(t *testing.T, build func(lw *informerScriptedSource) informerRemovalSide) []string {
	var out []string
	synctest.Test(t, func(t *testing.T) {
		lw := &informerScriptedSource{lists: []informerListResponse{{RV: "10", Pods: []string{"a@1"}}}, watchers: make(chan *watch.FakeWatcher, 16)}
		inf := build(lw)
		out = append(out, "before run: "+inf.rvs())
		blocked := &informerRemovalHandler{}
		self := &informerRemovalHandler{}
		stuck := &informerRemovalHandler{}
		regBlocked := inf.add(blocked)
		regSelf := inf.add(self)
		regStuck := inf.add(stuck)
		var selfRemoved string
		self.onUpdate = func() { selfRemoved = inf.remove(regSelf) }
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { inf.run(ctx); close(done) }()
		w := <-lw.watchers
		synctest.Wait()
		out = append(out, "setters after start: "+inf.setters())
		out = append(out, "synced: "+inf.rvs(), fmt.Sprintf("registrations synced: %v %v %v", inf.synced(regBlocked), inf.synced(regSelf), inf.synced(regStuck)))
		gate := make(chan struct{})
		blocked.mu.Lock()
		blocked.gate = gate
		blocked.mu.Unlock()
		for i := 0; i < 10; i++ {
			w.Modify(informerParsePod(fmt.Sprintf("a@%d", 11+i)))
		}
		synctest.Wait()
		out = append(out, "after 10 updates: "+inf.rvs(), fmt.Sprintf("blocked handler calls while blocked: %d", blocked.count()))
		removed := make(chan string)
		go func() { removed <- inf.remove(regBlocked) }()
		out = append(out, "concurrent remove: "+<-removed)
		close(gate)
		synctest.Wait()
		out = append(out, fmt.Sprintf("blocked handler calls after removal and release: %d", blocked.count()))
		// NB: client-go sometimes hands a handler that removed itself one more
		// notification (its hand-off channel may already hold it); compare
		// the bound, not the count.
		out = append(out, fmt.Sprintf("self-removing handler: remove=%s at most one call after the removing one: %v", selfRemoved, self.count() <= 3))
		out = append(out, "remove again: "+inf.remove(regBlocked), "remove self again: "+inf.remove(regSelf))
		out = append(out, fmt.Sprintf("removed registrations synced: %v %v", inf.synced(regBlocked), inf.synced(regSelf)))
		late := &informerRemovalHandler{}
		regLate := inf.add(late)
		synctest.Wait()
		out = append(out, fmt.Sprintf("late registration synced=%v calls=%v", inf.synced(regLate), late.calls))
		stuckGate := make(chan struct{})
		stuck.mu.Lock()
		stuck.gate = stuckGate
		stuck.mu.Unlock()
		w.Modify(informerParsePod("a@30"))
		w.Modify(informerParsePod("a@31"))
		synctest.Wait()
		cancel()
		synctest.Wait()
		select {
		case <-done:
			out = append(out, "run returned while a handler was blocked")
		default:
			out = append(out, "run waits for the blocked handler")
		}
		// NB: no removal while stopping: client-go's RemoveEventHandler then
		// blocks on a mutex until the handler returns, which synctest cannot
		// wait for.
		close(stuckGate)
		<-done
		synctest.Wait()
		out = append(out, fmt.Sprintf("stuck handler calls: %d", stuck.count()))
		out = append(out, "setters after stop: "+inf.setters())
		out = append(out, "after stop: "+inf.rvs(), "remove after stop: "+inf.remove(regStuck), "remove nil after stop: "+inf.remove(nil))
		out = append(out, fmt.Sprintf("registrations synced after stop: %v %v", inf.synced(regStuck), inf.synced(regLate)))
	})
	return out
}

// TestRemovingAHandlerRacingWithDeliveriesMatchesClientGo pins what a
// handler still receives once RemoveEventHandler returned (only the one in
// flight), removal from inside the handler, removal twice and after stop,
// whether Run waits for a blocked handler, and the resource versions the
// informer and its GetController() report at each moment.
func TestRemovingAHandlerRacingWithDeliveriesMatchesClientGo(t *testing.T) {
	for _, mode := range informerModes {
		t.Run(mode.Name, func(t *testing.T) {
			informerSetGates(t, mode.Gates)
			want := informerRemovalPlay(t, func(lw *informerScriptedSource) informerRemovalSide {
				lw.watchList = informerWatchListOn()
				return informerRemovalClientGo(lw)
			})
			got := informerRemovalPlay(t, func(lw *informerScriptedSource) informerRemovalSide {
				lw.watchList = informerWatchListOn()
				return informerRemovalKcache(lw)
			})
			if !reflect.DeepEqual(want, got) {
				t.Errorf("kcache differs from client-go:\nclient-go:\n  %s\nkcache:\n  %s", strings.Join(want, "\n  "), strings.Join(got, "\n  "))
			}
		})
	}
}
