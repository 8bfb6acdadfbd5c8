package conformance

import (
	"fmt"
	"strings"
	"testing"

	cg "k8s.io/client-go/tools/cache"

	kc "github.com/kcache-go/cache"
)

// queueUnlockedFIFO is the surface of both RealFIFOs the unlocked-process
// scenarios call; pop and popBatch hand process a callback that may call
// back into the queue, since UnlockWhileProcessing releases the lock.
type queueUnlockedFIFO struct {
	add       func(interface{}) error
	del       func(interface{}) error
	replace   func([]interface{}, string) error
	closeQ    func()
	isClosed  func() bool
	hasSynced func() bool
	pop       func(during func(item string)) (string, error)
	popBatch  func(during func(item string)) error
}

// queueUnlockedPlay replaces (or adds) a, b and c and pops, calling back
// into the queue from inside process: it records HasSynced there, deletes
// and adds there, and closes there at process call closeAt, then pops until
// the queue reports it is closed.
func queueUnlockedPlay(q queueUnlockedFIFO, batch, adds bool, closeAt int) string {
	var out []string
	rec := func(format string, args ...interface{}) { out = append(out, fmt.Sprintf(format, args...)) }
	if adds {
		for _, name := range []string{"a", "b", "c"} {
			rec("add %s: %s", name, queueRenderErr(q.add(queuePod(name, "1"))))
		}
	} else {
		rec("replace: %s", queueRenderErr(q.replace([]interface{}{queuePod("a", "1"), queuePod("b", "1"), queuePod("c", "1")}, "1")))
	}
	rec("before popping synced=%v", q.hasSynced())
	n := 0
	during := func(item string) {
		n++
		rec("process#%d %s synced=%v closed=%v", n, item, q.hasSynced(), q.isClosed())
		switch n {
		case 1:
			rec("delete b: %s", queueRenderErr(q.del(queuePod("b", "2"))))
		case 2:
			rec("add d: %s", queueRenderErr(q.add(queuePod("d", "3"))))
		}
		if n == closeAt {
			q.closeQ()
			rec("closed inside process synced=%v", q.hasSynced())
		}
	}
	for i := 0; i < 10; i++ {
		var err error
		if batch {
			err = q.popBatch(during)
		} else {
			var item string
			item, err = q.pop(during)
			rec("popped %s", item)
		}
		rec("pop err=%s synced=%v closed=%v", queueRenderErr(err), q.hasSynced(), q.isClosed())
		if err != nil {
			break
		}
	}
	return strings.Join(out, "\n")
}

// TestRealFIFOCallbacksIntoTheQueueFromAnUnlockedProcessMatchClientGo runs
// an informer-default RealFIFO (AtomicEvents, UnlockWhileProcessing, few
// deltas queued, so process runs unlocked) and calls HasSynced, Delete,
// Add and Close from inside process, with Pop and with PopBatch: the sync
// state seen from inside and after, and what later Pops return, must be
// client-go's.
func TestRealFIFOCallbacksIntoTheQueueFromAnUnlockedProcessMatchClientGo(t *testing.T) {
	for _, batch := range []bool{false, true} {
		for _, adds := range []bool{false, true} {
			for _, closeAt := range []int{1, 3} {
				t.Run(fmt.Sprintf("PopBatch=%v/adds=%v/closeAt=%d", batch, adds, closeAt), func(t *testing.T) {
					want := queueUnlockedPlay(queueUnlockedCG(), batch, adds, closeAt)
					got := queueUnlockedPlay(queueUnlockedKC(), batch, adds, closeAt)
					if want != got {
						t.Fatalf("client-go:\n%s\nkcache:\n%s", want, got)
					}
				})
			}
		}
	}
}

// queueUnlockedQueue is the RealFIFO of either library; B is its
// ProcessBatchFunc and F its PopProcessFunc.
type queueUnlockedQueue[B, F any] interface {
	Add(interface{}) error
	Delete(interface{}) error
	Replace([]interface{}, string) error
	Close()
	IsClosed() bool
	HasSynced() bool
	Pop(F) (interface{}, error)
	PopBatch(B, F) error
}

// queueUnlockedOf binds q's methods for queueUnlockedPlay; renderDeltas
// renders a batch of the library's deltas D.
func queueUnlockedOf[D any, B ~func([]D, bool) error, F ~func(interface{}, bool) error, Q queueUnlockedQueue[B, F]](q Q, renderDeltas func([]D) string) queueUnlockedFIFO {
	return queueUnlockedFIFO{add: q.Add, del: q.Delete, replace: q.Replace, closeQ: q.Close, isClosed: q.IsClosed, hasSynced: q.HasSynced,
		pop: func(during func(string)) (string, error) {
			item, err := q.Pop(func(obj interface{}, initial bool) error {
				during(fmt.Sprintf("%s initial=%v", queueBadRender(obj), initial))
				return nil
			})
			return queueBadRender(item), err
		},
		popBatch: func(during func(string)) error {
			return q.PopBatch(func(ds []D, initial bool) error {
				during(fmt.Sprintf("batch %s initial=%v", renderDeltas(ds), initial))
				return nil
			}, func(obj interface{}, initial bool) error {
				during(fmt.Sprintf("single %s initial=%v", queueBadRender(obj), initial))
				return nil
			})
		}}
}

func queueUnlockedCG() queueUnlockedFIFO {
	q := cg.NewRealFIFOWithOptions(cg.RealFIFOOptions{AtomicEvents: true, UnlockWhileProcessing: true})
	return queueUnlockedOf[cg.Delta, cg.ProcessBatchFunc, cg.PopProcessFunc](q, queueRenderCGDeltas)
}

func queueUnlockedKC() queueUnlockedFIFO {
	q := kc.NewRealFIFOWithOptions(kc.RealFIFOOptions{AtomicEvents: true, UnlockWhileProcessing: true})
	return queueUnlockedOf[kc.Delta, kc.ProcessBatchFunc, kc.PopProcessFunc](q, queueRenderKCDeltas)
}
