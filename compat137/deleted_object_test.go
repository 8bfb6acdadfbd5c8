package compat137

import (
	"fmt"
	"testing"

	kc "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	cg "k8s.io/client-go/tools/cache"
)

// describeDeletedCG renders a client-go DeletedObject and all its methods.
func describeDeletedCG(d cg.DeletedObject[*v1.Pod]) string { return describeDeletedOf(d) }

// describeDeletedKC renders a kcache DeletedObject and all its methods.
func describeDeletedKC(d kc.DeletedObject[*v1.Pod]) string { return describeDeletedOf(d) }

// deletedFields are the fields of both libraries' DeletedObject[*v1.Pod],
// U their DeletedFinalStateUnknown.
type deletedFields[U any] = struct {
	OptionalObj       *v1.Pod
	FinalStateUnknown *U
}

// tombstoneFields are the fields of both libraries' DeletedFinalStateUnknown.
type tombstoneFields = struct {
	Key string
	Obj any
}

// objectNameFields are the fields of both libraries' ObjectName.
type objectNameFields = struct {
	Namespace string
	Name      string
}

// describeDeletedOf renders a DeletedObject D of either library and all
// its methods; U is its DeletedFinalStateUnknown, N its ObjectName.
func describeDeletedOf[D interface {
	~deletedFields[U]
	GetKey() string
	GetName() string
	GetNamespace() string
	GetObjectName() N
}, U ~tombstoneFields, N interface {
	~objectNameFields
	String() string
}](d D) string {
	fields := deletedFields[U](d)
	fsu := "nil"
	if fields.FinalStateUnknown != nil {
		tomb := tombstoneFields(*fields.FinalStateUnknown)
		fsu = fmt.Sprintf("{%q %s}", tomb.Key, describe(tomb.Obj))
	}
	on := d.GetObjectName()
	name := objectNameFields(on)
	return fmt.Sprintf("opt=%s fsu=%s key=%q name=%q namespace=%q objectName={%q %q} %q",
		describe(fields.OptionalObj), fsu, d.GetKey(), d.GetName(), d.GetNamespace(), name.Namespace, name.Name, on.String())
}

func TestDeletedObjectMethodsAgreeForPresentStaleAndMissingObjects(t *testing.T) {
	type tombstone struct {
		key string
		obj any
	}
	cases := []struct {
		name string
		obj  *v1.Pod
		tomb *tombstone
	}{
		{"present namespaced object", pod("ns", "a", "3"), nil},
		{"present cluster-scoped object", pod("", "a", "3"), nil},
		{"nothing at all", nil, nil},
		{"stale object with its tombstone", pod("ns", "a", "1"), &tombstone{"ns/a", pod("ns", "a", "1")}},
		{"stale object whose tombstone key disagrees", pod("ns", "a", "1"), &tombstone{"o/b", pod("ns", "a", "1")}},
		{"tombstone without object", nil, &tombstone{"ns/a", nil}},
		{"tombstone of a cluster-scoped key", nil, &tombstone{"a", nil}},
		{"tombstone with an empty key", nil, &tombstone{"", nil}},
		{"tombstone with a leading slash", nil, &tombstone{"/a", nil}},
		{"tombstone with a trailing slash", nil, &tombstone{"a/", nil}},
		{"tombstone with three parts", nil, &tombstone{"a/b/c", nil}},
		{"tombstone with four parts", nil, &tombstone{"a/b/c/d", nil}},
		{"tombstone with only slashes", nil, &tombstone{"//", nil}},
	}
	var c, k recorder
	for _, tc := range cases {
		cd := cg.DeletedObject[*v1.Pod]{OptionalObj: tc.obj}
		kd := kc.DeletedObject[*v1.Pod]{OptionalObj: tc.obj}
		if tc.tomb != nil {
			cd.FinalStateUnknown = &cg.DeletedFinalStateUnknown{Key: tc.tomb.key, Obj: tc.tomb.obj}
			kd.FinalStateUnknown = &kc.DeletedFinalStateUnknown{Key: tc.tomb.key, Obj: tc.tomb.obj}
		}
		c.logf("%s: %s", tc.name, describeDeletedCG(cd))
		k.logf("%s: %s", tc.name, describeDeletedKC(kd))
	}
	compareTraces(t, c.lines, k.lines)
}

