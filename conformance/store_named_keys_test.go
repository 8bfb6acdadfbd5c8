package conformance

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	kc "github.com/kcache-go/cache"
	"go.uber.org/goleak"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	cg "k8s.io/client-go/tools/cache"
)

// namedStore is the part of Indexer both libraries' stores answer the same way.
type namedStore interface {
	Add(any) error
	Update(any) error
	Delete(any) error
	Get(any) (any, bool, error)
	GetByKey(string) (any, bool, error)
	ListKeys() []string
	List() []any
	Replace([]any, string) error
	ByIndex(string, string) ([]any, error)
	IndexKeys(string, string) ([]string, error)
	ListIndexFuncValues(string) []string
	LastStoreSyncResourceVersion() string
	Index(string, any) ([]any, error)
}

type cgNamed struct{ cg.Indexer }
type kcNamed struct{ kc.Indexer }

// namedPod returns a pod with namespace ns, name n and resource version rv.
func namedPod(ns, n, rv string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: n, ResourceVersion: rv}}
}

// namedObjects returns objects of every kind a key function meets.
func namedObjects() []any {
	long300 := strings.Repeat("x", 300)
	long5k := strings.Repeat("y", 5000)
	u := &unstructured.Unstructured{}
	u.SetNamespace("uns")
	u.SetName("u1")
	uc := &unstructured.Unstructured{}
	uc.SetName("ucluster")
	p := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "pns", Name: "p1"}}
	return []any{
		namedPod("ns", "a", "1"), namedPod("", "cluster", "2"), namedPod("ns", "", "3"), namedPod("", "", "4"),
		namedPod("a/b", "c/d", "5"), namedPod("ns", long300, "6"), namedPod(long300, long5k, "7"),
		namedPod("名前空間", "ポッド", "8"), namedPod("ns", strings.Repeat("z", 127), "9"),
		namedPod(strings.Repeat("q", 64), strings.Repeat("r", 63), "10"),
		u, uc, p,
	}
}

// namedView renders everything a store tells about itself.
func namedView(s namedStore, probes []any, keys []string) string {
	var b strings.Builder
	lk := s.ListKeys()
	sort.Strings(lk)
	fmt.Fprintf(&b, "keys=%q\n", lk)
	fmt.Fprintf(&b, "len(List)=%d rv=%q\n", len(s.List()), s.LastStoreSyncResourceVersion())
	for _, p := range probes {
		item, ok, err := s.Get(p)
		fmt.Fprintf(&b, "Get(%T)=%s,%v,%v\n", p, namedItem(item), ok, err)
	}
	for _, p := range probes {
		items, err := s.Index("namespace", p)
		var names []string
		for _, it := range items {
			names = append(names, namedItem(it))
		}
		sort.Strings(names)
		fmt.Fprintf(&b, "Index(%s)=%q,%v\n", namedItem(p), names, err)
	}
	for _, k := range append(keys, lk...) {
		item, ok, err := s.GetByKey(k)
		fmt.Fprintf(&b, "GetByKey(%q)=%s,%v,%v\n", k, namedItem(item), ok, err)
	}
	vals := s.ListIndexFuncValues("namespace")
	sort.Strings(vals)
	fmt.Fprintf(&b, "values=%q\n", vals)
	for _, v := range vals {
		ik, err := s.IndexKeys("namespace", v)
		sort.Strings(ik)
		items, err2 := s.ByIndex("namespace", v)
		var names []string
		for _, it := range items {
			names = append(names, namedItem(it))
		}
		sort.Strings(names)
		fmt.Fprintf(&b, "ns %q: %q %v %q %v\n", v, ik, err, names, err2)
	}
	return b.String()
}

// namedItem names an item by its metadata (mutations show).
func namedItem(item any) string {
	if item == nil {
		return "<nil>"
	}
	if m, ok := item.(metav1.Object); ok {
		return fmt.Sprintf("%T{%s/%s@%s}", item, m.GetNamespace(), m.GetName(), m.GetResourceVersion())
	}
	return fmt.Sprintf("%T%+v", item, item)
}

// namedCall runs f, rendering its error or panic.
func namedCall(f func() error) (out string) {
	defer func() {
		if r := recover(); r != nil {
			out = fmt.Sprintf("panic: %v", r)
		}
	}()
	return fmt.Sprintf("err=%v", f())
}

// namedVariant is how a pair of indexers is built.
type namedVariant struct {
	name string
	// build returns client-go's and kcache's indexer.
	build func() (namedStore, namedStore)
}

// namedIdentity is a transformer that changes nothing.
func namedIdentity(obj any) (any, error) { return obj, nil }

