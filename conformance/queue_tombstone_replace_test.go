package conformance

import (
	"fmt"
	"strings"
	"testing"

	cg "k8s.io/client-go/tools/cache"

	kc "github.com/kcache-go/cache"
)

// queueTombStep is one call of a tombstone scenario: op is Add, Update,
// Delete, Replace (objs, rv "r"), Resync or Pop (only where the queue is
// sure to hold something: a DeltaFIFO Pop would block); obj and objs are
// neutral inputs.
type queueTombStep struct {
	op   string
	obj  interface{}
	objs []interface{}
}

// queueTombFIFO is the surface of both DeltaFIFOs the scenarios call.
type queueTombFIFO struct {
	add, update, del func(interface{}) error
	replace          func([]interface{}, string) error
	resync           func() error
	closeQ           func()
	pop              func() (interface{}, error)
	hasSynced        func() bool
}

// queueTombPlay plays steps on q, converting neutral inputs with conv, and
// renders every error, the sync state after each step and the drain.
func queueTombPlay(q queueTombFIFO, conv func(interface{}) interface{}, steps []queueTombStep) string {
	var out []string
	for _, s := range steps {
		var res string
		switch s.op {
		case "Add":
			res = queueCatch(func() string { return queueRenderErr(q.add(conv(s.obj))) })
		case "Update":
			res = queueCatch(func() string { return queueRenderErr(q.update(conv(s.obj))) })
		case "Delete":
			res = queueCatch(func() string { return queueRenderErr(q.del(conv(s.obj))) })
		case "Replace":
			list := make([]interface{}, len(s.objs))
			for i, o := range s.objs {
				list[i] = conv(o)
			}
			res = queueCatch(func() string { return queueRenderErr(q.replace(list, "r")) })
		case "Resync":
			res = queueCatch(func() string { return queueRenderErr(q.resync()) })
		case "Pop":
			res = queueCatch(func() string {
				item, err := q.pop()
				return queueBadRender(item) + " " + queueRenderErr(err)
			})
		}
		out = append(out, fmt.Sprintf("%s=%s synced=%v", s.op, res, q.hasSynced()))
	}
	out = append(out, "drain: "+queueDrainAll(q.closeQ, q.pop))
	return strings.Join(out, "; ")
}

// queueTombScenarios are the tombstone scenarios both queues play, keyed
// by name, with the known stores of both: each test adds its own.
func queueTombScenarios() (map[string][]queueTombStep, map[string]map[string]interface{}) {
	a, b, d := queuePod("a", "1"), queuePod("b", "2"), queuePod("d", "4")
	nilTomb := queueTombstone{key: "ns/n"}
	nested := queueTombstone{key: "ns/c", obj: queueTombstone{key: "ns/d", obj: d}}
	scenarios := map[string][]queueTombStep{
		"tombstone with nil Obj listed, then relisted away": {
			{op: "Replace", objs: []interface{}{a, nilTomb}}, {op: "Replace", objs: []interface{}{b}},
		},
		"nested tombstone listed, then relisted away": {
			{op: "Replace", objs: []interface{}{a, nested}}, {op: "Replace", objs: nil},
		},
		"queued object deleted by a nil-Obj tombstone, then relisted away": {
			{op: "Add", obj: a}, {op: "Delete", obj: queueTombstone{key: "ns/a"}}, {op: "Replace", objs: []interface{}{b}},
		},
		"nested tombstone deleted, then relisted away": {
			{op: "Delete", obj: nested}, {op: "Replace", objs: []interface{}{b}},
		},
		"tombstone updated, then resynced": {
			{op: "Update", obj: nested}, {op: "Resync"}, {op: "Replace", objs: []interface{}{nested}},
		},
	}
	knowns := map[string]map[string]interface{}{
		"no known objects": nil,
		"known pods":       {"ns/a": a, "ns/k": queuePod("k", "0")},
		"known tombstones": {"ns/k": queueTombstone{key: "ns/k"}, "ns/c": nested, "ns/z": nil},
	}
	return scenarios, knowns
}

// TestDeltaFIFOTombstonesThroughReplaceAndResyncMatchClientGo plays
// tombstones with a nil Obj, nested tombstones and known stores that hold
// tombstones through Add/Update/Delete/Replace/Resync/Pop of a DeltaFIFO,
// with and without KnownObjects and EmitDeltaTypeReplaced, and requires
// client-go's errors, sync states and popped deltas.
func TestDeltaFIFOTombstonesThroughReplaceAndResyncMatchClientGo(t *testing.T) {
	a, b := queuePod("a", "1"), queuePod("b", "2")
	nilTomb := queueTombstone{key: "ns/n"}
	scenarios, knowns := queueTombScenarios()
	scenarios["initial tombstone popped before the relist"] = []queueTombStep{
		{op: "Replace", objs: []interface{}{nilTomb, a}}, {op: "Pop"}, {op: "Pop"}, {op: "Replace", objs: nil},
	}
	scenarios["listed tombstone under a queued key"] = []queueTombStep{
		{op: "Add", obj: a}, {op: "Replace", objs: []interface{}{queueTombstone{key: "ns/a", obj: a}}}, {op: "Replace", objs: nil},
	}
	scenarios["resync with everything queued, then deleted initial items"] = []queueTombStep{
		{op: "Replace", objs: []interface{}{a, b}}, {op: "Resync"}, {op: "Delete", obj: a}, {op: "Pop"}, {op: "Delete", obj: b}, {op: "Pop"},
	}
	scenarios["empty relist twice"] = []queueTombStep{
		{op: "Replace", objs: nil}, {op: "Replace", objs: nil}, {op: "Resync"},
	}
	for scenario, steps := range scenarios {
		for knownName, known := range knowns {
			for _, emitR := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/replaced=%v", scenario, knownName, emitR), func(t *testing.T) {
					want := queueTombPlay(queueTombCG(known, emitR), queueBadAsCG, steps)
					got := queueTombPlay(queueTombKC(known, emitR), queueBadAsKC, steps)
					if want != got {
						t.Fatalf("client-go: %s\nkcache:    %s", want, got)
					}
				})
			}
		}
	}
}

