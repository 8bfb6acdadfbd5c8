package conformance

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	cg "k8s.io/client-go/tools/cache"

	kc "github.com/kcache-go/cache"
)

// queueDelta is the package-neutral form of a Delta (a Deltas is a
// []queueDelta; queueDeltasPtr a pointer to one).
type queueDelta struct {
	typ string
	obj interface{}
}

// queueDeltasPtr is the neutral form of a *Deltas.
type queueDeltasPtr []queueDelta

// queueBadInput is one odd value handed to a queue entry point.
type queueBadInput struct {
	name string
	obj  interface{}
}

// queueBadInputs are the inputs of the bad-input table: what a buggy
// producer, a foreign store or a confused consumer may hand a queue.
func queueBadInputs() []queueBadInput {
	pod := queuePod("ok", "7")
	twoSlashes := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a/b", ResourceVersion: "3"}}
	return []queueBadInput{
		{"nil", nil},
		{"int without metadata", 42},
		{"string", "ns/str"},
		{"pod value, not a pointer", *queuePod("value", "1")},
		{"nil *Pod", (*v1.Pod)(nil)},
		{"empty unstructured", &unstructured.Unstructured{}},
		{"name with a slash: key with two slashes", twoSlashes},
		{"explicit key with two slashes", queueExplicit("ns/a/b")},
		{"tombstone with nil Obj", queueTombstone{key: "ns/gone"}},
		{"empty tombstone", queueTombstone{}},
		{"tombstone in a tombstone", queueTombstone{key: "ns/outer", obj: queueTombstone{key: "ns/inner", obj: pod}}},
		{"empty Deltas", []queueDelta{}},
		{"Deltas of one pod", []queueDelta{{"Added", pod}}},
		{"Deltas ending in a tombstone", []queueDelta{{"Added", pod}, {"Deleted", queueTombstone{key: "ns/t", obj: pod}}}},
		{"Deltas ending in a nil object", []queueDelta{{"Added", pod}, {"Updated", nil}}},
		{"Deltas holding a Delta", []queueDelta{{"Sync", queueDelta{"Added", pod}}}},
		{"Delta of a pod", queueDelta{"Added", pod}},
		{"Delta of a tombstone", queueDelta{"Deleted", queueTombstone{key: "ns/dt"}}},
		{"empty Delta", queueDelta{}},
		{"pointer to Deltas", queueDeltasPtr{{"Added", pod}}},
	}
}

// queueExplicit is the neutral form of an ExplicitKey.
type queueExplicit string

// queueBadLib builds one library's tombstone, ExplicitKey, Delta and
// Deltas (or a pointer to them) from their neutral forms' converted parts.
type queueBadLib struct {
	tombstone func(key string, obj interface{}) interface{}
	explicit  func(key string) interface{}
	delta     func(typ string, obj interface{}) interface{}
	deltas    func(ds []interface{}, ptr bool) interface{}
}

var (
	queueBadCG = queueBadLib{func(k string, o interface{}) interface{} { return cg.DeletedFinalStateUnknown{Key: k, Obj: o} },
		func(k string) interface{} { return cg.ExplicitKey(k) },
		func(typ string, o interface{}) interface{} { return cg.Delta{Type: cg.DeltaType(typ), Object: o} }, queueBadDeltas[cg.Delta, cg.Deltas]}
	queueBadKC = queueBadLib{func(k string, o interface{}) interface{} { return kc.DeletedFinalStateUnknown{Key: k, Obj: o} },
		func(k string) interface{} { return kc.ExplicitKey(k) },
		func(typ string, o interface{}) interface{} { return kc.Delta{Type: kc.DeltaType(typ), Object: o} }, queueBadDeltas[kc.Delta, kc.Deltas]}
)

// queueBadDeltas collects converted deltas into a library's Deltas, or a
// pointer to them.
func queueBadDeltas[D any, DS ~[]D](ds []interface{}, ptr bool) interface{} {
	out := DS{}
	for _, d := range ds {
		out = append(out, d.(D))
	}
	if ptr {
		return &out
	}
	return out
}

