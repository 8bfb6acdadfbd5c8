package conformance

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	cg "k8s.io/client-go/tools/cache"

	kc "github.com/kcache-go/cache"
)

// queueCountingKeys is a key function that records what it is given and
// otherwise keys like MetaNamespaceKeyFunc.
type queueCountingKeys struct {
	// seen holds the rendered arguments first given since the last take.
	seen map[string]bool
	// ever holds every rendered argument ever given.
	ever map[string]bool
}

func (c *queueCountingKeys) record(obj interface{}) {
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	if c.ever == nil {
		c.ever = map[string]bool{}
	}
	if r := queueBadRender(obj); !c.ever[r] {
		c.ever[r] = true
		c.seen[r] = true
	}
}

func (c *queueCountingKeys) cg(obj interface{}) (string, error) {
	c.record(obj)
	return cg.MetaNamespaceKeyFunc(obj)
}

func (c *queueCountingKeys) kc(obj interface{}) (string, error) {
	c.record(obj)
	return kc.MetaNamespaceKeyFunc(obj)
}

// take returns the arguments first seen since the last take, sorted.
func (c *queueCountingKeys) take() string {
	args := make([]string, 0, len(c.seen))
	for a := range c.seen {
		args = append(args, a)
	}
	sort.Strings(args)
	c.seen = nil
	return "[" + strings.Join(args, " ") + "]"
}

// queueKeyCallScript plays a fixed sequence on a queue of either package
// and records what the key function was given at each step.
func queueKeyCallScript(keys *queueCountingKeys, s queueSubject) string {
	var out []string
	step := func(name string, err error) {
		out = append(out, fmt.Sprintf("%s %s key function first saw %s", name, queueRenderErr(err), keys.take()))
	}
	step("Add a", s.add(queuePod("a", "1")))
	step("Update a", s.update(queuePod("a", "2")))
	step("Delete a", s.del(queuePod("a", "3")))
	step("Delete tombstone", s.del(queueTombstone{key: "ns/t", obj: queuePod("t", "1")}))
	step("Add int", s.add(42))
	step("Add Deltas", s.add([]queueDelta{{"Added", queuePod("e", "1")}, {"Updated", queuePod("e", "2")}}))
	step("Update Delta", s.update(queueDelta{"Updated", queuePod("f", "1")}))
	step("Add empty Deltas", s.add([]queueDelta{}))
	step("Replace 3", s.replace([]interface{}{queuePod("a", "4"), queuePod("b", "4"), queuePod("c", "4")}, "4"))
	step("Resync", s.resync())
	s.close()
	for i := 0; i < 20; i++ {
		r := s.pop(nil)
		out = append(out, "Pop: key function first saw "+keys.take())
		if strings.Contains(r, "closed queue") {
			break
		}
	}
	step("Replace 2 after close", s.replace([]interface{}{queuePod("a", "5"), queuePod("d", "5")}, "5"))
	step("Resync after close", s.resync())
	return strings.Join(out, "\n")
}

// TestQueuesGiveTheKeyFunctionTheValuesClientGoGivesIt records, at every
// write, Resync and Pop, which values each queue hands its key function for
// the first time (a user function: it must never see a Deltas, a tombstone
// or anything else client-go unwraps first), for RealFIFO (atomic and not)
// and DeltaFIFO (with and without KnownObjects). How often it is called
// differs on purpose: client-go keys an object up to three times per
// operation (non-atomic RealFIFO's Replace and Resync key every queued
// object again), kcache once.
func TestQueuesGiveTheKeyFunctionTheValuesClientGoGivesIt(t *testing.T) {
	for _, tc := range []struct {
		name  string
		combo queueCombination
	}{
		{"RealFIFO atomic", queueCombination{Queue: "RealFIFO", Atomic: true}},
		{"RealFIFO non-atomic", queueCombination{Queue: "RealFIFO", Known: true}},
		{"DeltaFIFO", queueCombination{Queue: "DeltaFIFO"}},
		{"DeltaFIFO with known objects", queueCombination{Queue: "DeltaFIFO", Known: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cgKeys, kcKeys := &queueCountingKeys{}, &queueCountingKeys{}
			var ref, got queueSubject
			if tc.combo.Queue == "RealFIFO" {
				r, k := newQueueRealPair(tc.combo, nil)
				r.q = cg.NewRealFIFOWithOptions(cg.RealFIFOOptions{KeyFunction: cgKeys.cg, AtomicEvents: tc.combo.Atomic, KnownObjects: queueCGKnownOrNil(r.known)})
				k.q = kc.NewRealFIFOWithOptions(kc.RealFIFOOptions{KeyFunction: kcKeys.kc, AtomicEvents: tc.combo.Atomic, KnownObjects: queueKCKnownOrNil(k.known)})
				ref, got = r, k
			} else {
				r, k := newQueueDeltaPair(tc.combo, nil)
				r.q = cg.NewDeltaFIFOWithOptions(cg.DeltaFIFOOptions{KeyFunction: cgKeys.cg, KnownObjects: queueCGKnownOrNil(r.known)})
				k.q = kc.NewDeltaFIFOWithOptions(kc.DeltaFIFOOptions{KeyFunction: kcKeys.kc, KnownObjects: queueKCKnownOrNil(k.known)})
				ref, got = r, k
			}
			want, have := queueKeyCallScript(cgKeys, ref), queueKeyCallScript(kcKeys, got)
			if want != have {
				t.Fatalf("client-go:\n%s\nkcache:\n%s", want, have)
			}
		})
	}
}

