package conformance

import (
	"fmt"
	v1 "k8s.io/api/core/v1"
	"sort"
	"strings"
	"testing"

	cg "k8s.io/client-go/tools/cache"

	kc "github.com/kcache-go/cache"
)

// storeBadSubject is one store of the bad-input table: its entry points,
// each rendering its outcome, and a render of its whole state.
type storeBadSubject struct {
	ops   map[string]func(x interface{}) string
	state func() string
}

// storeBadIndexReads is the read surface the state render uses.
type storeBadIndexReads interface {
	ListIndexFuncValues(string) []string
	ByIndex(string, string) ([]interface{}, error)
	IndexKeys(string, string) ([]string, error)
}

// storeBadSorted renders objects sorted.
func storeBadSorted(objs []interface{}) string {
	parts := make([]string, len(objs))
	for i, o := range objs {
		parts[i] = queueBadRender(o)
	}
	sort.Strings(parts)
	return "[" + strings.Join(parts, " ") + "]"
}

// storeBadState renders a store's content, its namespace index and its
// resource version.
func storeBadState(list []interface{}, keys []string, ix storeBadIndexReads, rv string) string {
	sort.Strings(keys)
	out := fmt.Sprintf("list=%s keys=%v rv=%q", storeBadSorted(list), keys, rv)
	values := ix.ListIndexFuncValues("namespace")
	sort.Strings(values)
	for _, v := range values {
		objs, err := ix.ByIndex("namespace", v)
		ks, _ := ix.IndexKeys("namespace", v)
		sort.Strings(ks)
		out += fmt.Sprintf(" ns[%s]=%s%v%s", v, storeBadSorted(objs), ks, queueRenderErr(err))
	}
	return out
}

// storeBadIndexer is the Indexer surface of both packages' stores.
type storeBadIndexer interface {
	Add(interface{}) error
	Update(interface{}) error
	Delete(interface{}) error
	Replace([]interface{}, string) error
	Get(interface{}) (interface{}, bool, error)
	List() []interface{}
	ListKeys() []string
	LastStoreSyncResourceVersion() string
	Index(string, interface{}) ([]interface{}, error)
	storeBadIndexReads
}

// storeBadIndexerOps maps the table's entry points onto an Indexer;
// txn applies one add transaction of x.
func storeBadIndexerOps(s storeBadIndexer, good interface{}, txn func(x interface{}) string) storeBadSubject {
	ops := map[string]func(x interface{}) string{
		"Add":    func(x interface{}) string { return queueBadErr(s.Add(x)) },
		"Update": func(x interface{}) string { return queueBadErr(s.Update(x)) },
		"Delete": func(x interface{}) string { return queueBadErr(s.Delete(x)) },
		"Replace": func(x interface{}) string {
			return queueBadErr(s.Replace([]interface{}{x}, "9"))
		},
		"Replace after a good object": func(x interface{}) string {
			return queueBadErr(s.Replace([]interface{}{good, x}, "9"))
		},
		"Get": func(x interface{}) string {
			item, ok, err := s.Get(x)
			return fmt.Sprintf("%s %v %s", queueBadRender(item), ok, queueBadErr(err))
		},
		"Index": func(x interface{}) string {
			objs, err := s.Index("namespace", x)
			return storeBadSorted(objs) + " " + queueBadErr(err)
		},
		"Transaction": txn,
	}
	return storeBadSubject{ops: ops, state: func() string {
		return storeBadState(s.List(), s.ListKeys(), s, s.LastStoreSyncResourceVersion())
	}}
}

// storeBadThreadSafe is the ThreadSafeStore surface of both packages.
type storeBadThreadSafe interface {
	Add(string, interface{})
	Update(string, interface{})
	Delete(string)
	Replace(map[string]interface{}, string)
	Get(string) (interface{}, bool)
	List() []interface{}
	ListKeys() []string
	LastStoreSyncResourceVersion() string
	Index(string, interface{}) ([]interface{}, error)
	storeBadIndexReads
}

