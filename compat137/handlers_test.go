package compat137

import (
	"testing"
	"time"

	kc "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	cg "k8s.io/client-go/tools/cache"
)

// untypedHandler is ResourceEventHandler of either library.
type untypedHandler interface {
	OnAdd(obj any, isInInitialList bool)
	OnUpdate(oldObj, newObj any)
	OnDelete(obj any)
}

// notificationInputs are the notifications both adapters receive; tombstone
// builds each library's DeletedFinalStateUnknown (and pointer).
func notificationInputs(tombstone func(key string, obj any) any, tombstonePtr func(key string, obj any) any) []struct {
	name string
	call func(h untypedHandler)
} {
	type in = struct {
		name string
		call func(h untypedHandler)
	}
	del := func(name string, obj any) in { return in{name, func(h untypedHandler) { h.OnDelete(obj) }} }
	return []in{
		{"initial add", func(h untypedHandler) { h.OnAdd(pod("ns", "a", "1"), true) }},
		{"later add", func(h untypedHandler) { h.OnAdd(pod("", "node-scoped", "2"), false) }},
		{"add of a nil pod", func(h untypedHandler) { h.OnAdd((*v1.Pod)(nil), false) }},
		{"add of another type", func(h untypedHandler) { h.OnAdd("str", false) }},
		{"add of nil", func(h untypedHandler) { h.OnAdd(nil, true) }},
		{"update", func(h untypedHandler) { h.OnUpdate(pod("ns", "a", "1"), pod("ns", "a", "2")) }},
		{"update from another type", func(h untypedHandler) { h.OnUpdate("str", pod("ns", "a", "2")) }},
		{"update to another type", func(h untypedHandler) { h.OnUpdate(pod("ns", "a", "2"), 7) }},
		del("delete with the final state", pod("ns", "a", "3")),
		del("delete of a cluster-scoped object", pod("", "a", "3")),
		del("delete of a nil pod", (*v1.Pod)(nil)),
		del("tombstone with a stale object", tombstone("ns/a", pod("ns", "a", "1"))),
		del("tombstone without an object", tombstone("ns/a", nil)),
		del("tombstone of a cluster-scoped key", tombstone("a", nil)),
		del("tombstone whose key disagrees with its object", tombstone("other/b", pod("ns", "a", "1"))),
		del("tombstone with an empty key", tombstone("", nil)),
		del("tombstone with a leading slash", tombstone("/x", nil)),
		del("tombstone with a trailing slash", tombstone("x/", nil)),
		del("tombstone with two slashes", tombstone("a/b/c", nil)),
		del("tombstone with an object of another type", tombstone("ns/a", "str")),
		del("tombstone pointer", tombstonePtr("ns/a", pod("ns", "a", "1"))),
		del("tombstone of a tombstone", tombstone("ns/a", tombstone("ns/a", pod("ns", "a", "1")))),
		del("tombstone of a tombstone without an object", tombstone("ns/a", tombstone("ns/a", nil))),
		del("tombstone of a nil pod", tombstone("ns/a", (*v1.Pod)(nil))),
		del("delete of another type", "str"),
		del("delete of nil", nil),
	}
}

// typedTraceCG returns the handler recording into r for client-go.
func typedTraceCG(r *recorder) cg.TypedResourceEventHandler[*v1.Pod] {
	return cg.TypedResourceEventHandlerDetailedFuncs[*v1.Pod]{
		AddFunc:    func(obj *v1.Pod, initial bool) { r.logf("add %s initial=%v", describe(obj), initial) },
		UpdateFunc: func(o, n *v1.Pod) { r.logf("update %s -> %s", describe(o), describe(n)) },
		DeleteFunc: func(d cg.DeletedObject[*v1.Pod]) { r.logf("delete %s", describeDeletedCG(d)) },
	}
}

