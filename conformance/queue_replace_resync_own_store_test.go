package conformance

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cg "k8s.io/client-go/tools/cache"

	kc "github.com/kcache-go/cache"
)

// walkObj returns a pod in namespace ns named name at resource version rv.
func walkObj(ns, name, rv string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv}}
}

// walkRender renders a delta's object: a pod as ns/name@rv, a tombstone
// with its key and object, anything else with %T and %v.
func walkRender(obj interface{}) string {
	switch o := obj.(type) {
	case *v1.Pod:
		return o.Namespace + "/" + o.Name + "@" + o.ResourceVersion
	case cg.DeletedFinalStateUnknown:
		return "DFSU{" + o.Key + "," + walkRender(o.Obj) + "}"
	case kc.DeletedFinalStateUnknown:
		return "DFSU{" + o.Key + "," + walkRender(o.Obj) + "}"
	case nil:
		return "nil"
	}
	return fmt.Sprintf("%T(%v)", obj, obj)
}

// walkRenderDeltas renders what a Pop hands its process function.
func walkRenderDeltas(obj interface{}) string {
	var parts []string
	switch d := obj.(type) {
	case cg.Deltas:
		for _, x := range d {
			parts = append(parts, string(x.Type)+":"+walkRender(x.Object))
		}
	case kc.Deltas:
		for _, x := range d {
			parts = append(parts, string(x.Type)+":"+walkRender(x.Object))
		}
	default:
		return fmt.Sprintf("%T", obj)
	}
	return strings.Join(parts, " ")
}

// walkQueue is the part of either package's queue the scenario drives; F
// is the package's PopProcessFunc.
type walkQueue[F ~func(interface{}, bool) error] interface {
	Add(obj interface{}) error
	Delete(obj interface{}) error
	Replace(list []interface{}, rv string) error
	Resync() error
	Pop(F) (interface{}, error)
	Close()
}

// walkKey is a key function of either package.
type walkKey = func(interface{}) (string, error)

// walkStore is the part of either package's store the scenario fills; it
// is also handed to the queue as its known objects.
type walkStore interface {
	Add(obj interface{}) error
}

// walkLib binds one package's names for the scenario: its
// MetaNamespaceKeyFunc and DeletionHandlingMetaNamespaceKeyFunc, a stored
// tombstone and ExplicitKey (the extras), its store and its two queues.
type walkLib[F ~func(interface{}, bool) error] struct {
	keys      [2]walkKey
	extras    func() []interface{}
	newStore  func(walkKey) walkStore
	realFIFO  func(key walkKey, known walkStore) walkQueue[F]
	deltaFIFO func(key walkKey, known walkStore, replaced bool) walkQueue[F]
}

var walkClientGo = walkLib[cg.PopProcessFunc]{
	keys: [2]walkKey{cg.MetaNamespaceKeyFunc, cg.DeletionHandlingMetaNamespaceKeyFunc},
	extras: func() []interface{} {
		return []interface{}{cg.DeletedFinalStateUnknown{Key: "ns/gone", Obj: walkObj("ns", "gone", "1")}, cg.ExplicitKey("ex/plicit")}
	},
	newStore: func(key walkKey) walkStore { return cg.NewStore(key) },
	realFIFO: func(key walkKey, known walkStore) walkQueue[cg.PopProcessFunc] {
		return cg.NewRealFIFOWithOptions(cg.RealFIFOOptions{KeyFunction: key, KnownObjects: known.(cg.Store)})
	},
	deltaFIFO: func(key walkKey, known walkStore, replaced bool) walkQueue[cg.PopProcessFunc] {
		return cg.NewDeltaFIFOWithOptions(cg.DeltaFIFOOptions{KeyFunction: key, KnownObjects: known.(cg.Store), EmitDeltaTypeReplaced: replaced})
	},
}