// as converts a neutral bad input for lib's library.
func (lib queueBadLib) as(x interface{}) interface{} {
	switch v := x.(type) {
	case queueTombstone:
		return lib.tombstone(v.key, lib.as(v.obj))
	case queueExplicit:
		return lib.explicit(string(v))
	case queueDelta:
		return lib.delta(v.typ, lib.as(v.obj))
	case []queueDelta:
		return lib.deltas(lib.asEach(v), false)
	case queueDeltasPtr:
		return lib.deltas(lib.asEach(v), true)
	}
	return x
}

// asEach converts each neutral delta.
func (lib queueBadLib) asEach(neutral []queueDelta) []interface{} {
	ds := make([]interface{}, len(neutral))
	for i, d := range neutral {
		ds[i] = lib.as(d)
	}
	return ds
}

// queueBadAsCG converts a neutral bad input for client-go.
func queueBadAsCG(x interface{}) interface{} { return queueBadCG.as(x) }

// queueBadAsKC converts a neutral bad input for kcache.
func queueBadAsKC(x interface{}) interface{} { return queueBadKC.as(x) }

// queueBadKnown is a KnownObjects store (structural, for either package)
// holding a good pod and, under "k", the bad input.
type queueBadKnown struct{ bad interface{} }

func (queueBadKnown) ListKeys() []string { return []string{"k", "ns/known"} }

func (s queueBadKnown) GetByKey(key string) (interface{}, bool, error) {
	switch key {
	case "k":
		return s.bad, true, nil
	case "ns/known":
		return queuePod("known", "1"), true, nil
	}
	return nil, false, nil
}

// queueBadSubject is one queue of the bad-input table: its entry points,
// each returning a rendered outcome, and a render of its whole state.
type queueBadSubject struct {
	ops   map[string]func(x interface{}) string
	state func() string
}

// queueBadOps are the entry points every queue of the table has.
var queueBadOps = []string{"Add", "Update", "Delete", "Replace", "Replace after a good object", "Resync"}

// queueBadErr renders an error result.
func queueBadErr(err error) string { return queueRenderErr(err) }

// queueStoreWrites is the write surface the queues share.
type queueStoreWrites interface {
	Add(interface{}) error
	Update(interface{}) error
	Delete(interface{}) error
	Replace([]interface{}, string) error
	Resync() error
}

// queueBadWriteOps maps the table's entry points onto a queue's writes.
func queueBadWriteOps(q queueStoreWrites, good interface{}) map[string]func(x interface{}) string {
	return map[string]func(x interface{}) string{
		"Add":                         func(x interface{}) string { return queueBadErr(q.Add(x)) },
		"Update":                      func(x interface{}) string { return queueBadErr(q.Update(x)) },
		"Delete":                      func(x interface{}) string { return queueBadErr(q.Delete(x)) },
		"Replace":                     func(x interface{}) string { return queueBadErr(q.Replace([]interface{}{x}, "9")) },
		"Replace after a good object": func(x interface{}) string { return queueBadErr(q.Replace([]interface{}{good, x}, "9")) },
		"Resync":                      func(interface{}) string { return queueBadErr(q.Resync()) },
	}
}

// queueBadDrain closes a queue and pops until it reports closed, rendering
// each item, its isInInitialList flag and HasSynced after it.
func queueBadDrain(closeQ func(), pop func(cg.PopProcessFunc) (interface{}, error), synced func() bool) string {
	return queueBadDrainSorted(closeQ, pop, synced, false)
}

// queueBadDrainSorted is queueBadDrain; with sorted, the popped items are
// compared as a sorted set and only the final HasSynced is kept (FIFO's
// Replace queues in map order in client-go).
func queueBadDrainSorted(closeQ func(), pop func(cg.PopProcessFunc) (interface{}, error), synced func() bool, sorted bool) string {
	closeQ()
	head := fmt.Sprintf("synced=%v", synced())
	var items []string
	for i := 0; i < 20; i++ {
		var initial bool
		item, err := pop(func(_ interface{}, isInitial bool) error { initial = isInitial; return nil })
		if err != nil {
			items = append(items, queueRenderErr(err))
			break
		}
		if sorted {
			items = append(items, fmt.Sprintf("%s initial=%v", queueBadRender(item), initial))
		} else {
			items = append(items, fmt.Sprintf("%s initial=%v synced=%v", queueBadRender(item), initial, synced()))
		}
	}
	if sorted {
		sort.Strings(items)
		items = append(items, fmt.Sprintf("synced=%v", synced()))
	}
	return head + " | " + strings.Join(items, " | ")
}