// typedTraceKC returns the handler recording into r for kcache.
func typedTraceKC(r *recorder) kc.TypedResourceEventHandler[*v1.Pod] {
	return kc.TypedResourceEventHandlerDetailedFuncs[*v1.Pod]{
		AddFunc:    func(obj *v1.Pod, initial bool) { r.logf("add %s initial=%v", describe(obj), initial) },
		UpdateFunc: func(o, n *v1.Pod) { r.logf("update %s -> %s", describe(o), describe(n)) },
		DeleteFunc: func(d kc.DeletedObject[*v1.Pod]) { r.logf("delete %s", describeDeletedKC(d)) },
	}
}

// recordingCalls records the registration calls a typed wrapper makes on
// an informer of either library and keeps the adapter it registers: H is
// the library's ResourceEventHandler, R its registration, O its
// HandlerOptions and X its Indexers. options renders O's logger and resync
// period.
type recordingCalls[H, R, O any, X ~map[string]F, F any] struct {
	r       *recorder
	adapter H
	options func(O) (logger bool, resync *time.Duration)
}

func (f *recordingCalls[H, R, O, X, F]) AddEventHandler(h H) (R, error) {
	f.r.logf("AddEventHandler")
	f.adapter = h
	var none R
	return none, nil
}

func (f *recordingCalls[H, R, O, X, F]) AddEventHandlerWithResyncPeriod(h H, p time.Duration) (R, error) {
	f.r.logf("AddEventHandlerWithResyncPeriod %v", p)
	f.adapter = h
	var none R
	return none, nil
}

func (f *recordingCalls[H, R, O, X, F]) AddEventHandlerWithOptions(h H, o O) (R, error) {
	logger, resync := f.options(o)
	f.r.logf("AddEventHandlerWithOptions logger=%v resync=%s", logger, describePeriod(resync))
	f.adapter = h
	var none R
	return none, errRegistered
}

func (f *recordingCalls[H, R, O, X, F]) AddIndexers(ix X) error {
	f.r.logf("AddIndexers %d nil=%v", len(ix), ix == nil)
	return nil
}

// informerCG and informerKC hold each library's SharedIndexInformer one
// embedding deeper than recordingCalls, so that its methods win.
type (
	informerCG struct{ cg.SharedIndexInformer }
	informerKC struct{ kc.SharedIndexInformer }
)

// recordingInformerCG is a client-go SharedIndexInformer that records the
// registration calls the typed wrapper makes and keeps the adapter.
type recordingInformerCG struct {
	informerCG
	*recordingCalls[cg.ResourceEventHandler, cg.ResourceEventHandlerRegistration, cg.HandlerOptions, cg.Indexers, cg.IndexFunc]
}

// recordingInformerKC is recordingInformerCG for kcache.
type recordingInformerKC struct {
	informerKC
	*recordingCalls[kc.ResourceEventHandler, kc.ResourceEventHandlerRegistration, kc.HandlerOptions, kc.Indexers, kc.IndexFunc]
}

// newRecordingInformerCG returns a client-go recording informer logging to r.
func newRecordingInformerCG(r *recorder) *recordingInformerCG {
	return &recordingInformerCG{recordingCalls: &recordingCalls[cg.ResourceEventHandler, cg.ResourceEventHandlerRegistration, cg.HandlerOptions, cg.Indexers, cg.IndexFunc]{
		r: r, options: func(o cg.HandlerOptions) (bool, *time.Duration) { return o.Logger != nil, o.ResyncPeriod }}}
}

// newRecordingInformerKC returns a kcache recording informer logging to r.
func newRecordingInformerKC(r *recorder) *recordingInformerKC {
	return &recordingInformerKC{recordingCalls: &recordingCalls[kc.ResourceEventHandler, kc.ResourceEventHandlerRegistration, kc.HandlerOptions, kc.Indexers, kc.IndexFunc]{
		r: r, options: func(o kc.HandlerOptions) (bool, *time.Duration) { return o.Logger != nil, o.ResyncPeriod }}}
}