// storeBadThreadSafeOps maps the table's entry points onto a
// ThreadSafeStore, keyed "ns/k"; deleteWithObject is DeleteWithObject and
// txn applies a delete of ns/first and an add of x under ns/k in one
// Transaction.
func storeBadThreadSafeOps(s storeBadThreadSafe, good interface{}, deleteWithObject func(string, interface{}), txn func(x interface{}) string) storeBadSubject {
	ops := map[string]func(x interface{}) string{
		"Add":    func(x interface{}) string { s.Add("ns/k", x); return "done" },
		"Update": func(x interface{}) string { s.Add("ns/k", good); s.Update("ns/k", x); return "done" },
		"Delete": func(x interface{}) string { s.Add("ns/k", good); deleteWithObject("ns/k", x); return "done" },
		"Replace": func(x interface{}) string {
			s.Replace(map[string]interface{}{"ns/k": x}, "9")
			return "done"
		},
		"Replace after a good object": func(x interface{}) string {
			s.Replace(map[string]interface{}{"ns/good": good, "ns/k": x}, "9")
			return "done"
		},
		"Get": func(x interface{}) string {
			s.Add("ns/k", x)
			item, ok := s.Get("ns/k")
			return fmt.Sprintf("%s %v", queueBadRender(item), ok)
		},
		"Index": func(x interface{}) string {
			objs, err := s.Index("namespace", x)
			return storeBadSorted(objs) + " " + queueBadErr(err)
		},
		"Transaction": txn,
	}
	return storeBadSubject{ops: ops, state: func() string {
		return storeBadState(s.List(), s.ListKeys(), s, s.LastStoreSyncResourceVersion())
	}}
}

// storeBadTolerantNamespace indexes by namespace, giving nothing for an
// object without metadata (a strict index function panics the write path,
// which TestStoreIndexingPanicsLikeClientGo covers).
func storeBadTolerantNamespace(ns func(interface{}) ([]string, error)) func(interface{}) ([]string, error) {
	return func(obj interface{}) ([]string, error) {
		values, err := ns(obj)
		if err != nil {
			return nil, nil
		}
		return values, nil
	}
}

// storeBadKind builds one store of each package.
type storeBadKind struct {
	name   string
	cg, kc func() storeBadSubject
}