// queueBadRender is queueRender plus the odd types of the table.
func queueBadRender(x interface{}) string {
	switch v := x.(type) {
	case v1.Pod:
		return "PodValue(" + v.Namespace + "/" + v.Name + ")"
	case string:
		return fmt.Sprintf("string(%q)", v)
	case *unstructured.Unstructured:
		return "Unstructured(" + v.GetNamespace() + "/" + v.GetName() + ")"
	case cg.ExplicitKey:
		return "ExplicitKey(" + string(v) + ")"
	case kc.ExplicitKey:
		return "ExplicitKey(" + string(v) + ")"
	case cg.Delta:
		return "Delta(" + string(v.Type) + ":" + queueBadRender(v.Object) + ")"
	case kc.Delta:
		return "Delta(" + string(v.Type) + ":" + queueBadRender(v.Object) + ")"
	case *cg.Deltas:
		return "&" + queueBadRender(*v)
	case *kc.Deltas:
		return "&" + queueBadRender(*v)
	case cg.Deltas:
		parts := make([]string, len(v))
		for i, d := range v {
			parts[i] = string(d.Type) + ":" + queueBadRender(d.Object)
		}
		return "Deltas[" + strings.Join(parts, " ") + "]"
	case kc.Deltas:
		parts := make([]string, len(v))
		for i, d := range v {
			parts[i] = string(d.Type) + ":" + queueBadRender(d.Object)
		}
		return "Deltas[" + strings.Join(parts, " ") + "]"
	case cg.DeletedFinalStateUnknown:
		return "Tombstone(" + v.Key + "," + queueBadRender(v.Obj) + ")"
	case kc.DeletedFinalStateUnknown:
		return "Tombstone(" + v.Key + "," + queueBadRender(v.Obj) + ")"
	case cg.ReplacedAllInfo:
		return "ReplacedAllInfo(" + v.ResourceVersion + ";" + queueBadRenderList(v.Objects) + ")"
	case kc.ReplacedAllInfo:
		return "ReplacedAllInfo(" + v.ResourceVersion + ";" + queueBadRenderList(v.Objects) + ")"
	}
	return queueRender(x)
}

