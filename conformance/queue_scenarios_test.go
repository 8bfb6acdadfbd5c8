package conformance

import (
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	v1 "k8s.io/api/core/v1"
	cg "k8s.io/client-go/tools/cache"

	kc "github.com/kcache-go/cache"
)

// queueSortedKnown is a KnownObjects store for either package with a fixed,
// sorted key order (no map order) over the objects given.
type queueSortedKnown struct{ objs map[string]interface{} }

func (s queueSortedKnown) ListKeys() []string {
	keys := make([]string, 0, len(s.objs))
	for k := range s.objs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (s queueSortedKnown) GetByKey(key string) (interface{}, bool, error) {
	obj, ok := s.objs[key]
	return obj, ok, nil
}

// queueDrainDelta closes a DeltaFIFO of either package (through closeQ and
// pop) and renders everything it pops.
func queueDrainAll(closeQ func(), pop func() (interface{}, error)) string {
	closeQ()
	var out []string
	for i := 0; i < 50; i++ {
		item, err := pop()
		if err != nil {
			out = append(out, queueRenderErr(err))
			break
		}
		out = append(out, queueBadRender(item))
	}
	return strings.Join(out, " ")
}

func queueNoop(interface{}, bool) error { return nil }

// TestDeltaFIFOReplaceOfAVanishedKeyWhoseNewestObjectIsATombstoneGivesOneTombstoneLikeClientGo
// lists a tombstone, then relists without it: the deletion client-go
// queues holds the object inside the old tombstone (no tombstone in a
// tombstone), with and without KnownObjects and EmitDeltaTypeReplaced.
func TestDeltaFIFOReplaceOfAVanishedKeyWhoseNewestObjectIsATombstoneGivesOneTombstoneLikeClientGo(t *testing.T) {
	podA, podB, other := queuePod("a", "1"), queuePod("f", "5"), queuePod("o", "2")
	podB.Namespace = "ns2"
	for _, tc := range []struct {
		name         string
		known, emitR bool
	}{{"no known objects", false, false}, {"no known objects, Replaced deltas", false, true}, {"known objects", true, false}} {
		t.Run(tc.name, func(t *testing.T) {
			cgOpts := cg.DeltaFIFOOptions{EmitDeltaTypeReplaced: tc.emitR}
			kcOpts := kc.DeltaFIFOOptions{EmitDeltaTypeReplaced: tc.emitR}
			if tc.known {
				known := queueSortedKnown{map[string]interface{}{"ns/k": queuePod("k", "0")}}
				cgOpts.KnownObjects, kcOpts.KnownObjects = known, known
			}
			c, k := cg.NewDeltaFIFOWithOptions(cgOpts), kc.NewDeltaFIFOWithOptions(kcOpts)
			steps := func(replace func([]interface{}, string) error, tomb interface{}) string {
				e1 := replace([]interface{}{podA, tomb}, "1")
				e2 := replace([]interface{}{other}, "2")
				return queueRenderErr(e1) + " " + queueRenderErr(e2)
			}
			want := steps(c.Replace, cg.DeletedFinalStateUnknown{Key: "ns2/f", Obj: podB})
			got := steps(k.Replace, kc.DeletedFinalStateUnknown{Key: "ns2/f", Obj: podB})
			want += " " + queueDrainAll(c.Close, func() (interface{}, error) { return c.Pop(queueNoop) })
			got += " " + queueDrainAll(k.Close, func() (interface{}, error) { return k.Pop(queueNoop) })
			if want != got {
				t.Fatalf("client-go: %s\nkcache:    %s", want, got)
			}
			if !strings.Contains(want, "Deleted:Tombstone(ns2/f,ns2/f@5)") {
				t.Fatalf("the scenario no longer reaches the case: %s", want)
			}
		})
	}
}

// queueForeignKey keys pods as "X"+name, unlike the known store's
// namespace/name keys, and refuses the pod named "bad".
func queueForeignKey(obj interface{}) (string, error) {
	p, ok := obj.(*v1.Pod)
	if !ok {
		return "", errors.New("not a pod")
	}
	if p.Name == "bad" {
		return "", errors.New("the queue cannot key bad")
	}
	return "X" + p.Name, nil
}

// TestQueueResyncKeysKnownObjectsByTheQueuesOwnKeyFunctionLikeClientGo
// resyncs a DeltaFIFO and a non-atomic RealFIFO whose key function differs
// from the known store's, with and without the object queued, then with an
// object the queue's function cannot key, and relists; every error and
// every popped delta must be client-go's.
func TestQueueResyncKeysKnownObjectsByTheQueuesOwnKeyFunctionLikeClientGo(t *testing.T) {
	for _, queue := range []string{"DeltaFIFO", "RealFIFO"} {
		for _, queued := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/queued=%v", queue, queued), func(t *testing.T) {
				play := func(s queueSubject, known queueSortedKnown) string {
					var out []string
					if queued {
						out = append(out, queueRenderErr(s.add(queuePod("a", "9"))))
					}
					out = append(out, queueRenderErr(s.resync()))
					known.objs["ns/bad"] = queuePod("bad", "3")
					known.objs["ns/c"] = queuePod("c", "4")
					out = append(out, queueRenderErr(s.resync()))
					out = append(out, queueRenderErr(s.replace([]interface{}{queuePod("b", "7")}, "5")))
					s.close()
					for i := 0; i < 20; i++ {
						r := s.pop(nil)
						out = append(out, r)
						if strings.Contains(r, "closed queue") {
							break
						}
					}
					return strings.Join(out, "\n")
				}
				newKnown := func() queueSortedKnown {
					return queueSortedKnown{map[string]interface{}{"ns/a": queuePod("a", "1"), "ns/b": queuePod("b", "2")}}
				}
				cgKnown, kcKnown := newKnown(), newKnown()
				var ref, got queueSubject
				if queue == "DeltaFIFO" {
					ref = queueCGDelta(cg.NewDeltaFIFOWithOptions(cg.DeltaFIFOOptions{KeyFunction: queueForeignKey, KnownObjects: cgKnown}), nil)
					got = queueKCDelta(kc.NewDeltaFIFOWithOptions(kc.DeltaFIFOOptions{KeyFunction: queueForeignKey, KnownObjects: kcKnown}), nil)
				} else {
					ref = queueCGReal(cg.NewRealFIFOWithOptions(cg.RealFIFOOptions{KeyFunction: queueForeignKey, KnownObjects: cgKnown}), nil, &queueMetricsRecorder{})
					got = queueKCReal(kc.NewRealFIFOWithOptions(kc.RealFIFOOptions{KeyFunction: queueForeignKey, KnownObjects: kcKnown}), nil, &queueMetricsRecorder{})
				}
				want, have := play(ref, cgKnown), play(got, kcKnown)
				if want != have {
					t.Fatalf("client-go:\n%s\nkcache:\n%s", want, have)
				}
			})
		}
	}
}

