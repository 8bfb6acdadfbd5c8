package conformance

// The harness of the tests of Update's sole-membership shortcut
// (index_update.go / index_sole.go, store_update_*_test.go): when the indices are trusted,
// kcache computes the new object's values first and skips the IndexFunc on
// the old object if the record's memberships already are those values. The
// claim is that index content, every read, every error and every panic stay
// client-go's. These tests drive both libraries with the same calls on the
// very same objects (so an in-place mutation reaches both stores) and
// compare everything a reader can see after every step.

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	cg "k8s.io/client-go/tools/cache"
)

// soleIndexFunc is the neutral catalog of index functions; epoch is read by
// "ext" (an IndexFunc reading mutable state outside the object).
func soleIndexFunc(name string, epoch *int) func(obj any) ([]string, error) {
	pod := func(obj any) (*corev1.Pod, bool) {
		p, ok := obj.(*corev1.Pod)
		return p, ok && p != nil
	}
	label := func(obj any, l string) string {
		if p, ok := pod(obj); ok {
			return p.Labels[l]
		}
		return "other"
	}
	switch name {
	case "s", "s2", "pend", "pend2":
		return func(obj any) ([]string, error) { return []string{label(obj, "s")}, nil }
	case "multi":
		return func(obj any) ([]string, error) {
			p, ok := pod(obj)
			if !ok {
				return []string{"other"}, nil
			}
			m, ok := p.Labels["m"]
			if !ok {
				return nil, nil
			}
			return strings.Split(m, ","), nil
		}
	case "node":
		return func(obj any) ([]string, error) {
			p, ok := pod(obj)
			if !ok || p.Spec.NodeName == "" {
				return nil, nil
			}
			return []string{p.Spec.NodeName}, nil
		}
	case "dup":
		return func(obj any) ([]string, error) {
			s := label(obj, "s")
			return []string{s, s}, nil
		}
	case "ext":
		return func(obj any) ([]string, error) {
			return []string{fmt.Sprintf("%s:%d", label(obj, "s"), *epoch%3)}, nil
		}
	case "many":
		return func(obj any) ([]string, error) {
			s := label(obj, "s")
			out := make([]string, 0, 20)
			for i := 0; i < 20; i++ {
				out = append(out, fmt.Sprintf("%s-%d", s, i%(10+len(s))))
			}
			return out, nil
		}
	case "err":
		return func(obj any) ([]string, error) {
			if label(obj, "err") == "1" {
				return nil, fmt.Errorf("err index fails on purpose for s=%s", label(obj, "s"))
			}
			return []string{label(obj, "s")}, nil
		}
	case "boom":
		return func(obj any) ([]string, error) {
			if label(obj, "boom") == "1" {
				panic("boom index panics on purpose for s=" + label(obj, "s"))
			}
			return []string{label(obj, "s")}, nil
		}
	case "outside":
		return func(obj any) ([]string, error) {
			if soleRejectV1 && label(obj, "v") == "1" {
				return nil, fmt.Errorf("rejected by outside state")
			}
			return []string{label(obj, "s")}, nil
		}
	case "wrapns":
		return func(obj any) ([]string, error) { return cg.MetaNamespaceIndexFunc(obj) }
	}
	panic("unknown index function " + name)
}

// soleRejectV1 is outside state the "outside" index function reads: while
// set, it rejects every object whose label v is "1".
var soleRejectV1 bool

// soleSide is one library's store, driven through closures so a
// ThreadSafeStore (plain keys) and an Indexer (keys computed from the
// objects, split namespace/name) share one driver.
type soleSide struct {
	put         func(key string, obj any)
	add         func(key string, obj any)
	del         func(key string)
	replace     func(keys []string, objs []any)
	addIndexers func(names []string) error
	txn         func(keys []string, objs []any)
	get         func(key string) (any, bool)
	list        func() []any
	listKeys    func() []string
	byIndex     func(n, v string) ([]any, error)
	indexKeys   func(n, v string) ([]string, error)
	index       func(n string, obj any) ([]any, error)
	values      func(n string) []string
	names       func() []string
}

// soleConfig is one store configuration.
type soleConfig struct {
	name     string
	indexer  bool // an Indexer keyed by DeletionHandlingMetaNamespaceKeyFunc
	indexers []string
	later    []string // names AddIndexers may register later
	indices  map[string]map[string][]string
}