// queueCGKnownOrNil gives a nil interface for a nil store.
func queueCGKnownOrNil(s cg.Indexer) cg.KeyListerGetter {
	if s == nil {
		return nil
	}
	return queueCGSortedKeys{s}
}

// queueKCKnownOrNil gives a nil interface for a nil store.
func queueKCKnownOrNil(s kc.Indexer) kc.KeyListerGetter {
	if s == nil {
		return nil
	}
	return queueKCSortedKeys{s}
}

// TestFIFOAndHeapGiveTheKeyFunctionTheValuesClientGoGivesIt is the same
// check for FIFO and Heap, including the closed heap.
func TestFIFOAndHeapGiveTheKeyFunctionTheValuesClientGoGivesIt(t *testing.T) {
	play := func(keys *queueCountingKeys, add, update, del func(interface{}) error, replace func([]interface{}) error, extra func() string) string {
		var out []string
		step := func(name string, err error) {
			out = append(out, fmt.Sprintf("%s %s key function first saw %s", name, queueRenderErr(err), keys.take()))
		}
		step("Add a", add(queuePod("a", "1")))
		step("Update a", update(queuePod("a", "2")))
		step("Add int", add(42))
		step("Delete a", del(queuePod("a", "3")))
		step("Replace 2", replace([]interface{}{queuePod("b", "4"), queuePod("c", "4")}))
		out = append(out, extra(), "key function first saw "+keys.take())
		return strings.Join(out, "\n")
	}
	t.Run("FIFO", func(t *testing.T) {
		ck, kk := &queueCountingKeys{}, &queueCountingKeys{}
		c, k := cg.NewFIFO(ck.cg), kc.NewFIFO(kk.kc)
		want := play(ck, c.Add, c.Update, c.Delete, func(l []interface{}) error { return c.Replace(l, "1") }, func() string {
			c.Close()
			_, err := c.Pop(queueNoop)
			return queueRenderErr(err) + " " + queueRenderErr(c.Resync())
		})
		got := play(kk, k.Add, k.Update, k.Delete, func(l []interface{}) error { return k.Replace(l, "1") }, func() string {
			k.Close()
			_, err := k.Pop(queueNoop)
			return queueRenderErr(err) + " " + queueRenderErr(k.Resync())
		})
		if want != got {
			t.Fatalf("client-go:\n%s\nkcache:\n%s", want, got)
		}
	})
	t.Run("Heap", func(t *testing.T) {
		ck, kk := &queueCountingKeys{}, &queueCountingKeys{}
		c, k := cg.NewHeap(ck.cg, queueBadLess), kc.NewHeap(kk.kc, queueBadLess)
		extra := func(h queueHeapAPI) func() string {
			return func() string {
				_, _, err := h.Get(queuePod("b", "1"))
				r := queueRenderErr(err) + " " + queueRenderErr(h.AddIfNotPresent(queuePod("b", "9")))
				h.Close()
				r += " " + queueRenderErr(h.Add(queuePod("z", "1"))) + " " + queueRenderErr(h.BulkAdd([]interface{}{queuePod("z", "1")}))
				return r + " " + queueRenderErr(h.Delete(queuePod("b", "1")))
			}
		}
		want := play(ck, c.Add, c.Update, c.Delete, c.BulkAdd, extra(c))
		got := play(kk, k.Add, k.Update, k.Delete, k.BulkAdd, extra(k))
		if want != got {
			t.Fatalf("client-go:\n%s\nkcache:\n%s", want, got)
		}
	})
}