// TestFIFOHasSyncedStaysFalseWhilePopWaitsAfterTheInitialObjectWasDeletedLikeClientGo
// replaces a FIFO with [a], deletes a, and starts a Pop, which skips a and
// waits: client-go reports HasSynced false until that Pop returns (with the
// next object, or with ErrFIFOClosed). kcache matches it.
func TestFIFOHasSyncedStaysFalseWhilePopWaitsAfterTheInitialObjectWasDeletedLikeClientGo(t *testing.T) {
	type fifo struct {
		replace func([]interface{}, string) error
		del     func(interface{}) error
		add     func(interface{}) error
		pop     func() (interface{}, error)
		synced  func() bool
		close   func()
	}
	play := func(f fifo, endWithClose bool) string {
		var out []string
		synctest.Test(t, func(t *testing.T) {
			a := queuePod("a", "1")
			out = append(out, queueRenderErr(f.replace([]interface{}{a}, "1")), queueRenderErr(f.del(a)))
			out = append(out, fmt.Sprintf("before Pop synced=%v", f.synced()))
			popped := make(chan string, 1)
			go func() {
				item, err := f.pop()
				popped <- queueRender(item) + " " + queueRenderErr(err)
			}()
			synctest.Wait() // Pop skipped a and waits on the queue's condition
			out = append(out, fmt.Sprintf("while Pop waits synced=%v", f.synced()))
			if endWithClose {
				f.close()
			} else {
				out = append(out, queueRenderErr(f.add(queuePod("b", "2"))))
			}
			out = append(out, "Pop returned "+<-popped, fmt.Sprintf("after Pop synced=%v", f.synced()))
			f.close()
		})
		return strings.Join(out, "; ")
	}
	for _, endWithClose := range []bool{false, true} {
		t.Run(fmt.Sprintf("Pop ends by Close=%v", endWithClose), func(t *testing.T) {
			var want, got string
			{
				q := cg.NewFIFO(cg.MetaNamespaceKeyFunc)
				want = play(fifo{q.Replace, q.Delete, q.Add, func() (interface{}, error) { return q.Pop(queueNoop) }, q.HasSynced, q.Close}, endWithClose)
			}
			{
				q := kc.NewFIFO(kc.MetaNamespaceKeyFunc)
				got = play(fifo{q.Replace, q.Delete, q.Add, func() (interface{}, error) { return q.Pop(queueNoop) }, q.HasSynced, q.Close}, endWithClose)
			}
			if want != got {
				t.Fatalf("client-go: %s\nkcache:    %s", want, got)
			}
			if !strings.Contains(want, "while Pop waits synced=false") {
				t.Fatalf("client-go no longer behaves as pinned: %s", want)
			}
		})
	}
}