// newSoleSide builds lib's store of configuration c: an Indexer or a
// ThreadSafeStore, its "ns" index the library's own MetaNamespaceIndexFunc
// and its other indexes the neutral catalog reading epoch.
func newSoleSide(lib storeLib, c soleConfig, epoch *int) *soleSide {
	indexers := func(names []string) storeIndexFuncs {
		ix := storeIndexFuncs{}
		for _, n := range names {
			if n == "ns" {
				ix[n] = lib.metaNamespaceIndexFunc
				continue
			}
			ix[n] = soleIndexFunc(n, epoch)
		}
		return ix
	}
	names := func(subject any) func() []string {
		return func() []string { return layoutIndexerNames(lib, subject) }
	}
	build := storeBuild{indexers: indexers}
	if c.indexer {
		s := lib.build(storeRow{Kind: "indexer", KeyFunc: "DeletionHandlingMetaNamespaceKeyFunc", Indexers: c.indexers}, build).(storeIndexer)
		return &soleSide{
			put: func(_ string, obj any) { _ = s.Update(obj) },
			add: func(_ string, obj any) { _ = s.Add(obj) },
			del: func(key string) { _ = s.Delete(lib.in(storeTombstone{Key: key})) },
			replace: func(_ []string, objs []any) {
				_ = s.Replace(objs, "rv")
			},
			addIndexers: func(names []string) error { return lib.addIndexers(s, indexers(names)) },
			get: func(key string) (any, bool) {
				o, ok, _ := s.GetByKey(key)
				return o, ok
			},
			list: s.List, listKeys: s.ListKeys, byIndex: s.ByIndex, indexKeys: s.IndexKeys, index: s.Index,
			values: s.ListIndexFuncValues, names: names(s),
		}
	}
	s := lib.build(storeRow{Kind: "threadSafeStore", Indexers: c.indexers, Indices: c.indices}, build).(storeThreadSafe)
	return &soleSide{
		put: s.Update, add: s.Add, del: s.Delete,
		replace: func(keys []string, objs []any) {
			items := map[string]any{}
			for i, k := range keys {
				items[k] = objs[i]
			}
			s.Replace(items, "rv")
		},
		addIndexers: func(names []string) error { return lib.addIndexers(s, indexers(names)) },
		txn: func(keys []string, objs []any) {
			var txns []storeTxn
			for i, k := range keys {
				typ := "Update"
				if objs[i] == nil && i%2 == 0 {
					typ = "Delete"
				}
				txns = append(txns, storeTxn{Type: typ, Obj: objs[i], Key: k})
			}
			if !lib.transactThreadSafe(s, txns, func(obj any) any { return obj }) {
				panic("not a ThreadSafeStoreWithTransaction")
			}
		},
		get: s.Get, list: s.List, listKeys: s.ListKeys, byIndex: s.ByIndex, indexKeys: s.IndexKeys, index: s.Index,
		values: s.ListIndexFuncValues, names: names(s),
	}
}

// solePair drives client-go and kcache with the same calls and compares.
type solePair struct {
	t      *testing.T
	cfg    soleConfig
	cg, kc *soleSide
	epoch  int
	byPtr  storePodNames
	objs   []*corev1.Pod
	keys   []string // probe keys for Get
	pairSteps
	// panics counts the operations that panicked on both sides.
	panics int
	// every is how often (in steps) the whole state is compared; 1 = always.
	every int
}

func newSolePair(t *testing.T, c soleConfig) *solePair {
	p := &solePair{t: t, cfg: c, byPtr: storePodNames{}, every: 1}
	p.cg, p.kc = newSoleSide(storeClientGo{}, c, &p.epoch), newSoleSide(storeKCache{}, c, &p.epoch)
	return p
}

// pod makes a new object known by a name of its own.
func (p *solePair) pod(ns, name string, labels map[string]string, node string) *corev1.Pod {
	o := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels}, Spec: corev1.PodSpec{NodeName: node}}
	p.byPtr[o] = fmt.Sprintf("o%d", len(p.objs))
	p.objs = append(p.objs, o)
	return o
}

// of names obj by identity.
func (p *solePair) of(obj any) string { return p.byPtr.of(obj) }

// objList names the objects of list, sorted.
func (p *solePair) objList(list []any) string { return p.byPtr.list(list) }

// render describes everything a reader can see of s.
func (p *solePair) render(s *soleSide) string {
	var b strings.Builder
	fmt.Fprintf(&b, "keys=%s\nlist=%s\n", storeSortedQuoted(s.listKeys()), p.objList(s.list()))
	for _, k := range p.keys {
		obj, ok := s.get(k)
		fmt.Fprintf(&b, "get(%q)=%s,%v\n", k, p.of(obj), ok)
	}
	names := s.names()
	fmt.Fprintf(&b, "indexers=%q\n", names)
	all := sets.New(names...).Insert(p.cfg.later...)
	for name := range p.cfg.indices {
		all.Insert(name)
	}
	for _, name := range append(sets.List(all), "nosuch") {
		probes := []any{nil}
		if n := len(p.objs); n > 0 {
			probes = append(probes, p.objs[n-1], p.objs[n/2])
		}
		storeRenderIndex(&b, name, p.objList, probes, s.values, s.indexKeys, s.byIndex, s.index)
	}
	return b.String()
}

// do runs op on both stores, compares the panics and then the whole state.
func (p *solePair) do(desc string, op func(s *soleSide)) bool {
	p.t.Helper()
	p.next(desc)
	a := storeCatchPanic(func() { op(p.cg) })
	b := storeCatchPanic(func() { op(p.kc) })
	if a != "" {
		p.panics++
	}
	if !p.samePanics(p.t, 25, desc, a, b) {
		return false
	}
	if p.step%p.every != 0 {
		return true
	}
	return p.compare(desc)
}

// compare renders both stores and reports a difference.
func (p *solePair) compare(desc string) bool {
	p.t.Helper()
	return p.sameState(p.t, 25, desc, p.render(p.cg), p.render(p.kc))
}

// keyOf is the storage key of obj in an Indexer side.
func soleKeyOf(o *corev1.Pod) string {
	if o.Namespace == "" {
		return o.Name
	}
	return o.Namespace + "/" + o.Name
}