// storeBadKinds are the stores of the table: Indexers with each key
// function, a Store with a transformer and a ThreadSafeStore.
func storeBadKinds() []storeBadKind {
	good := queuePod("good", "2")
	cgIndexer := func(kf cg.KeyFunc, opts ...cg.StoreOption) func() storeBadSubject {
		return func() storeBadSubject {
			s := cg.NewIndexer(kf, cg.Indexers{"namespace": storeBadTolerantNamespace(cg.MetaNamespaceIndexFunc)}, opts...)
			_ = s.Add(queuePod("first", "1"))
			return storeBadIndexerOps(s, good, func(x interface{}) string {
				return fmt.Sprint(s.(cg.TransactionStore).Transaction(cg.Transaction{Type: cg.TransactionTypeAdd, Object: x}))
			})
		}
	}
	kcIndexer := func(kf kc.KeyFunc, opts ...kc.StoreOption) func() storeBadSubject {
		return func() storeBadSubject {
			s := kc.NewIndexer(kf, kc.Indexers{"namespace": storeBadTolerantNamespace(kc.MetaNamespaceIndexFunc)}, opts...)
			_ = s.Add(queuePod("first", "1"))
			return storeBadIndexerOps(s, good, func(x interface{}) string {
				return fmt.Sprint(s.(kc.TransactionStore).Transaction(kc.Transaction{Type: kc.TransactionTypeAdd, Object: x}))
			})
		}
	}
	return []storeBadKind{
		{"Indexer MetaNamespaceKeyFunc", cgIndexer(cg.MetaNamespaceKeyFunc), kcIndexer(kc.MetaNamespaceKeyFunc)},
		{"Indexer DeletionHandlingMetaNamespaceKeyFunc", cgIndexer(cg.DeletionHandlingMetaNamespaceKeyFunc), kcIndexer(kc.DeletionHandlingMetaNamespaceKeyFunc)},
		{"Indexer with transformer", cgIndexer(cg.DeletionHandlingMetaNamespaceKeyFunc, cg.WithTransformer(queueTransform)),
			kcIndexer(kc.DeletionHandlingMetaNamespaceKeyFunc, kc.WithTransformer(queueTransform))},
		{"ThreadSafeStore", func() storeBadSubject {
			s := cg.NewThreadSafeStore(cg.Indexers{"namespace": storeBadTolerantNamespace(cg.MetaNamespaceIndexFunc)}, cg.Indices{})
			s.Add("ns/first", queuePod("first", "1"))
			return storeBadThreadSafeOps(s, good, s.DeleteWithObject, func(x interface{}) string {
				s.(cg.ThreadSafeStoreWithTransaction).Transaction(
					cg.ThreadSafeStoreTransaction{Transaction: cg.Transaction{Type: cg.TransactionTypeDelete, Object: good}, Key: "ns/first"},
					cg.ThreadSafeStoreTransaction{Transaction: cg.Transaction{Type: cg.TransactionTypeAdd, Object: x}, Key: "ns/k"})
				return "done"
			})
		}, func() storeBadSubject {
			s := kc.NewThreadSafeStore(kc.Indexers{"namespace": storeBadTolerantNamespace(kc.MetaNamespaceIndexFunc)}, kc.Indices{})
			s.Add("ns/first", queuePod("first", "1"))
			return storeBadThreadSafeOps(s, good, s.DeleteWithObject, func(x interface{}) string {
				s.(kc.ThreadSafeStoreWithTransaction).Transaction(
					kc.ThreadSafeStoreTransaction{Transaction: kc.Transaction{Type: kc.TransactionTypeDelete, Object: good}, Key: "ns/first"},
					kc.ThreadSafeStoreTransaction{Transaction: kc.Transaction{Type: kc.TransactionTypeAdd, Object: x}, Key: "ns/k"})
				return "done"
			})
		}},
	}
}

// storeBadPlay runs one entry point on a fresh store and renders its
// outcome (result or panic) and the store's whole state; a store left
// locked by a panic renders as stuck instead of hanging the test.
func storeBadPlay(build func() storeBadSubject, op string, bad interface{}) string {
	s := build()
	call, ok := s.ops[op]
	if !ok {
		return "no such entry point"
	}
	outcome := queueCatch(func() string { return call(bad) })
	state := s.state
	if strings.HasPrefix(outcome, "panic(") && strings.HasPrefix(op, "Replace") {
		// An index rebuild that panicked stopped at a map-order position,
		// in both libraries: compare the content and version only.
		state = func() string { return strings.SplitN(s.state(), " ns[", 2)[0] }
	}
	return outcome + " => " + queueStateOrStuck(state, "store")
}

// TestStoreEntryPointsGiveClientGosAnswerToBadInput hands every store kind
// (Indexers with either key function, with a transformer, and a
// ThreadSafeStore) every odd input of queueBadInputs (nil, no metadata,
// non-pointer and nil-pointer objects, keys with two slashes, tombstones
// with nil or tombstone objects, Deltas and Delta values) through every
// entry point (Add, Update, Delete, Replace, Get, Index, Transaction) after
// a first good Add, and requires client-go's result, error or panic value
// and then client-go's state: content, keys, namespace index, resource
// version.
func TestStoreEntryPointsGiveClientGosAnswerToBadInput(t *testing.T) {
	ops := []string{"Add", "Update", "Delete", "Replace", "Replace after a good object", "Get", "Index", "Transaction"}
	cases := 0
	for _, kind := range storeBadKinds() {
		cases += queueBadCompare(t, kind.name, ops, func(op string, bad interface{}) string { return storeBadPlay(kind.cg, op, bad) },
			func(op string, bad interface{}) string { return storeBadPlay(kind.kc, op, bad) })
	}
	t.Logf("%d bad-input cases compared", cases)
}

