package conformance

import (
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	cg "k8s.io/client-go/tools/cache"

	kc "github.com/kcache-go/cache"
)

// queueFIFOOps is how many random operations each FIFO and Heap run plays.
const queueFIFOOps = 10000

// TestFIFOMatchesClientGoOnRandomOperations plays a seeded stream of
// Add/Update/Delete/Replace/Resync/Pop against both FIFOs (closed from the
// start, so a Pop on an empty queue returns ErrFIFOClosed instead of
// blocking) and compares every result, popped object, isInInitialList flag
// and HasSynced state. client-go queues a multi-object Replace in map order,
// so Replace lists hold at most one object here; the next test covers
// larger ones.
func TestFIFOMatchesClientGoOnRandomOperations(t *testing.T) {
	for _, seed := range []int64{11, 12, 13} {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			var ref, got *queueFIFOPair
			fresh := func() {
				ref, got = nil, nil
				ref = &queueFIFOPair{cgQ: cg.NewFIFO(cg.MetaNamespaceKeyFunc)}
				got = &queueFIFOPair{kcQ: kc.NewFIFO(kc.MetaNamespaceKeyFunc)}
				ref.cgQ.Close()
				got.kcQ.Close()
			}
			fresh()
			for i := 0; i < queueFIFOOps; i++ {
				if rng.Intn(300) == 0 {
					fresh()
				}
				var obj interface{} = queuePod(fmt.Sprintf("p%02d", rng.Intn(20)), strconv.Itoa(i))
				if rng.Intn(50) == 0 {
					obj = 42
				}
				var list []interface{}
				for j := rng.Intn(3) - 1; j > 0; j-- {
					list = append(list, obj)
				}
				op := rng.Intn(100)
				want, have := ref.apply(op, obj, list), got.apply(op, obj, list)
				if want != have {
					t.Fatalf("seed %d, operation %d:\nclient-go: %s\nkcache:    %s", seed, i, want, have)
				}
			}
		})
	}
}

// queueFIFOPair holds one FIFO of either package.
type queueFIFOPair struct {
	cgQ *cg.FIFO
	kcQ *kc.FIFO
}

// apply maps op (0..99) to an operation and renders its outcome.
func (p *queueFIFOPair) apply(op int, obj interface{}, list []interface{}) string {
	var out string
	switch {
	case op < 30:
		out = "Add " + queueRenderErr(p.call(func(q fifoLike) error { return q.Add(obj) }))
	case op < 45:
		out = "Update " + queueRenderErr(p.call(func(q fifoLike) error { return q.Update(obj) }))
	case op < 60:
		out = "Delete " + queueRenderErr(p.call(func(q fifoLike) error { return q.Delete(obj) }))
	case op < 65:
		out = "Replace " + queueRenderErr(p.call(func(q fifoLike) error { return q.Replace(slices.Clone(list), "1") }))
	case op < 68:
		out = "Resync " + queueRenderErr(p.call(func(q fifoLike) error { return q.Resync() }))
	default:
		out = "Pop " + p.pop()
	}
	return out + " " + p.state()
}

// fifoLike is the part of both FIFOs the random run writes through.
type fifoLike interface {
	Add(interface{}) error
	Update(interface{}) error
	Delete(interface{}) error
	Replace([]interface{}, string) error
	Resync() error
}

func (p *queueFIFOPair) call(f func(q fifoLike) error) error {
	if p.cgQ != nil {
		return f(p.cgQ)
	}
	return f(p.kcQ)
}

func (p *queueFIFOPair) pop() string {
	var seen string
	process := func(obj interface{}, initial bool) error {
		seen = fmt.Sprintf("process(%s, initial=%v)", queueRender(obj), initial)
		return nil
	}
	var item interface{}
	var err error
	if p.cgQ != nil {
		item, err = p.cgQ.Pop(process)
	} else {
		item, err = p.kcQ.Pop(process)
	}
	return fmt.Sprintf("%s -> %s %s", seen, queueRender(item), queueRenderErr(err))
}

func (p *queueFIFOPair) state() string {
	if p.cgQ != nil {
		return fmt.Sprintf("synced=%v done=%v closed=%v", p.cgQ.HasSynced(), cg.IsDone(p.cgQ), p.cgQ.IsClosed())
	}
	return fmt.Sprintf("synced=%v done=%v closed=%v", p.kcQ.HasSynced(), kc.IsDone(p.kcQ), p.kcQ.IsClosed())
}

// TestFIFOReplaceOfManyObjectsPopsTheSameSetAsClientGo replaces a FIFO's
// content with a list (with a repeated key and after earlier adds) and
// compares what Pop then yields as a set, with its isInInitialList flags and
// the moment HasSynced turns true.
func TestFIFOReplaceOfManyObjectsPopsTheSameSetAsClientGo(t *testing.T) {
	list := func() []interface{} {
		l := queueDistinctPods(0, 50, "1")
		return append(l, queuePod("p0007", "2"))
	}
	for _, addFirst := range []bool{false, true} {
		t.Run(fmt.Sprintf("add first=%v", addFirst), func(t *testing.T) {
			c := cg.NewFIFO(cg.MetaNamespaceKeyFunc)
			k := kc.NewFIFO(kc.MetaNamespaceKeyFunc)
			if addFirst {
				_ = c.Add(queuePod("zz", "0"))
				_ = k.Add(queuePod("zz", "0"))
			}
			if err := c.Replace(list(), "1"); err != nil {
				t.Fatal(err)
			}
			if err := k.Replace(list(), "1"); err != nil {
				t.Fatal(err)
			}
			c.Close()
			k.Close()
			if want, got := queueDrainFIFO(c), queueDrainFIFO(k); want != got {
				t.Fatalf("client-go: %s\nkcache:    %s", want, got)
			}
		})
	}
}