// namedVariants are the recognised key functions, wrappers of them, a
// transformer (which turns the fast path off) and indexes added late.
func namedVariants() []namedVariant {
	pair := func(cgKey cg.KeyFunc, kcKey kc.KeyFunc, late bool, cgOpts []cg.StoreOption, kcOpts []kc.StoreOption) func() (namedStore, namedStore) {
		return func() (namedStore, namedStore) {
			cgIx, kcIx := cg.Indexers{"namespace": cg.MetaNamespaceIndexFunc}, kc.Indexers{"namespace": kc.MetaNamespaceIndexFunc}
			if late {
				cgIx, kcIx = cg.Indexers{}, kc.Indexers{}
			}
			c := cg.NewIndexer(cgKey, cgIx, cgOpts...)
			k := kc.NewIndexer(kcKey, kcIx, kcOpts...)
			if late {
				return &namedLate{cgNamed{c}, func() error { return c.AddIndexers(cg.Indexers{"namespace": cg.MetaNamespaceIndexFunc}) }, false},
					&namedLate{kcNamed{k}, func() error { return k.AddIndexers(kc.Indexers{"namespace": kc.MetaNamespaceIndexFunc}) }, false}
			}
			return cgNamed{c}, kcNamed{k}
		}
	}
	wrapCG := func(o any) (string, error) { return cg.MetaNamespaceKeyFunc(o) }
	wrapKC := func(o any) (string, error) { return kc.MetaNamespaceKeyFunc(o) }
	return []namedVariant{
		{"MetaNamespaceKeyFunc", pair(cg.MetaNamespaceKeyFunc, kc.MetaNamespaceKeyFunc, false, nil, nil)},
		{"DeletionHandlingMetaNamespaceKeyFunc", pair(cg.DeletionHandlingMetaNamespaceKeyFunc, kc.DeletionHandlingMetaNamespaceKeyFunc, false, nil, nil)},
		{"wrapped MetaNamespaceKeyFunc", pair(wrapCG, wrapKC, false, nil, nil)},
		{"MetaNamespaceKeyFunc with transformer", pair(cg.MetaNamespaceKeyFunc, kc.MetaNamespaceKeyFunc, false,
			[]cg.StoreOption{cg.WithTransformer(namedIdentity)}, []kc.StoreOption{kc.WithTransformer(namedIdentity)})},
		{"DeletionHandlingMetaNamespaceKeyFunc, index added after objects", pair(cg.DeletionHandlingMetaNamespaceKeyFunc, kc.DeletionHandlingMetaNamespaceKeyFunc, true, nil, nil)},
	}
}

// namedScript is one sequence of calls, given each side's tombstone maker.
type namedScript func(s namedStore, tomb func(key string, obj any) any, explicit func(string) any) []string

func runNamedScript(t *testing.T, script namedScript) {
	for _, v := range namedVariants() {
		dh := v.name
		c, k := v.build()
		cgTomb := func(key string, obj any) any { return cg.DeletedFinalStateUnknown{Key: key, Obj: obj} }
		kcTomb := func(key string, obj any) any { return kc.DeletedFinalStateUnknown{Key: key, Obj: obj} }
		cgX := func(k string) any { return cg.ExplicitKey(k) }
		kcX := func(k string) any { return kc.ExplicitKey(k) }
		want := script(c, cgTomb, cgX)
		got := script(k, kcTomb, kcX)
		// client-go's tombstone reaching kcache (as a clientgo view would pass it).
		c2, k2 := v.build()
		want2 := script(c2, cgTomb, cgX)
		got2 := script(k2, cgTomb, kcX)
		for i := range want {
			if i >= len(got) || want[i] != got[i] {
				t.Errorf("variant %s step %d:\nclient-go:\n%s\nkcache:\n%s", dh, i, want[i], got[i])
				break
			}
		}
		for i := range want2 {
			if i >= len(got2) || want2[i] != got2[i] {
				t.Errorf("variant %s (client-go tombstone) step %d:\nclient-go:\n%s\nkcache:\n%s", dh, i, want2[i], got2[i])
				break
			}
		}
	}
}

func TestStoresWithRecognisedKeyFunctionsAnswerEveryObjectKindAsClientGo(t *testing.T) {
	runNamedScript(t, func(s namedStore, tomb func(string, any) any, explicit func(string) any) []string {
		var out []string
		objs := namedObjects()
		var nilPod *v1.Pod
		var nilU *unstructured.Unstructured
		bad := []any{nil, 5, "str", nilPod, nilU, explicit("cgx"), explicit("ns/a"), tomb("ns/a", objs[0]), tomb("gone", nil), struct{}{}}
		all := append(append([]any{}, objs...), bad...)
		for _, o := range all {
			out = append(out, fmt.Sprintf("Add(%T) %s", o, namedCall(func() error { return s.Add(o) })))
			out = append(out, namedView(s, objs, nil))
		}
		for _, o := range all {
			out = append(out, fmt.Sprintf("Update(%T) %s", o, namedCall(func() error { return s.Update(o) })))
		}
		out = append(out, namedView(s, objs, nil))
		for i, o := range all {
			if i%2 == 0 {
				out = append(out, fmt.Sprintf("Delete(%T) %s", o, namedCall(func() error { return s.Delete(o) })))
				out = append(out, namedView(s, objs, nil))
			}
		}
		for _, o := range all {
			out = append(out, fmt.Sprintf("Get(%T) %s", o, namedCall(func() error { _, _, err := s.Get(o); return err })))
		}
		return out
	})
}