// TestRealFIFOReplaceNeverRewritesTheCallersListLikeClientGo replaces with
// a list whose second object the transformer refuses, then retries with the
// same slice (second object fixed): client-go leaves the caller's slice as
// it was, so the retry transforms every object once. Atomic and non-atomic.
func TestRealFIFOReplaceNeverRewritesTheCallersListLikeClientGo(t *testing.T) {
	for _, atomic := range []bool{true, false} {
		t.Run(fmt.Sprintf("atomic=%v", atomic), func(t *testing.T) {
			play := func(s queueSubject) string {
				list := []interface{}{queuePod("a", "1"), queuePod(queueRejectedName, "2"), queuePod("b", "3")}
				out := []string{queueRenderErr(s.replace(list, "1")), "list=" + queueRenderList(list)}
				list[1] = queuePod("c", "4")
				out = append(out, queueRenderErr(s.replace(list, "2")), "list="+queueRenderList(list))
				for s.depth() > 0 {
					out = append(out, s.pop(nil))
				}
				return strings.Join(out, "\n")
			}
			combo := queueCombination{Queue: "RealFIFO", Atomic: atomic, Known: !atomic, Transformer: true}
			cq, kq := newQueueRealPair(combo, queueTransform)
			want, got := play(cq), play(kq)
			if want != got {
				t.Fatalf("client-go:\n%s\nkcache:\n%s", want, got)
			}
		})
	}
}

// queueAddDuring reports, from inside a process function, whether an Add
// from another goroutine completes while process runs ("released") or
// blocks on the queue's lock ("held").
//
// NB: it decides on what the adding goroutine is doing, not on a timeout:
// a loaded machine that is slow to schedule the goroutine could otherwise
// turn "released" into "held". The bound is for a broken probe only.
func queueAddDuring(add func(interface{}) error) string {
	done := make(chan struct{})
	go func() {
		queueAddProbe(add)
		close(done)
	}()
	deadline := time.After(time.Minute)
	for {
		select {
		case <-done:
			return "released"
		case <-deadline:
			return "undecided after a minute"
		case <-time.After(time.Millisecond):
		}
		if queueProbeWaitsForALock() {
			return "held"
		}
	}
}

// queueAddProbe is the Add of queueAddDuring; queueProbeWaitsForALock finds
// its goroutine by this function's name.
//
//go:noinline
func queueAddProbe(add func(interface{}) error) {
	_ = add(queuePod("during", "0"))
}

// queueProbeWaitsForALock reports whether the goroutine of queueAddProbe
// is parked waiting for a sync.Mutex or sync.RWMutex.
func queueProbeWaitsForALock() bool {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	for _, g := range strings.Split(string(buf), "\n\n") {
		header, _, _ := strings.Cut(g, "\n")
		if strings.Contains(g, ".queueAddProbe(") &&
			(strings.Contains(header, "[sync.Mutex.Lock") || strings.Contains(header, "[sync.RWMutex.Lock") || strings.Contains(header, "[semacquire")) {
			return true
		}
	}
	return false
}

// TestRealFIFOReleasesItsLockWhileProcessingOnlyBelowTwoBatchesLikeClientGo
// queues n deltas in an informer-default RealFIFO (AtomicEvents,
// UnlockWhileProcessing) and checks, during one Pop and one PopBatch,
// whether a producer may add: client-go releases the lock only while
// fewer than 2000 deltas remain queued after the popped ones, which keeps
// back-pressure on the producer during a burst (see
// benchmarks/queue_burst_test.go).
func TestRealFIFOReleasesItsLockWhileProcessingOnlyBelowTwoBatchesLikeClientGo(t *testing.T) {
	for _, tc := range []struct {
		n     int
		batch bool
	}{{2000, false}, {2001, false}, {2999, true}, {3000, true}} {
		t.Run(fmt.Sprintf("queued=%d/PopBatch=%v", tc.n, tc.batch), func(t *testing.T) {
			var want, got string
			{
				q := cg.NewRealFIFOWithOptions(cg.RealFIFOOptions{AtomicEvents: true, UnlockWhileProcessing: true})
				for i := 0; i < tc.n; i++ {
					_ = q.Add(queuePod(fmt.Sprintf("p%05d", i), "1"))
				}
				if tc.batch {
					_ = q.PopBatch(func(ds []cg.Delta, _ bool) error { want = fmt.Sprint(len(ds), " ", queueAddDuring(q.Add)); return nil }, nil)
				} else {
					_, _ = q.Pop(func(interface{}, bool) error { want = queueAddDuring(q.Add); return nil })
				}
			}
			{
				q := kc.NewRealFIFOWithOptions(kc.RealFIFOOptions{AtomicEvents: true, UnlockWhileProcessing: true})
				for i := 0; i < tc.n; i++ {
					_ = q.Add(queuePod(fmt.Sprintf("p%05d", i), "1"))
				}
				if tc.batch {
					_ = q.PopBatch(func(ds []kc.Delta, _ bool) error { got = fmt.Sprint(len(ds), " ", queueAddDuring(q.Add)); return nil }, nil)
				} else {
					_, _ = q.Pop(func(interface{}, bool) error { got = queueAddDuring(q.Add); return nil })
				}
			}
			if want != got {
				t.Fatalf("client-go: %s\nkcache:    %s", want, got)
			}
			t.Log(got)
		})
	}
}