func TestTypedFuncsAndFilteringHandlersDispatchAsClientGo(t *testing.T) {
	labelled := pod("ns", "a", "2")
	labelled.Labels = map[string]string{"app": "web"}
	plain := pod("ns", "a", "1")
	wanted := func(p *v1.Pod) bool { return p != nil && p.Labels["app"] == "web" }
	var c, k recorder
	cf := cg.TypedFilteringResourceEventHandler[*v1.Pod]{FilterFunc: wanted, Handler: typedTraceCG(&c)}
	kf := kc.TypedFilteringResourceEventHandler[*v1.Pod]{FilterFunc: wanted, Handler: typedTraceKC(&k)}
	steps := []struct {
		name string
		cg   func()
		kc   func()
	}{
		{"add accepted", func() { cf.OnAdd(labelled, true) }, func() { kf.OnAdd(labelled, true) }},
		{"add rejected", func() { cf.OnAdd(plain, true) }, func() { kf.OnAdd(plain, true) }},
		{"update into the filter", func() { cf.OnUpdate(plain, labelled) }, func() { kf.OnUpdate(plain, labelled) }},
		{"update out of the filter", func() { cf.OnUpdate(labelled, plain) }, func() { kf.OnUpdate(labelled, plain) }},
		{"update inside the filter", func() { cf.OnUpdate(labelled, labelled) }, func() { kf.OnUpdate(labelled, labelled) }},
		{"update outside the filter", func() { cf.OnUpdate(plain, plain) }, func() { kf.OnUpdate(plain, plain) }},
		{"delete accepted with tombstone",
			func() {
				cf.OnDelete(cg.DeletedObject[*v1.Pod]{OptionalObj: labelled, FinalStateUnknown: &cg.DeletedFinalStateUnknown{Key: "ns/a"}})
			},
			func() {
				kf.OnDelete(kc.DeletedObject[*v1.Pod]{OptionalObj: labelled, FinalStateUnknown: &kc.DeletedFinalStateUnknown{Key: "ns/a"}})
			}},
		{"delete of a missing object", func() { cf.OnDelete(cg.DeletedObject[*v1.Pod]{}) }, func() { kf.OnDelete(kc.DeletedObject[*v1.Pod]{}) }},
		{"nil FilterFunc",
			func() { cg.TypedFilteringResourceEventHandler[*v1.Pod]{Handler: typedTraceCG(&c)}.OnAdd(plain, false) },
			func() { kc.TypedFilteringResourceEventHandler[*v1.Pod]{Handler: typedTraceKC(&k)}.OnAdd(plain, false) }},
		{"nil Handler",
			func() { cg.TypedFilteringResourceEventHandler[*v1.Pod]{FilterFunc: wanted}.OnAdd(labelled, false) },
			func() { kc.TypedFilteringResourceEventHandler[*v1.Pod]{FilterFunc: wanted}.OnAdd(labelled, false) }},
		{"Funcs without functions",
			func() {
				var h cg.TypedResourceEventHandlerFuncs[*v1.Pod]
				h.OnAdd(plain, true)
				h.OnUpdate(plain, plain)
				h.OnDelete(cg.DeletedObject[*v1.Pod]{})
			},
			func() {
				var h kc.TypedResourceEventHandlerFuncs[*v1.Pod]
				h.OnAdd(plain, true)
				h.OnUpdate(plain, plain)
				h.OnDelete(kc.DeletedObject[*v1.Pod]{})
			}},
		{"Funcs drop isInInitialList",
			func() {
				cg.TypedResourceEventHandlerFuncs[*v1.Pod]{AddFunc: func(p *v1.Pod) { c.logf("funcs add %s", describe(p)) }}.OnAdd(plain, true)
			},
			func() {
				kc.TypedResourceEventHandlerFuncs[*v1.Pod]{AddFunc: func(p *v1.Pod) { k.logf("funcs add %s", describe(p)) }}.OnAdd(plain, true)
			}},
	}
	for _, s := range steps {
		c.logf("-- %s", s.name)
		if p := capture(s.cg); p != "" {
			c.logf("%s", p)
		}
		k.logf("-- %s", s.name)
		if p := capture(s.kc); p != "" {
			k.logf("%s", p)
		}
	}
	compareTraces(t, c.lines, k.lines)
}