var walkKcache = walkLib[kc.PopProcessFunc]{
	keys: [2]walkKey{kc.MetaNamespaceKeyFunc, kc.DeletionHandlingMetaNamespaceKeyFunc},
	extras: func() []interface{} {
		return []interface{}{kc.DeletedFinalStateUnknown{Key: "ns/gone", Obj: walkObj("ns", "gone", "1")}, kc.ExplicitKey("ex/plicit")}
	},
	newStore: func(key walkKey) walkStore { return kc.NewStore(key) },
	realFIFO: func(key walkKey, known walkStore) walkQueue[kc.PopProcessFunc] {
		return kc.NewRealFIFOWithOptions(kc.RealFIFOOptions{KeyFunction: key, KnownObjects: known.(kc.Store)})
	},
	deltaFIFO: func(key walkKey, known walkStore, replaced bool) walkQueue[kc.PopProcessFunc] {
		return kc.NewDeltaFIFOWithOptions(kc.DeltaFIFOOptions{KeyFunction: key, KnownObjects: known.(kc.Store), EmitDeltaTypeReplaced: replaced})
	},
}

// walkSide builds lib's known store, keyed by the named key function and
// filled with known plus the extras the scenario names, and the named
// queue (RealFIFO, DeltaFIFO or DeltaFIFO+Replaced) over it, and returns
// the queue and a Pop that renders the deltas it hands its process function.
func walkSide[F ~func(interface{}, bool) error](lib walkLib[F], sc walkScenario, queue string) (walkQueue[F], func() (string, error)) {
	store := lib.newStore(walkKeyFunc(sc.storeKey, lib.keys[0], lib.keys[1]))
	for _, o := range sc.known {
		_ = store.Add(o)
	}
	if sc.extras {
		for _, o := range lib.extras() {
			_ = store.Add(o)
		}
	}
	queueKey := walkKeyFunc(sc.queueKey, lib.keys[0], lib.keys[1])
	q := lib.deltaFIFO(queueKey, store, queue == "DeltaFIFO+Replaced")
	if queue == "RealFIFO" {
		q = lib.realFIFO(queueKey, store)
	}
	return q, func() (string, error) {
		var got string
		_, err := q.Pop(func(obj interface{}, _ bool) error { got = walkRenderDeltas(obj); return nil })
		return got, err
	}
}

// walkKeyFunc returns the key function named name, built on meta and
// deletion (one package's MetaNamespaceKeyFunc and
// DeletionHandlingMetaNamespaceKeyFunc).
func walkKeyFunc(name string, meta, deletion func(interface{}) (string, error)) func(interface{}) (string, error) {
	switch name {
	case "meta":
		return meta
	case "deletion":
		return deletion
	case "prefixed":
		return func(obj interface{}) (string, error) {
			k, err := deletion(obj)
			return "q:" + k, err
		}
	case "nilAndEmpty":
		// nil is keyed "nil", a pod named e is keyed "".
		return func(obj interface{}) (string, error) {
			if obj == nil {
				return "nil", nil
			}
			if p, ok := obj.(*v1.Pod); ok && p.Name == "e" {
				return "", nil
			}
			return deletion(obj)
		}
	case "failsOnBad":
		return func(obj interface{}) (string, error) {
			if p, ok := obj.(*v1.Pod); ok && p.Name == "bad" {
				return "", fmt.Errorf("no key for bad")
			}
			return deletion(obj)
		}
	}
	panic(name)
}

// walkScenario is one known store and what is queued, replaced and resynced
// over it.
type walkScenario struct {
	name               string
	storeKey, queueKey string
	known              []interface{}
	// extras adds a stored tombstone and an ExplicitKey to the store.
	extras         bool
	queued, listed []interface{}
	// deleted are given to Delete after queued to Add, before Replace.
	deleted []interface{}
}

// walkPlay runs scenario sc against one side: Add the queued objects,
// Replace with the listed ones, drain, Add again, Resync, drain; every
// step's error and the sorted pops (client-go's store order is a map's) are
// returned.
func walkPlay[F ~func(interface{}, bool) error](lib walkLib[F], sc walkScenario, queue string) []string {
	q, pop := walkSide(lib, sc, queue)
	var out []string
	// drain queues a sentinel and pops up to and including it.
	drain := func(step string) {
		var pops []string
		_ = q.Add(walkObj("zz", "sentinel", step))
		for i := 0; i < 200; i++ {
			r, err := pop()
			pops = append(pops, r+" err="+fmt.Sprint(err))
			if strings.Contains(r, "zz/sentinel") || err != nil {
				break
			}
		}
		sort.Strings(pops)
		out = append(out, step+": "+strings.Join(pops, " | "))
	}
	for _, o := range sc.queued {
		out = append(out, "Add "+fmt.Sprint(q.Add(o)))
	}
	for _, o := range sc.deleted {
		out = append(out, "Delete "+fmt.Sprint(q.Delete(o)))
	}
	out = append(out, "Replace "+fmt.Sprint(q.Replace(sc.listed, "9")))
	drain("after Replace")
	for _, o := range sc.queued {
		out = append(out, "Add "+fmt.Sprint(q.Add(o)))
	}
	out = append(out, "Resync "+fmt.Sprint(q.Resync()))
	drain("after Resync")
	q.Close()
	return out
}