// TestRealFIFOPopBatchEndsAfterADeltasObjectLikeClientGo queues, by Add,
// objects that are a Deltas, a Delta or a tombstone among pods and compares
// how PopBatch cuts them: client-go tells batch members apart by the key
// function applied to the object as it is, so a Deltas or Delta object
// ends the batch right after itself, while a tombstone is keyed by its Key.
func TestRealFIFOPopBatchEndsAfterADeltasObjectLikeClientGo(t *testing.T) {
	a, b, c, d := queuePod("a", "1"), queuePod("b", "1"), queuePod("c", "1"), queuePod("d", "1")
	for _, tc := range []struct {
		name string
		seq  []interface{}
	}{
		{"pod, Deltas, pods", []interface{}{a, []queueDelta{{"Added", b}}, c, d}},
		{"Deltas first", []interface{}{[]queueDelta{{"Added", b}}, c, d}},
		{"pod, Delta, pods", []interface{}{a, queueDelta{"Added", b}, c, d}},
		{"Deltas of a key already in the batch", []interface{}{a, []queueDelta{{"Added", a}}, c}},
		{"tombstone", []interface{}{a, queueTombstone{key: "ns/b", obj: b}, c, d}},
		{"tombstone of a key already in the batch", []interface{}{a, queueTombstone{key: "ns/a", obj: b}, c}},
		{"two Deltas in a row", []interface{}{a, b, []queueDelta{{"Added", c}}, []queueDelta{{"Added", d}}, queuePod("e", "1")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			play := func(s queueSubject) string {
				var out []string
				for _, o := range tc.seq {
					out = append(out, queueRenderErr(s.add(o)))
				}
				for s.depth() > 0 {
					out = append(out, s.popBatch(nil))
				}
				return strings.Join(out, "\n")
			}
			combo := queueCombination{Queue: "RealFIFO", Atomic: true, Unlock: true}
			cq, kq := newQueueRealPair(combo, nil)
			want, got := play(cq), play(kq)
			if want != got {
				t.Fatalf("client-go:\n%s\nkcache:\n%s", want, got)
			}
		})
	}
}

// TestRealFIFOReplaceOfAVanishedKeyWhoseNewestObjectIsATombstoneWrapsItAgainLikeClientGo
// is the non-atomic RealFIFO's side of the DeltaFIFO case above: client-go's
// RealFIFO does not unwrap, so its deletion holds the old tombstone inside
// a new one, whether the tombstone came from a Replace list or an Add.
func TestRealFIFOReplaceOfAVanishedKeyWhoseNewestObjectIsATombstoneWrapsItAgainLikeClientGo(t *testing.T) {
	podA, podB := queuePod("a", "1"), queuePod("f", "5")
	play := func(s queueSubject) string {
		out := []string{
			queueRenderErr(s.replace([]interface{}{podA, queueTombstone{key: "ns/f", obj: podB}}, "1")),
			queueRenderErr(s.add(queueTombstone{key: "ns/g", obj: podB})),
			queueRenderErr(s.replace([]interface{}{queuePod("o", "2")}, "2")),
		}
		for s.depth() > 0 {
			out = append(out, s.pop(nil))
		}
		return strings.Join(out, "\n")
	}
	combo := queueCombination{Queue: "RealFIFO", Known: true}
	cq, kq := newQueueRealPair(combo, nil)
	want, got := play(cq), play(kq)
	if want != got {
		t.Fatalf("client-go:\n%s\nkcache:\n%s", want, got)
	}
	if !strings.Contains(want, "Tombstone(ns/f,Tombstone(ns/f,ns/f@5))") {
		t.Fatalf("client-go no longer behaves as pinned:\n%s", want)
	}
}