func TestStoresWithRecognisedKeyFunctionsFollowClientGoAfterInPlaceMutation(t *testing.T) {
	runNamedScript(t, func(s namedStore, tomb func(string, any) any, explicit func(string) any) []string {
		var out []string
		a, b, c := namedPod("ns1", "a", "1"), namedPod("ns1", "b", "2"), namedPod("", "c", "3")
		probe := []any{a, b, c}
		keys := []string{"ns1/a", "ns2/a", "ns1/b", "ns1/b2", "c", "ns3/c"}
		step := func(what string, f func() error) {
			out = append(out, what+" "+namedCall(f)+"\n"+namedView(s, probe, keys))
		}
		step("add a", func() error { return s.Add(a) })
		step("add b", func() error { return s.Add(b) })
		step("add c", func() error { return s.Add(c) })
		a.Namespace = "ns2"
		step("get a moved", func() error { _, _, err := s.Get(a); return err })
		step("update a moved", func() error { return s.Update(a) })
		b.Name = "b2"
		step("delete b renamed", func() error { return s.Delete(b) })
		step("update b renamed", func() error { return s.Update(b) })
		c.Namespace = "ns3"
		step("delete c by tombstone", func() error { return s.Delete(tomb("c", c)) })
		step("update c", func() error { return s.Update(c) })
		a.Namespace = "ns1"
		step("delete a back", func() error { return s.Delete(a) })
		step("delete a key", func() error { return s.Delete(explicit("ns2/a")) })
		step("replace", func() error { return s.Replace([]any{a, c, namedPod("ns9", "z", "9")}, "10") })
		a.Name = "aa"
		step("get a renamed", func() error { _, _, err := s.Get(a); return err })
		step("add a renamed", func() error { return s.Add(a) })
		step("delete all", func() error {
			list := s.List()
			sort.Slice(list, func(i, j int) bool { return namedItem(list[i]) < namedItem(list[j]) })
			for _, o := range list {
				if err := s.Delete(o); err != nil {
					return err
				}
			}
			return nil
		})
		return out
	})
}

// TestKeysReturnedByARecognisedKeyStoreNeverChange keeps every key the
// store returned across many add/delete/replace cycles and requires each to
// still read as it did.
func TestKeysReturnedByARecognisedKeyStoreNeverChange(t *testing.T) {
	s := kc.NewIndexer(kc.MetaNamespaceKeyFunc, kc.Indexers{"namespace": kc.MetaNamespaceIndexFunc})
	type kept struct{ got, want string }
	var all []kept
	keep := func(keys []string) {
		for _, k := range keys {
			all = append(all, kept{k, strings.Clone(k)})
		}
	}
	for round := 0; round < 40; round++ {
		for i := 0; i < 300; i++ {
			ns := fmt.Sprintf("ns%d", (i+round)%7)
			if err := s.Add(namedPod(ns, fmt.Sprintf("pod-%d-%d", round, i), "1")); err != nil {
				t.Fatal(err)
			}
		}
		keep(s.ListKeys())
		for _, v := range s.ListIndexFuncValues("namespace") {
			ik, _ := s.IndexKeys("namespace", v)
			keep(ik)
			keep([]string{v})
		}
		for _, o := range s.List() {
			if m := o.(*v1.Pod); len(m.Name)%2 == 0 {
				_ = s.Delete(o)
			}
		}
		keep(s.ListKeys())
		if round%5 == 4 {
			_ = s.Replace([]any{namedPod("r", fmt.Sprint(round), "2")}, "3")
		}
	}
	for _, k := range all {
		if k.got != k.want {
			t.Fatalf("key changed: was %q, now %q", k.want, k.got)
		}
	}
}

