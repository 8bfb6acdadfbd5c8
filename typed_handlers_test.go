package cache

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// typedRecorder is a TypedResourceEventHandler that records its calls.
type typedRecorder struct{ calls []string }

func (r *typedRecorder) OnAdd(p *v1.Pod, initial bool) {
	r.calls = append(r.calls, fmt.Sprintf("add %s %v", describeTestPod(p), initial))
}
func (r *typedRecorder) OnUpdate(o, n *v1.Pod) {
	r.calls = append(r.calls, fmt.Sprintf("update %s %s", describeTestPod(o), describeTestPod(n)))
}
func (r *typedRecorder) OnDelete(d DeletedObject[*v1.Pod]) {
	r.calls = append(r.calls, fmt.Sprintf("delete %s tombstone=%v key=%s", describeTestPod(d.OptionalObj), d.FinalStateUnknown != nil, d.GetKey()))
}

// describeTestPod renders a pod as ns/name@rv, or nil.
func describeTestPod(p *v1.Pod) string {
	if p == nil {
		return "nil"
	}
	return p.Namespace + "/" + p.Name + "@" + p.ResourceVersion
}

func TestDeletedObjectNamesTheObjectFromTheTombstoneKeyOrTheObject(t *testing.T) {
	cases := []struct {
		name                     string
		deleted                  DeletedObject[*v1.Pod]
		key, namespace, wantName string
	}{
		{"final state", DeletedObject[*v1.Pod]{OptionalObj: testPod("ns", "a", "1")}, "ns/a", "ns", "a"},
		{"cluster-scoped final state", DeletedObject[*v1.Pod]{OptionalObj: testPod("", "a", "1")}, "a", "", "a"},
		{"nothing", DeletedObject[*v1.Pod]{}, "", "", ""},
		{"tombstone wins over the object", DeletedObject[*v1.Pod]{OptionalObj: testPod("ns", "a", "1"), FinalStateUnknown: &DeletedFinalStateUnknown{Key: "o/b"}}, "o/b", "o", "b"},
		{"tombstone without namespace", DeletedObject[*v1.Pod]{FinalStateUnknown: &DeletedFinalStateUnknown{Key: "b"}}, "b", "", "b"},
		{"tombstone split at the first slash", DeletedObject[*v1.Pod]{FinalStateUnknown: &DeletedFinalStateUnknown{Key: "a/b/c"}}, "a/b/c", "a", "b/c"},
		{"tombstone with a trailing slash", DeletedObject[*v1.Pod]{FinalStateUnknown: &DeletedFinalStateUnknown{Key: "a/"}}, "a/", "a", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.deleted
			if d.GetKey() != tc.key || d.GetNamespace() != tc.namespace || d.GetName() != tc.wantName {
				t.Fatalf("key/namespace/name = %q %q %q, want %q %q %q", d.GetKey(), d.GetNamespace(), d.GetName(), tc.key, tc.namespace, tc.wantName)
			}
			if on := d.GetObjectName(); on != (ObjectName{Namespace: tc.namespace, Name: tc.wantName}) {
				t.Fatalf("GetObjectName = %+v", on)
			}
		})
	}
}