// errRegistered is what the recording informers' AddEventHandlerWithOptions
// returns, to show that the typed wrapper passes it through.
var errRegistered = errorString("registered by the recording informer")

type errorString string

func (e errorString) Error() string { return string(e) }

// describePeriod renders an optional duration.
func describePeriod(p *time.Duration) string {
	if p == nil {
		return "nil"
	}
	return p.String()
}

// optionCases are the option lists AddTypedEventHandler is called with.
var optionCases = func() []struct {
	name string
	opts []cg.HandlerOptions
	kopt []kc.HandlerOptions
} {
	period := 3 * time.Second
	return []struct {
		name string
		opts []cg.HandlerOptions
		kopt []kc.HandlerOptions
	}{
		{"no options", nil, nil},
		{"one empty options", []cg.HandlerOptions{{}}, []kc.HandlerOptions{{}}},
		{"one options with a resync period", []cg.HandlerOptions{{ResyncPeriod: &period}}, []kc.HandlerOptions{{ResyncPeriod: &period}}},
		{"two options", []cg.HandlerOptions{{}, {}}, []kc.HandlerOptions{{}, {}}},
		{"three options", []cg.HandlerOptions{{}, {}, {}}, []kc.HandlerOptions{{}, {}, {}}},
	}
}()

func TestAddTypedEventHandlerRegistersThroughAddEventHandlerWithOptionsAndRejectsMoreThanOneOptions(t *testing.T) {
	for _, tc := range optionCases {
		t.Run(tc.name, func(t *testing.T) {
			var c, k recorder
			ci := newRecordingInformerCG(&c)
			reg, err := cg.NewTypedSharedIndexInformer[*v1.Pod](ci).AddTypedEventHandler(typedTraceCG(&c), tc.opts...)
			c.logf("registration=%v err=%v adapter=%v", reg != nil, err, ci.adapter != nil)
			ki := newRecordingInformerKC(&k)
			kreg, kerr := kc.NewTypedSharedIndexInformer[*v1.Pod](ki).AddTypedEventHandler(typedTraceKC(&k), tc.kopt...)
			k.logf("registration=%v err=%v adapter=%v", kreg != nil, kerr, ki.adapter != nil)
			compareTraces(t, c.lines, k.lines)
		})
	}
}

func TestTypedHandlerAdapterConvertsEveryNotificationAsClientGoDoes(t *testing.T) {
	var c, k recorder
	ci := newRecordingInformerCG(&c)
	if _, err := cg.NewTypedSharedIndexInformer[*v1.Pod](ci).AddTypedEventHandler(typedTraceCG(&c)); err != errRegistered {
		t.Fatalf("client-go: %v", err)
	}
	ki := newRecordingInformerKC(&k)
	if _, err := kc.NewTypedSharedIndexInformer[*v1.Pod](ki).AddTypedEventHandler(typedTraceKC(&k)); err != errRegistered {
		t.Fatalf("kcache: %v", err)
	}
	cgInputs := notificationInputs(
		func(key string, obj any) any { return cg.DeletedFinalStateUnknown{Key: key, Obj: obj} },
		func(key string, obj any) any { return &cg.DeletedFinalStateUnknown{Key: key, Obj: obj} })
	kcInputs := notificationInputs(
		func(key string, obj any) any { return kc.DeletedFinalStateUnknown{Key: key, Obj: obj} },
		func(key string, obj any) any { return &kc.DeletedFinalStateUnknown{Key: key, Obj: obj} })
	for i := range cgInputs {
		c.logf("-- %s", cgInputs[i].name)
		if p := capture(func() { cgInputs[i].call(ci.adapter) }); p != "" {
			c.logf("%s", p)
		}
		k.logf("-- %s", kcInputs[i].name)
		if p := capture(func() { kcInputs[i].call(ki.adapter) }); p != "" {
			k.logf("%s", p)
		}
	}
	compareTraces(t, c.lines, k.lines)
}