// TestRecognisedKeyStoresServeReadersDuringWritesWithoutRaces runs readers
// and writers at once (under -race).
func TestRecognisedKeyStoresServeReadersDuringWritesWithoutRaces(t *testing.T) {
	defer goleak.VerifyNone(t)
	s := kc.NewIndexer(kc.DeletionHandlingMetaNamespaceKeyFunc, kc.Indexers{"namespace": kc.MetaNamespaceIndexFunc})
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				p := namedPod(fmt.Sprintf("ns%d", i%5), fmt.Sprintf("p%d-%d", w, i%50), fmt.Sprint(i))
				_ = s.Update(p)
				if i%3 == 0 {
					_ = s.Delete(p)
				}
				if w == 0 && i%500 == 499 {
					_ = s.Replace([]any{namedPod("ns1", "p0-1", "r")}, "r")
				}
			}
		}(w)
	}
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				_, _, _ = s.Get(namedPod("ns1", "p0-1", ""))
				_ = s.List()
				for _, k := range s.ListKeys() {
					if !strings.HasPrefix(k, "ns") {
						t.Errorf("bad key %q", k)
					}
				}
				_, _ = s.ByIndex("namespace", "ns2")
			}
		}()
	}
	wg.Wait()
}

// namedLate is a store whose namespace index is added (once) on the first
// read of an index, after objects were stored.
type namedLate struct {
	namedStore
	add   func() error
	added bool
}

func (l *namedLate) ensure() {
	if !l.added {
		l.added = true
		_ = l.add()
	}
}
func (l *namedLate) ListIndexFuncValues(n string) []string {
	l.ensure()
	return l.namedStore.ListIndexFuncValues(n)
}

// TestStoresWithoutAKeyFunctionPanicAsClientGoDoes calls every keyed
// method of stores built with a nil KeyFunc on both sides.
func TestStoresWithoutAKeyFunctionPanicAsClientGoDoes(t *testing.T) {
	c := cg.NewIndexer(nil, cg.Indexers{"namespace": cg.MetaNamespaceIndexFunc})
	k := kc.NewIndexer(nil, kc.Indexers{"namespace": kc.MetaNamespaceIndexFunc})
	p := namedPod("ns", "a", "1")
	calls := []struct {
		name   string
		cg, kc func() error
	}{
		{"Add", func() error { return c.Add(p) }, func() error { return k.Add(p) }},
		{"Update", func() error { return c.Update(p) }, func() error { return k.Update(p) }},
		{"Delete", func() error { return c.Delete(p) }, func() error { return k.Delete(p) }},
		{"Get", func() error { _, _, err := c.Get(p); return err }, func() error { _, _, err := k.Get(p); return err }},
		{"Replace", func() error { return c.Replace([]any{p}, "2") }, func() error { return k.Replace([]any{p}, "2") }},
	}
	for _, call := range calls {
		if want, got := namedCall(call.cg), namedCall(call.kc); want != got {
			t.Errorf("%s: client-go %s, kcache %s", call.name, want, got)
		}
	}
}

// TestANamespaceIndexMeetingObjectsWithoutMetadataPanicsAsClientGoDoes
// writes objects with and without metadata under one key of thread-safe
// stores indexed by MetaNamespaceIndexFunc and compares each panic and the
// state it leaves.
func TestANamespaceIndexMeetingObjectsWithoutMetadataPanicsAsClientGoDoes(t *testing.T) {
	c := cg.NewThreadSafeStore(cg.Indexers{"namespace": cg.MetaNamespaceIndexFunc}, cg.Indices{})
	k := kc.NewThreadSafeStore(kc.Indexers{"namespace": kc.MetaNamespaceIndexFunc}, kc.Indices{})
	var nilPod *v1.Pod
	steps := []struct {
		key string
		obj any
		del bool
	}{
		{"k", namedPod("ns", "a", "1"), false}, {"k", 5, false}, {"k", namedPod("ns2", "a", "2"), false},
		{"j", "str", false}, {"j", nil, false}, {"j", namedPod("", "b", "3"), false}, {"j", nil, true},
		{"k", nilPod, false}, {"k", nil, true}, {"m", namedPod("ns", "m", "4"), false}, {"m", nil, true},
	}
	view := func(s interface {
		ListKeys() []string
		ListIndexFuncValues(string) []string
		IndexKeys(string, string) ([]string, error)
	}) string {
		lk := s.ListKeys()
		sort.Strings(lk)
		vals := s.ListIndexFuncValues("namespace")
		sort.Strings(vals)
		out := fmt.Sprintf("keys=%q values=%q", lk, vals)
		for _, v := range vals {
			ik, err := s.IndexKeys("namespace", v)
			sort.Strings(ik)
			out += fmt.Sprintf(" %q:%q,%v", v, ik, err)
		}
		return out
	}
	for i, st := range steps {
		var want, got string
		if st.del {
			want, got = namedCall(func() error { c.Delete(st.key); return nil }), namedCall(func() error { k.Delete(st.key); return nil })
		} else {
			want, got = namedCall(func() error { c.Update(st.key, st.obj); return nil }), namedCall(func() error { k.Update(st.key, st.obj); return nil })
		}
		want, got = want+" "+view(c), got+" "+view(k)
		if want != got {
			t.Errorf("step %d (%s %v):\nclient-go %s\nkcache    %s", i, st.key, st.obj, want, got)
		}
	}
}