func TestTypedAdapterUnwrapsTombstonesAndPanicsOnOtherTypes(t *testing.T) {
	stale := testPod("ns", "a", "1")
	cases := []struct {
		name      string
		call      func(h ResourceEventHandler)
		want      string
		wantPanic bool
	}{
		{"add", func(h ResourceEventHandler) { h.OnAdd(stale, true) }, "add ns/a@1 true", false},
		{"update", func(h ResourceEventHandler) { h.OnUpdate(stale, testPod("ns", "a", "2")) }, "update ns/a@1 ns/a@2", false},
		{"delete", func(h ResourceEventHandler) { h.OnDelete(stale) }, "delete ns/a@1 tombstone=false key=ns/a", false},
		{"stale tombstone", func(h ResourceEventHandler) { h.OnDelete(DeletedFinalStateUnknown{Key: "ns/a", Obj: stale}) }, "delete ns/a@1 tombstone=true key=ns/a", false},
		{"empty tombstone", func(h ResourceEventHandler) { h.OnDelete(DeletedFinalStateUnknown{Key: "ns/a"}) }, "delete nil tombstone=true key=ns/a", false},
		{"add of another type", func(h ResourceEventHandler) { h.OnAdd("x", false) }, "", true},
		{"tombstone of another type", func(h ResourceEventHandler) { h.OnDelete(DeletedFinalStateUnknown{Key: "k", Obj: 1}) }, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := &typedRecorder{}
			h := &typedResourceEventHandler[*v1.Pod]{handler: rec}
			panicked := func() (p bool) {
				defer func() { p = recover() != nil }()
				tc.call(h)
				return false
			}()
			if panicked != tc.wantPanic {
				t.Fatalf("panicked = %v, want %v", panicked, tc.wantPanic)
			}
			if got := fmt.Sprint(rec.calls); !tc.wantPanic && got != "["+tc.want+"]" {
				t.Fatalf("calls = %s, want [%s]", got, tc.want)
			}
		})
	}
}

func TestTypedFilteringHandlerTurnsUpdatesAcrossTheFilterIntoAddsAndDeletes(t *testing.T) {
	in := testPod("ns", "in", "2")
	out := testPod("ns", "out", "1")
	cases := []struct {
		name     string
		old, new *v1.Pod
		want     string
	}{
		{"both accepted", in, in, "[update ns/in@2 ns/in@2]"},
		{"into the filter", out, in, "[add ns/in@2 false]"},
		{"out of the filter", in, out, "[delete ns/in@2 tombstone=false key=ns/in]"},
		{"both rejected", out, out, "[]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := &typedRecorder{}
			h := TypedFilteringResourceEventHandler[*v1.Pod]{FilterFunc: func(p *v1.Pod) bool { return p.Name == "in" }, Handler: rec}
			h.OnUpdate(tc.old, tc.new)
			if got := fmt.Sprint(rec.calls); got != tc.want {
				t.Fatalf("calls = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestTypedFuncsIgnoreNilFunctionsAndPassArguments(t *testing.T) {
	var got []string
	var empty TypedResourceEventHandlerFuncs[*v1.Pod]
	empty.OnAdd(nil, true)
	empty.OnUpdate(nil, nil)
	empty.OnDelete(DeletedObject[*v1.Pod]{})
	var emptyDetailed TypedResourceEventHandlerDetailedFuncs[*v1.Pod]
	emptyDetailed.OnAdd(nil, true)
	emptyDetailed.OnUpdate(nil, nil)
	emptyDetailed.OnDelete(DeletedObject[*v1.Pod]{})
	funcs := TypedResourceEventHandlerFuncs[*v1.Pod]{
		AddFunc:    func(p *v1.Pod) { got = append(got, "add "+p.Name) },
		UpdateFunc: func(o, n *v1.Pod) { got = append(got, "update "+o.Name+" "+n.Name) },
		DeleteFunc: func(d DeletedObject[*v1.Pod]) { got = append(got, "delete "+d.GetName()) },
	}
	detailed := TypedResourceEventHandlerDetailedFuncs[*v1.Pod]{
		AddFunc: func(p *v1.Pod, initial bool) { got = append(got, fmt.Sprintf("detailed add %s %v", p.Name, initial)) },
	}
	p := testPod("ns", "a", "1")
	funcs.OnAdd(p, true)
	funcs.OnUpdate(p, p)
	funcs.OnDelete(DeletedObject[*v1.Pod]{OptionalObj: p})
	detailed.OnAdd(p, true)
	if want := "[add a update a a delete a detailed add a true]"; fmt.Sprint(got) != want {
		t.Fatalf("calls = %v, want %s", got, want)
	}
}