// queueSortedSummary sorts popped items (keeping "synced@N" markers, which
// only depend on the count) into one comparable line.
func queueSortedSummary(items []string) string {
	sort.Strings(items)
	return strings.Join(items, " ")
}

// TestHeapMatchesClientGoOnRandomOperations plays a seeded stream of
// Add/AddIfNotPresent/Update/BulkAdd/Delete/Get/GetByKey/List/ListKeys/Pop
// against both heaps, with priorities that tie often, and compares every
// result and the pop order. List and ListKeys come in map order in
// client-go, so they are compared sorted.
func TestHeapMatchesClientGoOnRandomOperations(t *testing.T) {
	less := func(a, b interface{}) bool {
		pa, _ := strconv.Atoi(a.(*v1.Pod).ResourceVersion)
		pb, _ := strconv.Atoi(b.(*v1.Pod).ResourceVersion)
		return pa < pb
	}
	for _, seed := range []int64{21, 22, 23} {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			c := cg.NewHeap(cg.MetaNamespaceKeyFunc, less)
			k := kc.NewHeap(kc.MetaNamespaceKeyFunc, less)
			for i := 0; i < queueFIFOOps; i++ {
				var obj interface{} = queuePod(fmt.Sprintf("p%02d", rng.Intn(30)), strconv.Itoa(rng.Intn(10)))
				if rng.Intn(50) == 0 {
					obj = 42
				}
				list := []interface{}{obj, queuePod(fmt.Sprintf("p%02d", rng.Intn(30)), strconv.Itoa(rng.Intn(10)))}
				op := rng.Intn(100)
				canPop := len(c.List()) > 0
				want := queueHeapApply(op, c, list, canPop)
				got := queueHeapApply(op, k, list, canPop)
				if want != got {
					t.Fatalf("seed %d, operation %d:\nclient-go: %s\nkcache:    %s", seed, i, want, got)
				}
			}
			c.Close()
			k.Close()
			for i := 0; ; i++ {
				want := queueHeapApply(99, c, nil, true)
				got := queueHeapApply(99, k, nil, true)
				if want != got {
					t.Fatalf("seed %d, final pop %d:\nclient-go: %s\nkcache:    %s", seed, i, want, got)
				}
				if strings.Contains(want, "closed") {
					break
				}
			}
			if want, got := queueRenderErr(c.Add(queuePod("x", "1"))), queueRenderErr(k.Add(queuePod("x", "1"))); want != got {
				t.Fatalf("Add after Close: client-go %s, kcache %s", want, got)
			}
		})
	}
}

// heapLike is the API both heaps share.
type heapLike interface {
	Add(interface{}) error
	AddIfNotPresent(interface{}) error
	Update(interface{}) error
	BulkAdd([]interface{}) error
	Delete(interface{}) error
	Get(interface{}) (interface{}, bool, error)
	GetByKey(string) (interface{}, bool, error)
	List() []interface{}
	ListKeys() []string
	Pop() (interface{}, error)
	IsClosed() bool
}

// queueHeapApply maps op (0..99) to a heap operation and renders its
// outcome; pops happen only when canPop (the heap is not empty or closed).
func queueHeapApply(op int, h heapLike, list []interface{}, canPop bool) string {
	obj := interface{}(nil)
	if len(list) > 0 {
		obj = list[0]
	}
	switch {
	case op < 25:
		return "Add " + queueRenderErr(h.Add(obj))
	case op < 32:
		return "AddIfNotPresent " + queueRenderErr(h.AddIfNotPresent(obj))
	case op < 40:
		return "Update " + queueRenderErr(h.Update(obj))
	case op < 45:
		return "BulkAdd " + queueRenderErr(h.BulkAdd(list))
	case op < 55:
		return "Delete " + queueRenderErr(h.Delete(obj))
	case op < 60:
		item, ok, err := h.Get(obj)
		return fmt.Sprintf("Get %s %v %s", queueRender(item), ok, queueRenderErr(err))
	case op < 63:
		item, ok, err := h.GetByKey("ns/p03")
		return fmt.Sprintf("GetByKey %s %v %s", queueRender(item), ok, queueRenderErr(err))
	case op < 66:
		objs := strings.Fields(strings.Trim(queueRenderList(h.List()), "[]"))
		keys := h.ListKeys()
		sort.Strings(objs)
		sort.Strings(keys)
		return "List " + strings.Join(objs, ",") + " keys " + strings.Join(keys, ",")
	default:
		if !canPop {
			return "skip Pop"
		}
		item, err := h.Pop()
		return fmt.Sprintf("Pop %s %s closed=%v", queueRender(item), queueRenderErr(err), h.IsClosed())
	}
}

// queueDrainFIFO pops up to 51 items from a FIFO of either library (F is
// its PopProcessFunc) and summarizes them, sorted, with the pop after which
// HasSynced turned true.
func queueDrainFIFO[F ~func(interface{}, bool) error](f interface {
	Pop(F) (interface{}, error)
	HasSynced() bool
}) string {
	var popped []string
	for i := 0; i < 51; i++ {
		item, err := f.Pop(func(interface{}, bool) error { return nil })
		if err != nil {
			break
		}
		popped = append(popped, queueRender(item))
		if f.HasSynced() {
			popped = append(popped, "synced@"+strconv.Itoa(i))
		}
	}
	return queueSortedSummary(popped)
}