func TestQueuesReplaceAndResyncOverTheirOwnStoreGiveClientGosDeltas(t *testing.T) {
	long := strings.Repeat("n", 150)
	longNS := strings.Repeat("s", 130)
	known := []interface{}{
		walkObj("ns", "a", "1"), walkObj("ns", "b", "1"), walkObj("", "cluster", "1"),
		walkObj("ns", long, "1"), walkObj(longNS, long, "1"), walkObj("ns", "x/y", "1"),
		walkObj("a/b", "c", "1"), walkObj("ns2", "d", "1"), walkObj("a", "b/c", "2"),
	}
	scenarios := []walkScenario{
		{name: "nothing listed", storeKey: "meta", queueKey: "meta", known: known},
		{name: "some listed and one queued", storeKey: "meta", queueKey: "meta", known: known,
			queued: []interface{}{walkObj("ns", "b", "2"), walkObj(longNS, long, "2")}, listed: []interface{}{walkObj("ns", "a", "3"), walkObj("ns", long, "3"), walkObj("a", "b/c", "3")}},
		{name: "store holding a tombstone and an ExplicitKey", storeKey: "deletion", queueKey: "deletion", known: known, extras: true,
			listed: []interface{}{walkObj("", "cluster", "3")}},
		{name: "meta store holding a tombstone and an ExplicitKey", storeKey: "meta", queueKey: "deletion", known: known, extras: true,
			queued: []interface{}{walkObj("ns", "gone", "2")}, listed: []interface{}{walkObj("", "cluster", "3")}},
		{name: "queue keys differ from store keys", storeKey: "meta", queueKey: "prefixed", known: known,
			queued: []interface{}{walkObj("ns", "a", "2")}, listed: []interface{}{walkObj("ns", "b", "3")}},
		{name: "queue key function fails on a known object during Resync", storeKey: "meta", queueKey: "failsOnBad",
			known: []interface{}{walkObj("ns", "bad", "1")}, listed: []interface{}{walkObj("ns", "a", "2")}},
		{name: "a nil object and an empty key stored, the empty key listed", storeKey: "nilAndEmpty", queueKey: "nilAndEmpty",
			known: []interface{}{nil, walkObj("ns", "e", "1"), walkObj("ns", "a", "1")}, listed: []interface{}{walkObj("ns", "e", "2")}},
		{name: "an empty key stored, not listed", storeKey: "nilAndEmpty", queueKey: "nilAndEmpty",
			known: []interface{}{walkObj("ns", "e", "1"), walkObj("ns", "a", "1")}, listed: []interface{}{walkObj("ns", "a", "2")}},
		{name: "an empty key stored and queued", storeKey: "nilAndEmpty", queueKey: "nilAndEmpty",
			known: []interface{}{walkObj("ns", "e", "1"), walkObj("ns", "a", "1")}, queued: []interface{}{walkObj("x", "e", "5")}},
		{name: "known keys queued as deleted, not listed", storeKey: "meta", queueKey: "meta", known: known,
			queued: []interface{}{walkObj("ns", "a", "2")}, deleted: []interface{}{walkObj("ns", "a", "2"), walkObj("ns", "b", "2"), walkObj("ns2", "d", "2")},
			listed: []interface{}{walkObj("ns", "x/y", "3")}},
		// NB: client-go's Resync stops at a map-ordered key, so the store
		// holds only the failing object.
	}
	for _, queue := range []string{"RealFIFO", "DeltaFIFO", "DeltaFIFO+Replaced"} {
		for _, sc := range scenarios {
			t.Run(queue+"/"+sc.name, func(t *testing.T) {
				want, got := walkPlay(walkClientGo, sc, queue), walkPlay(walkKcache, sc, queue)
				for _, d := range lineDiffs(want, got) {
					t.Errorf("step %d:\nclient-go %s\nkcache    %s", d.i, d.want, d.got)
				}
			})
		}
	}
}