// storeBadBoom is an index function that panics for the pod named "boom"
// or at resource version "66".
func storeBadBoom(obj interface{}) ([]string, error) {
	if p, ok := obj.(*v1.Pod); ok && p != nil && (p.Name == "boom" || p.ResourceVersion == "66") {
		panic("boom index")
	}
	return []string{"v"}, nil
}

// storeBadPanicScript plays writes whose index function or metadata
// panics on a ThreadSafeStore (through tss) and renders each outcome and
// the state after it; txn applies a ThreadSafeStore Transaction of
// (type, key, object) triples.
func storeBadPanicScript(add, update func(string, interface{}), del func(string, interface{}), txn func(...storeTxn), s storeBadThreadSafe) string {
	nilPod := (*v1.Pod)(nil)
	var out []string
	step := func(name string, f func()) {
		r := queueCatch(func() string { f(); return "ok" })
		out = append(out, name+" "+r+" => "+storeBadState(s.List(), s.ListKeys(), storeBadOtherIndices{s}, s.LastStoreSyncResourceVersion()))
	}
	step("Add", func() { add("ns/first", queuePod("first", "1")) })
	step("Add boom", func() { add("ns/boom", queuePod("boom", "5")) })
	step("Update to rv 66", func() { update("ns/first", queuePod("first", "66")) })
	step("Add nil pod", func() { add("ns/nil", nilPod) })
	step("DeleteWithObject nil pod", func() { del("ns/first", nilPod) })
	step("Transaction add, add boom, add", func() {
		txn(storeTxn{"Add", queuePod("a", "7"), "ns/a"}, storeTxn{"Add", queuePod("boom", "8"), "ns/boom2"}, storeTxn{"Add", queuePod("b", "9"), "ns/b"})
	})
	step("Transaction delete, add nil pod last", func() {
		txn(storeTxn{"Delete", nil, "ns/a"}, storeTxn{"Add", nilPod, "ns/nil"})
	})
	step("Transaction add nil pod, add", func() {
		txn(storeTxn{"Add", nilPod, "ns/nil"}, storeTxn{"Add", queuePod("c", "10"), "ns/c"})
	})
	return strings.Join(out, "\n")
}

// storeBadOtherIndices renders the "a" index of the panic script through
// the namespace-shaped state render. (One index only: client-go updates
// several in map order, so a panic in one leaves the others in a random
// state.)
type storeBadOtherIndices struct{ s storeBadThreadSafe }

func (o storeBadOtherIndices) ListIndexFuncValues(string) []string {
	return o.s.ListIndexFuncValues("a")
}

func (o storeBadOtherIndices) ByIndex(_, v string) ([]interface{}, error) { return o.s.ByIndex("a", v) }

func (o storeBadOtherIndices) IndexKeys(_, v string) ([]string, error) {
	return o.s.IndexKeys("a", v)
}

// TestThreadSafeStoreStateAfterAPanickingWriteMatchesClientGo pins what a
// write leaves behind when it panics: an IndexFunc panic leaves the object
// stored and the resource version unrecorded; an object whose metadata
// panics (a nil pointer) changes nothing, in Add, DeleteWithObject and as
// the last object of a Transaction (whose earlier writes then do not
// happen either), as in client-go.
func TestThreadSafeStoreStateAfterAPanickingWriteMatchesClientGo(t *testing.T) {
	run := func(lib storeLib, s interface {
		storeBadThreadSafe
		DeleteWithObject(string, interface{})
	}) string {
		txn := func(ts ...storeTxn) {
			if !lib.transactThreadSafe(s, ts, func(obj any) any { return obj }) {
				panic("not a ThreadSafeStoreWithTransaction")
			}
		}
		return storeBadPanicScript(s.Add, s.Update, s.DeleteWithObject, txn, s)
	}
	want := run(storeClientGo{}, cg.NewThreadSafeStore(cg.Indexers{"a": storeBadBoom}, cg.Indices{}))
	got := run(storeKCache{}, kc.NewThreadSafeStore(kc.Indexers{"a": storeBadBoom}, kc.Indices{}))
	if want != got {
		t.Fatalf("client-go:\n%s\nkcache:\n%s", want, got)
	}
}