// queueTombKnownAs converts a neutral known-object map for one package.
func queueTombKnownAs(known map[string]interface{}, conv func(interface{}) interface{}) queueSortedKnown {
	objs := make(map[string]interface{}, len(known))
	for k, o := range known {
		objs[k] = conv(o)
	}
	return queueSortedKnown{objs}
}

// queueTombQueue is a DeltaFIFO or RealFIFO of either library, P its
// PopProcessFunc.
type queueTombQueue[P ~func(any, bool) error] interface {
	Add(obj any) error
	Update(obj any) error
	Delete(obj any) error
	Replace(list []any, resourceVersion string) error
	Resync() error
	Close()
	Pop(process P) (any, error)
	HasSynced() bool
}

// queueTombOf is the scenarios' surface of q.
func queueTombOf[P ~func(any, bool) error](q queueTombQueue[P]) queueTombFIFO {
	return queueTombFIFO{add: q.Add, update: q.Update, del: q.Delete, replace: q.Replace, resync: q.Resync,
		closeQ: q.Close, pop: func() (interface{}, error) { return q.Pop(queueNoop) }, hasSynced: q.HasSynced}
}

// queueTombKnownLister is both libraries' KeyListerGetter.
type queueTombKnownLister interface {
	ListKeys() []string
	GetByKey(key string) (value interface{}, exists bool, err error)
}

// queueTombKnownOf is the known store of a scenario for one library, nil
// (no KnownObjects) when it has none.
func queueTombKnownOf(known map[string]interface{}, conv func(interface{}) interface{}) queueTombKnownLister {
	if known == nil {
		return nil
	}
	return queueTombKnownAs(known, conv)
}

func queueTombCG(known map[string]interface{}, emitR bool) queueTombFIFO {
	return queueTombOf[cg.PopProcessFunc](cg.NewDeltaFIFOWithOptions(cg.DeltaFIFOOptions{EmitDeltaTypeReplaced: emitR, KnownObjects: queueTombKnownOf(known, queueBadAsCG)}))
}

func queueTombKC(known map[string]interface{}, emitR bool) queueTombFIFO {
	return queueTombOf[kc.PopProcessFunc](kc.NewDeltaFIFOWithOptions(kc.DeltaFIFOOptions{EmitDeltaTypeReplaced: emitR, KnownObjects: queueTombKnownOf(known, queueBadAsKC)}))
}

// TestRealFIFOTombstonesThroughReplaceAndResyncMatchClientGo plays the
// DeltaFIFO tombstone scenarios on RealFIFO: non-atomic with each known
// store, and atomic (which takes no KnownObjects).
func TestRealFIFOTombstonesThroughReplaceAndResyncMatchClientGo(t *testing.T) {
	a := queuePod("a", "1")
	nilTomb := queueTombstone{key: "ns/n"}
	scenarios, knowns := queueTombScenarios()
	scenarios["initial items deleted before they are popped"] = []queueTombStep{
		{op: "Replace", objs: []interface{}{a, nilTomb}}, {op: "Delete", obj: a}, {op: "Pop"}, {op: "Pop"},
	}
	knowns["empty known store"] = map[string]interface{}{}
	for scenario, steps := range scenarios {
		for knownName, known := range knowns {
			for _, atomic := range []bool{false, true} {
				if atomic != (known == nil) {
					continue // NB: client-go requires KnownObjects exactly when not atomic
				}
				t.Run(fmt.Sprintf("%s/%s/atomic=%v", scenario, knownName, atomic), func(t *testing.T) {
					want := queueTombPlay(queueTombRealCG(known, atomic), queueBadAsCG, steps)
					got := queueTombPlay(queueTombRealKC(known, atomic), queueBadAsKC, steps)
					if want != got {
						t.Fatalf("client-go: %s\nkcache:    %s", want, got)
					}
				})
			}
		}
	}
}

func queueTombRealCG(known map[string]interface{}, atomic bool) queueTombFIFO {
	return queueTombOf[cg.PopProcessFunc](cg.NewRealFIFOWithOptions(cg.RealFIFOOptions{AtomicEvents: atomic, KnownObjects: queueTombKnownOf(known, queueBadAsCG)}))
}

func queueTombRealKC(known map[string]interface{}, atomic bool) queueTombFIFO {
	return queueTombOf[kc.PopProcessFunc](kc.NewRealFIFOWithOptions(kc.RealFIFOOptions{AtomicEvents: atomic, KnownObjects: queueTombKnownOf(known, queueBadAsKC)}))
}