// queueBadRenderList renders a list with queueBadRender.
func queueBadRenderList(list []interface{}) string {
	parts := make([]string, len(list))
	for i, o := range list {
		parts[i] = queueBadRender(o)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// queueBadKind builds one queue of each package for a bad input.
type queueBadKind struct {
	name   string
	cg, kc func(bad interface{}) queueBadSubject
}

// queueBadKinds are the queues of the table.
func queueBadKinds() []queueBadKind {
	return []queueBadKind{
		{"RealFIFO atomic", queueBadCGReal(false), queueBadKCReal(false)},
		{"RealFIFO non-atomic", queueBadCGReal(true), queueBadKCReal(true)},
		{"DeltaFIFO", queueBadCGDelta, queueBadKCDelta},
		{"FIFO", queueBadCGFIFO, queueBadKCFIFO},
		{"Heap", queueBadCGHeap, queueBadKCHeap},
	}
}

func queueBadCGReal(known bool) func(bad interface{}) queueBadSubject {
	return func(bad interface{}) queueBadSubject {
		opts := cg.RealFIFOOptions{AtomicEvents: !known, UnlockWhileProcessing: !known, Transformer: queueTransform}
		if known {
			opts.KnownObjects = queueBadKnown{bad}
		}
		q := cg.NewRealFIFOWithOptions(opts)
		_ = q.Add(queuePod("first", "1"))
		return queueBadSubject{ops: queueBadWriteOps(q, queuePod("good", "2")), state: func() string {
			return queueBadDrain(q.Close, func(p cg.PopProcessFunc) (interface{}, error) { return q.Pop(p) }, q.HasSynced)
		}}
	}
}

func queueBadKCReal(known bool) func(bad interface{}) queueBadSubject {
	return func(bad interface{}) queueBadSubject {
		opts := kc.RealFIFOOptions{AtomicEvents: !known, UnlockWhileProcessing: !known, Transformer: queueTransform}
		if known {
			opts.KnownObjects = queueBadKnown{bad}
		}
		q := kc.NewRealFIFOWithOptions(opts)
		_ = q.Add(queuePod("first", "1"))
		return queueBadSubject{ops: queueBadWriteOps(q, queuePod("good", "2")), state: func() string {
			return queueBadDrain(q.Close, func(p cg.PopProcessFunc) (interface{}, error) { return q.Pop(kc.PopProcessFunc(p)) }, q.HasSynced)
		}}
	}
}

func queueBadCGDelta(bad interface{}) queueBadSubject {
	q := cg.NewDeltaFIFOWithOptions(cg.DeltaFIFOOptions{KnownObjects: queueBadKnown{bad}, Transformer: queueTransform})
	_ = q.Add(queuePod("first", "1"))
	ops := queueBadWriteOps(q, queuePod("good", "2"))
	ops["KeyOf"] = func(x interface{}) string { k, err := q.KeyOf(x); return k + " " + queueBadErr(err) }
	return queueBadSubject{ops: ops, state: func() string {
		return queueBadDrain(q.Close, func(p cg.PopProcessFunc) (interface{}, error) { return q.Pop(p) }, q.HasSynced)
	}}
}

func queueBadKCDelta(bad interface{}) queueBadSubject {
	q := kc.NewDeltaFIFOWithOptions(kc.DeltaFIFOOptions{KnownObjects: queueBadKnown{bad}, Transformer: queueTransform})
	_ = q.Add(queuePod("first", "1"))
	ops := queueBadWriteOps(q, queuePod("good", "2"))
	ops["KeyOf"] = func(x interface{}) string { k, err := q.KeyOf(x); return k + " " + queueBadErr(err) }
	return queueBadSubject{ops: ops, state: func() string {
		return queueBadDrain(q.Close, func(p cg.PopProcessFunc) (interface{}, error) { return q.Pop(kc.PopProcessFunc(p)) }, q.HasSynced)
	}}
}

func queueBadCGFIFO(interface{}) queueBadSubject {
	q := cg.NewFIFO(cg.MetaNamespaceKeyFunc)
	_ = q.Add(queuePod("first", "1"))
	return queueBadSubject{ops: queueBadWriteOps(q, queuePod("good", "2")), state: func() string {
		return queueBadDrainSorted(q.Close, func(p cg.PopProcessFunc) (interface{}, error) { return q.Pop(p) }, q.HasSynced, true)
	}}
}

func queueBadKCFIFO(interface{}) queueBadSubject {
	q := kc.NewFIFO(kc.MetaNamespaceKeyFunc)
	_ = q.Add(queuePod("first", "1"))
	return queueBadSubject{ops: queueBadWriteOps(q, queuePod("good", "2")), state: func() string {
		return queueBadDrainSorted(q.Close, func(p cg.PopProcessFunc) (interface{}, error) { return q.Pop(kc.PopProcessFunc(p)) }, q.HasSynced, true)
	}}
}

// queueBadLess orders pods by name; anything else sorts last.
func queueBadLess(a, b interface{}) bool {
	pa, okA := a.(*v1.Pod)
	pb, okB := b.(*v1.Pod)
	if !okA || !okB || pa == nil || pb == nil {
		return okA && !okB
	}
	return pa.Name < pb.Name
}

// queueHeapAPI is the surface both heaps share.
type queueHeapAPI interface {
	heapLike
	Close()
}

// queueBadHeapOps maps the table's entry points onto a heap; Resync and
// Replace stand for BulkAdd, and the closed variants close the heap first.
func queueBadHeapOps(h queueHeapAPI) queueBadSubject {
	get := func(x interface{}) string {
		item, ok, err := h.Get(x)
		return fmt.Sprintf("%s %v %s", queueBadRender(item), ok, queueBadErr(err))
	}
	ops := map[string]func(x interface{}) string{
		"Add":                         func(x interface{}) string { return queueBadErr(h.Add(x)) },
		"Update":                      func(x interface{}) string { return queueBadErr(h.Update(x)) },
		"AddIfNotPresent":             func(x interface{}) string { return queueBadErr(h.AddIfNotPresent(x)) },
		"Delete":                      func(x interface{}) string { return queueBadErr(h.Delete(x)) },
		"Replace":                     func(x interface{}) string { return queueBadErr(h.BulkAdd([]interface{}{x})) },
		"Replace after a good object": func(x interface{}) string { return queueBadErr(h.BulkAdd([]interface{}{queuePod("good", "2"), x})) },
		"Resync":                      get,
	}
	for _, name := range []string{"Add", "Update", "AddIfNotPresent", "Delete", "Replace", "Resync"} {
		inner := ops[name]
		ops["closed "+name] = func(x interface{}) string { h.Close(); return inner(x) }
	}
	return queueBadSubject{ops: ops, state: func() string {
		keys := h.ListKeys()
		sort.Strings(keys)
		out := fmt.Sprintf("keys=%v", keys)
		h.Close()
		for i := 0; i < 20; i++ {
			item, err := h.Pop()
			out += " | " + queueBadRender(item) + " " + queueBadErr(err)
			if err != nil {
				break
			}
		}
		return out
	}}
}

func queueBadCGHeap(interface{}) queueBadSubject {
	h := cg.NewHeap(cg.MetaNamespaceKeyFunc, queueBadLess)
	_ = h.Add(queuePod("first", "1"))
	return queueBadHeapOps(h)
}

func queueBadKCHeap(interface{}) queueBadSubject {
	h := kc.NewHeap(kc.MetaNamespaceKeyFunc, queueBadLess)
	_ = h.Add(queuePod("first", "1"))
	return queueBadHeapOps(h)
}

// queueBadPlay runs one entry point on a fresh queue and renders its
// outcome (result or panic) and then the queue's whole state. A queue left
// locked by a panic renders as stuck instead of hanging the test.
func queueBadPlay(build func(bad interface{}) queueBadSubject, op string, bad interface{}) string {
	s := build(bad)
	call, ok := s.ops[op]
	if !ok {
		return "no such entry point"
	}
	outcome := queueCatch(func() string { return call(bad) })
	return outcome + " => " + queueStateOrStuck(s.state, "queue")
}

// queueStateOrStuck renders state, a panic in it too, or, when it does not
// return within a minute, says that the named subject's lock is still held.
func queueStateOrStuck(state func() string, subject string) string {
	done := make(chan string, 1)
	go func() { done <- queueCatch(state) }()
	select {
	case rendered := <-done:
		return rendered
	// NB: a minute, so that only a held lock, not a loaded machine, reads as stuck.
	case <-time.After(time.Minute):
		return "stuck (the " + subject + "'s lock is still held)"
	}
}

// TestQueueEntryPointsGiveClientGosAnswerToBadInput hands every queue
// (RealFIFO atomic and not, DeltaFIFO with KnownObjects, FIFO, Heap,
// closed and open) every odd input of queueBadInputs through every entry
// point (Add, Update, Delete, Replace, Replace after a good object, Resync
// with the input in KnownObjects, KeyOf; for Heap AddIfNotPresent, BulkAdd,
// Get), after a first good Add, and requires client-go's result, error or
// panic value, and then client-go's queue state: everything a drain pops,
// with isInInitialList and HasSynced.
func TestQueueEntryPointsGiveClientGosAnswerToBadInput(t *testing.T) {
	cases := 0
	for _, kind := range queueBadKinds() {
		ops := append([]string{}, queueBadOps...)
		switch kind.name {
		case "DeltaFIFO":
			ops = append(ops, "KeyOf")
		case "Heap":
			ops = append(ops, "AddIfNotPresent", "closed Add", "closed Update", "closed AddIfNotPresent", "closed Delete", "closed Replace", "closed Resync")
		}
		cases += queueBadCompare(t, kind.name, ops, func(op string, bad interface{}) string { return queueBadPlay(kind.cg, op, bad) },
			func(op string, bad interface{}) string { return queueBadPlay(kind.kc, op, bad) })
	}
	t.Logf("%d bad-input cases compared", cases)
}

// queueBadCompare runs, for every op and every input of queueBadInputs, a
// subtest kind/op/input that requires kcache's play (got, given the input
// converted for kcache) to render as client-go's (want); it returns how
// many cases it compared.
func queueBadCompare(t *testing.T, kind string, ops []string, want, got func(op string, bad interface{}) string) int {
	cases := 0
	for _, op := range ops {
		for _, in := range queueBadInputs() {
			cases++
			t.Run(kind+"/"+op+"/"+in.name, func(t *testing.T) {
				w, g := want(op, queueBadAsCG(in.obj)), got(op, queueBadAsKC(in.obj))
				if w != g {
					t.Fatalf("client-go: %s\nkcache:    %s", w, g)
				}
			})
		}
	}
	return cases
}
