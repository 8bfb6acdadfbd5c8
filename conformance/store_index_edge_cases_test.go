package conformance

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// layoutStore is the part of a ThreadSafeStore the edge-case tests drive,
// with index functions given by catalog name so both libraries get the same
// ones.
type layoutStore interface {
	Add(key string, obj any)
	Update(key string, obj any)
	Delete(key string)
	Replace(items map[string]any, rv string)
	AddIndexers(names []string) error
	Get(key string) (any, bool)
	List() []any
	ListKeys() []string
	ByIndex(name, value string) ([]any, error)
	IndexKeys(name, value string) ([]string, error)
	Index(name string, obj any) ([]any, error)
	ListIndexFuncValues(name string) []string
	IndexerNames() []string
	// Txn applies writes in one Transaction: a nil object deletes.
	Txn(keys []string, objs []any) string
}

// layoutTxn is one write of a Transaction.
type layoutTxn struct {
	key string
	obj any
}

// layoutIndexFunc returns the neutral index function called name:
//   - "multi": the comma-separated values of label "m" (none when absent);
//   - "single": label "s" as one value;
//   - "nilseen": "nil" for a nil object, else the object's name;
//   - "panicky": panics for an object with label "panic", else label "s".
func layoutIndexFunc(name string) func(obj any) ([]string, error) {
	labels := func(obj any) map[string]string {
		if p, ok := obj.(*corev1.Pod); ok && p != nil {
			return p.Labels
		}
		return nil
	}
	switch name {
	case "multi":
		return func(obj any) ([]string, error) {
			m, ok := labels(obj)["m"]
			if !ok {
				return nil, nil
			}
			return strings.Split(m, ","), nil
		}
	case "single", "single2", "preloaded-only":
		return func(obj any) ([]string, error) { return []string{labels(obj)["s"]}, nil }
	case "nilseen":
		return func(obj any) ([]string, error) {
			if obj == nil {
				return []string{"nil"}, nil
			}
			if p, ok := obj.(*corev1.Pod); ok && p != nil {
				return []string{p.Name}, nil
			}
			return []string{"other"}, nil
		}
	case "erring":
		return func(obj any) ([]string, error) {
			if _, ok := labels(obj)["err"]; ok {
				return nil, fmt.Errorf("index function fails on purpose")
			}
			return []string{labels(obj)["s"]}, nil
		}
	case "panicky":
		return func(obj any) ([]string, error) {
			if _, ok := labels(obj)["panic"]; ok {
				panic("index function panics on purpose")
			}
			return []string{labels(obj)["s"]}, nil
		}
	}
	panic("unknown layout index " + name)
}

// layoutSide is either library's ThreadSafeStore as a layoutStore, with
// the "namespace" index the library's own MetaNamespaceIndexFunc.
type layoutSide struct {
	storeThreadSafe
	lib storeLib
}

// newLayoutSide builds lib's ThreadSafeStore with the named indexers and
// the given initial indices.
func newLayoutSide(lib storeLib, names []string, indices map[string]map[string][]string) *layoutSide {
	l := &layoutSide{lib: lib}
	row := storeRow{Kind: "threadSafeStore", Indexers: names, Indices: indices}
	l.storeThreadSafe = lib.build(row, storeBuild{indexers: l.indexers}).(storeThreadSafe)
	return l
}

// indexers gives the catalog functions of names (never nil).
func (l *layoutSide) indexers(names []string) storeIndexFuncs {
	ix := storeIndexFuncs{}
	for _, n := range names {
		if n == "namespace" {
			ix[n] = l.lib.metaNamespaceIndexFunc
			continue
		}
		ix[n] = layoutIndexFunc(n)
	}
	return ix
}

func (l *layoutSide) AddIndexers(names []string) error {
	return l.lib.addIndexers(l.storeThreadSafe, l.indexers(names))
}

func (l *layoutSide) IndexerNames() []string { return layoutIndexerNames(l.lib, l.storeThreadSafe) }

// Txn applies the writes as one Transaction: Update, or Delete for a nil
// object.
func (l *layoutSide) Txn(keys []string, objs []any) string {
	txns := make([]storeTxn, len(keys))
	for i, k := range keys {
		txns[i] = storeTxn{Type: "Update", Obj: objs[i], Key: k}
		if objs[i] == nil {
			txns[i].Type = "Delete"
		}
	}
	if !l.lib.transactThreadSafe(l.storeThreadSafe, txns, func(obj any) any { return obj }) {
		return "no Transaction"
	}
	return ""
}

// layoutIndexerNames lists the indexers of subject, sorted.
func layoutIndexerNames(lib storeLib, subject any) []string {
	names, _ := lib.indexerNames(subject)
	sort.Strings(names)
	return names
}

// layoutNames labels objects by identity so two stores holding the same
// pointers render the same.
type layoutNames struct {
	byPtr storePodNames
	// itemsOnly leaves the indices out of render (their content after a
	// panic depends on client-go's map order).
	itemsOnly bool
}

// of names obj by identity.
func (n *layoutNames) of(obj any) string { return n.byPtr.of(obj) }

// objs names the objects of list, sorted.
func (n *layoutNames) objs(list []any) string { return n.byPtr.list(list) }

// render describes everything a reader can see of s; probeKeys are looked up
// with Get, probeObjs are given to Index.
func (n *layoutNames) render(s layoutStore, probeKeys []string, probeObjs []any) string {
	var b strings.Builder
	fmt.Fprintf(&b, "keys=%s\nlist=%s\n", storeSortedQuoted(s.ListKeys()), n.objs(s.List()))
	for _, k := range probeKeys {
		obj, ok := s.Get(k)
		fmt.Fprintf(&b, "get(%q)=%s,%v\n", k, n.of(obj), ok)
	}
	names := s.IndexerNames()
	fmt.Fprintf(&b, "indexers=%q\n", names)
	if n.itemsOnly {
		return b.String()
	}
	for _, name := range append(names, "preloaded-only", "nosuch") {
		storeRenderIndex(&b, name, n.objs, probeObjs, s.ListIndexFuncValues, s.IndexKeys, s.ByIndex, s.Index)
	}
	return b.String()
}

// storeRenderIndex writes to b what a reader sees of index name: its sorted
// values, each value's (and "absent"'s) keys and objects, and Index of each
// probe (with its panic, if any); objs names a list of objects.
func storeRenderIndex(b *strings.Builder, name string, objs func([]any) string, probes []any,
	values func(n string) []string, indexKeys func(n, v string) ([]string, error),
	byIndex func(n, v string) ([]any, error), index func(n string, obj any) ([]any, error)) {
	vs := values(name)
	sort.Strings(vs)
	fmt.Fprintf(b, "values(%s)=%s\n", name, storeSortedQuoted(vs))
	for _, v := range append(vs, "absent") {
		keys, kerr := indexKeys(name, v)
		list, lerr := byIndex(name, v)
		fmt.Fprintf(b, "  %s=%q: keys=%s err=%v objs=%s err=%v\n", name, v, storeSortedQuoted(keys), kerr, objs(list), lerr)
	}
	for i, o := range probes {
		var list []any
		var err error
		p := storeCatchPanic(func() { list, err = index(name, o) })
		fmt.Fprintf(b, "  index(%s,#%d)=%s err=%v %s\n", name, i, objs(list), err, p)
	}
}

// layoutPair drives client-go and kcache with the same calls.
type layoutPair struct {
	t      *testing.T
	cg, kc layoutStore
	names  layoutNames
	probe  []string
	objs   []any
	pairSteps
	// panics counts the operations that panicked on both sides.
	panics int
}

func newLayoutPair(t *testing.T, indexers []string, indices map[string]map[string][]string) *layoutPair {
	return &layoutPair{t: t, cg: newLayoutSide(storeClientGo{}, indexers, indices), kc: newLayoutSide(storeKCache{}, indexers, indices),
		names: layoutNames{byPtr: storePodNames{}}}
}

// pod makes a new object known by label.
func (p *layoutPair) pod(label, ns, name string, labels map[string]string) *corev1.Pod {
	o := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels}}
	p.names.byPtr[o] = label
	p.objs = append(p.objs, o)
	return o
}

// do runs op on both stores and compares the op's panic and then the whole
// visible state.
func (p *layoutPair) do(desc string, op func(s layoutStore) string) bool {
	p.t.Helper()
	p.next(desc)
	var ra, rb string
	a := storeCatchPanic(func() { ra = op(p.cg) })
	b := storeCatchPanic(func() { rb = op(p.kc) })
	a, b = a+ra, b+rb
	if strings.HasPrefix(a, "panic") {
		p.panics++
	}
	if !p.samePanics(p.t, 30, desc, a, b) {
		return false
	}
	ra = p.names.render(p.cg, p.probe, p.probeObjs())
	rb = p.names.render(p.kc, p.probe, p.probeObjs())
	return p.sameState(p.t, 30, desc, ra, rb)
}

func (p *layoutPair) probeObjs() []any {
	if len(p.objs) > 6 {
		return append([]any{nil}, p.objs[len(p.objs)-6:]...)
	}
	return append([]any{nil}, p.objs...)
}

// layoutDiff lists the lines of a (client-go) and b (kcache) that differ.
func layoutDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	as, bs := sets.New(al...), sets.New(bl...)
	var out []string
	for _, l := range al {
		if !bs.Has(l) {
			out = append(out, "client-go: "+l)
		}
	}
	for _, l := range bl {
		if !as.Has(l) {
			out = append(out, "kcache:    "+l)
		}
	}
	if len(out) == 0 {
		return "client-go:\n" + a + "\nkcache:\n" + b
	}
	return strings.Join(out, "\n")
}

func TestAnUpdateAfterAnInPlaceMutationToTheSameSingleValueIndexesTheKeyUnderItAsClientGoDoes(t *testing.T) {
	for _, index := range []string{"single", "namespace"} {
		t.Run(index, func(t *testing.T) {
			p := newLayoutPair(t, []string{index}, nil)
			p.probe = []string{"k"}
			o := p.pod("o1", "a", "n", map[string]string{"s": "a"})
			p.do("add k o1", func(s layoutStore) string { s.Add("k", o); return "" })
			o.Labels["s"], o.Namespace = "b", "b"
			p.do("mutate o1 to b in place; update k o1", func(s layoutStore) string { s.Update("k", o); return "" })
			o2 := p.pod("o2", "b", "n", map[string]string{"s": "b"})
			p.do("update k o2 (value b)", func(s layoutStore) string { s.Update("k", o2); return "" })
			p.do("delete k", func(s layoutStore) string { s.Delete("k"); return "" })
			p.do("add k o2", func(s layoutStore) string { s.Add("k", o2); return "" })
		})
	}
}

// layoutPreloadRun runs the same writes after a preloaded construction.
func layoutPreloadRun(t *testing.T, indexers []string, indices map[string]map[string][]string) {
	p := newLayoutPair(t, indexers, indices)
	p.probe = []string{"k", "x", "ghost", ""}
	p.do("new", func(s layoutStore) string { return "" })
	o := p.pod("o1", "a", "n", map[string]string{"s": "a", "m": "a,c"})
	p.do("add k o1", func(s layoutStore) string { s.Add("k", o); return "" })
	p.do("add ghost o1", func(s layoutStore) string { s.Add("ghost", o); return "" })
	p.do("delete ghost", func(s layoutStore) string { s.Delete("ghost"); return "" })
	p.do("addIndexers preloaded-only", func(s layoutStore) string {
		return fmt.Sprint(s.AddIndexers([]string{"preloaded-only"}))
	})
	p.do("delete k", func(s layoutStore) string { s.Delete("k"); return "" })
	p.do("add x o1", func(s layoutStore) string { s.Add("x", o); return "" })
	p.do("add \"\" o1", func(s layoutStore) string { s.Add("", o); return "" })
	p.do("replace {k: o1}", func(s layoutStore) string { s.Replace(map[string]any{"k": o}, "1"); return "" })
}

func TestPreloadedKeysNotStoredReadAsNilAndAreAdoptedAsInClientGo(t *testing.T) {
	rows := []struct {
		name     string
		indexers []string
		indices  map[string]map[string][]string
	}{
		{"a key preloaded under the value it will get", []string{"single"}, map[string]map[string][]string{"single": {"a": {"k"}, "z": {"ghost"}}}},
		{"a multi-value index", []string{"multi"}, map[string]map[string][]string{"multi": {"a": {"k", "ghost"}, "b": {"ghost"}}}},
		{"the empty key and a key in two values", []string{"single"}, map[string]map[string][]string{"single": {"a": {"", "k"}, "b": {"k", "x"}}}},
		{"two indices sharing keys", []string{"multi", "single"}, map[string]map[string][]string{"multi": {"a": {"k", "ghost"}}, "single": {"q": {"ghost", "x"}}}},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) { layoutPreloadRun(t, row.indexers, row.indices) })
	}
}

// Defect: index.go storeIndices.load skips names with no registered
// IndexFunc; client-go keeps that content, lists it and AddIndexers merges
// the objects into it.
func TestIndicesGivenForAnIndexNotRegisteredYetAreListedAndKeptByAddIndexersAsInClientGo(t *testing.T) {
	layoutPreloadRun(t, []string{"single"}, map[string]map[string][]string{"preloaded-only": {"v": {"k", "x"}}})
}

// Defect: index.go storeIndices.load adds nothing for a value whose key set
// is empty; client-go lists that value in ListIndexFuncValues.
func TestAnEmptyKeySetInTheGivenIndicesIsListedAsAValueAsInClientGo(t *testing.T) {
	layoutPreloadRun(t, []string{"single"}, map[string]map[string][]string{"single": {"v": {}, "w": {"k"}}})
}

func TestANilObjectAndRepeatedValuesAreIndexedAsClientGoIndexesThem(t *testing.T) {
	p := newLayoutPair(t, []string{"nilseen", "multi"}, nil)
	p.probe = []string{"k", ""}
	p.do("add k nil", func(s layoutStore) string { s.Add("k", nil); return "" })
	p.do("add \"\" nil", func(s layoutStore) string { s.Add("", nil); return "" })
	o := p.pod("o1", "a", "n", map[string]string{"m": "a,a,b,a"})
	p.do("update k o1", func(s layoutStore) string { s.Update("k", o); return "" })
	p.do("update \"\" o1", func(s layoutStore) string { s.Update("", o); return "" })
	o.Labels["m"] = "b,b"
	p.do("update k o1 mutated", func(s layoutStore) string { s.Update("k", o); return "" })
	p.do("update k nil", func(s layoutStore) string { s.Update("k", nil); return "" })
	p.do("delete k", func(s layoutStore) string { s.Delete("k"); return "" })
	p.do("delete \"\"", func(s layoutStore) string { s.Delete(""); return "" })
}

// layoutIndexerSide adapts either library's Indexer (a key-function store)
// to layoutStore: the key argument of writes is ignored, Delete deletes the
// object stored under key, and AddIndexers takes catalog names only.
type layoutIndexerSide struct {
	storeIndexer
	lib storeLib
}

// newLayoutIndexerSide builds lib's Indexer keyed by MetaNamespaceKeyFunc
// with the named catalog indexers and the library's own "namespace" index.
func newLayoutIndexerSide(lib storeLib, names []string) *layoutIndexerSide {
	indexers := func([]string) storeIndexFuncs {
		ix := storeIndexFuncs{"namespace": lib.metaNamespaceIndexFunc}
		for _, n := range names {
			ix[n] = layoutIndexFunc(n)
		}
		return ix
	}
	built := lib.build(storeRow{Kind: "indexer", KeyFunc: "MetaNamespaceKeyFunc"}, storeBuild{indexers: indexers})
	return &layoutIndexerSide{built.(storeIndexer), lib}
}

func (l *layoutIndexerSide) Add(_ string, obj any)    { _ = l.storeIndexer.Add(obj) }
func (l *layoutIndexerSide) Update(_ string, obj any) { _ = l.storeIndexer.Update(obj) }
func (l *layoutIndexerSide) Delete(key string) {
	if obj, ok, _ := l.GetByKey(key); ok {
		_ = l.storeIndexer.Delete(obj)
	}
}
func (l *layoutIndexerSide) Replace(items map[string]any, rv string) {
	list := []any{}
	for _, k := range sets.List(sets.KeySet(items)) {
		list = append(list, items[k])
	}
	_ = l.storeIndexer.Replace(list, rv)
}
func (l *layoutIndexerSide) AddIndexers(names []string) error {
	ix := storeIndexFuncs{}
	for _, n := range names {
		ix[n] = layoutIndexFunc(n)
	}
	return l.lib.addIndexers(l.storeIndexer, ix)
}
func (l *layoutIndexerSide) Get(key string) (any, bool) {
	obj, ok, _ := l.GetByKey(key)
	return obj, ok
}
func (l *layoutIndexerSide) IndexerNames() []string     { return layoutIndexerNames(l.lib, l.storeIndexer) }
func (l *layoutIndexerSide) Txn([]string, []any) string { return "" }

// layoutRandom drives p with n seeded random operations over keys.
type layoutRandom struct {
	p       *layoutPair
	rng     *rand.Rand
	keys    []string
	values  []string
	panics  bool
	keyFunc bool
	added   []string
}

func (r *layoutRandom) newPod() *corev1.Pod {
	labels := map[string]string{"s": r.values[r.rng.Intn(len(r.values))]}
	if r.rng.Intn(4) > 0 {
		var m []string
		for i := r.rng.Intn(4); i >= 0; i-- {
			m = append(m, r.values[r.rng.Intn(len(r.values))])
		}
		labels["m"] = strings.Join(m, ",")
	}
	if r.panics && r.rng.Intn(8) == 0 {
		labels["panic"] = "yes"
	}
	label := fmt.Sprintf("o%d", len(r.p.objs))
	name := r.keys[r.rng.Intn(len(r.keys))]
	return r.p.pod(label, []string{"ns1", "ns2", ""}[r.rng.Intn(3)], name, labels)
}

func (r *layoutRandom) anyPod() *corev1.Pod {
	if len(r.p.objs) == 0 || r.rng.Intn(3) == 0 {
		return r.newPod()
	}
	return r.p.objs[r.rng.Intn(len(r.p.objs))].(*corev1.Pod)
}

func (r *layoutRandom) key(obj *corev1.Pod) string {
	if r.keyFunc {
		if obj.Namespace == "" {
			return obj.Name
		}
		return obj.Namespace + "/" + obj.Name
	}
	return r.keys[r.rng.Intn(len(r.keys))]
}

// step performs one random operation and compares; false once they differ.
func (r *layoutRandom) step() bool {
	p := r.p
	switch c := r.rng.Intn(100); {
	case c < 40:
		o := r.anyPod()
		k := r.key(o)
		var obj any = o
		if !r.keyFunc && r.rng.Intn(15) == 0 {
			obj = nil
		}
		return p.do(fmt.Sprintf("update %q %s", k, p.names.of(obj)), func(s layoutStore) string { s.Update(k, obj); return "" })
	case c < 62:
		k := r.keys[r.rng.Intn(len(r.keys))]
		if r.keyFunc {
			k = "ns1/" + k
		}
		return p.do(fmt.Sprintf("delete %q", k), func(s layoutStore) string { s.Delete(k); return "" })
	case c < 80 && len(p.objs) > 0:
		o := p.objs[r.rng.Intn(len(p.objs))].(*corev1.Pod)
		desc := "mutate " + p.names.of(o) + " "
		switch r.rng.Intn(4) {
		case 0:
			o.Labels["s"] = r.values[r.rng.Intn(len(r.values))]
			desc += "s=" + o.Labels["s"]
		case 1:
			o.Labels["m"] = r.values[r.rng.Intn(len(r.values))] + "," + r.values[r.rng.Intn(len(r.values))]
			desc += "m=" + o.Labels["m"]
		case 2:
			o.Name = r.keys[r.rng.Intn(len(r.keys))]
			desc += "name=" + o.Name
		default:
			o.Namespace = []string{"ns1", "ns2", ""}[r.rng.Intn(3)]
			desc += "namespace=" + o.Namespace
		}
		if r.rng.Intn(2) == 0 && !r.keyFunc {
			delete(o.Labels, "panic")
		}
		return p.do(desc, func(s layoutStore) string { return "" })
	case c < 85:
		items := map[string]any{}
		for i := r.rng.Intn(len(r.keys)); i > 0; i-- {
			o := r.newPod()
			delete(o.Labels, "panic")
			items[r.key(o)] = o
		}
		return p.do(fmt.Sprintf("replace %d items", len(items)), func(s layoutStore) string { s.Replace(items, "9"); return "" })
	case c < 86:
		var keys []string
		var objs []any
		for i := r.rng.Intn(6); i >= 0; i-- {
			o := r.anyPod()
			keys = append(keys, r.key(o))
			if r.rng.Intn(3) == 0 {
				objs = append(objs, nil)
			} else {
				objs = append(objs, o)
			}
		}
		return p.do(fmt.Sprintf("transaction %q", keys), func(s layoutStore) string { return s.Txn(keys, objs) })
	case c < 88:
		names := [][]string{{"single2"}, {"nilseen"}, {"single2", "nilseen"}}[r.rng.Intn(3)]
		if r.panics {
			return true
		}
		return p.do(fmt.Sprintf("addIndexers %q", names), func(s layoutStore) string { return fmt.Sprint(s.AddIndexers(names)) })
	default:
		o := r.anyPod()
		k := r.key(o)
		return p.do(fmt.Sprintf("add %q %s", k, p.names.of(o)), func(s layoutStore) string { s.Add(k, o); return "" })
	}
}

func layoutKeys(n int) []string {
	keys := []string{""}
	for i := 0; i < n; i++ {
		keys = append(keys, fmt.Sprintf("k%d", i))
	}
	return keys
}

func TestLongRandomSequencesOfWritesAndInPlaceMutationsLeaveTheStoreClientGoLeaves(t *testing.T) {
	rows := []struct {
		name    string
		seeds   int
		steps   int
		keys    int
		values  []string
		indexer []string
		panics  bool
		items   bool
	}{
		{"few keys many values", 12, 400, 8, []string{"a", "b", "c", "d", "e"}, []string{"multi", "single", "namespace"}, false, false},
		{"key sets crossing 64", 3, 600, 90, []string{"a", "b"}, []string{"multi", "single"}, false, false},
		{"a panicking index alone", 12, 300, 8, []string{"a", "b", "c"}, []string{"panicky"}, true, false},
		{"a panicking index among others (items only)", 12, 300, 8, []string{"a", "b", "c"}, []string{"panicky", "multi", "namespace"}, true, true},
	}
	for _, row := range rows {
		for seed := 1; seed <= row.seeds; seed++ {
			t.Run(fmt.Sprintf("%s/seed %d", row.name, seed), func(t *testing.T) {
				p := newLayoutPair(t, row.indexer, nil)
				p.names.itemsOnly = row.items
				r := &layoutRandom{p: p, rng: rand.New(rand.NewSource(int64(seed))), keys: layoutKeys(row.keys), values: row.values, panics: row.panics}
				p.probe = r.keys
				for i := 0; i < row.steps && r.step(); i++ {
				}
				if row.panics && p.panics == 0 {
					t.Error("no operation panicked: the test did not reach its panic")
				}
				t.Logf("%d steps, %d panics", p.step, p.panics)
			})
		}
	}
}

func TestLongRandomSequencesOnAKeyFunctionIndexerLeaveTheIndexerClientGoLeaves(t *testing.T) {
	for seed := 1; seed <= 12; seed++ {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			ix := []string{"multi", "single"}
			p := newLayoutPair(t, nil, nil)
			p.cg, p.kc = newLayoutIndexerSide(storeClientGo{}, ix), newLayoutIndexerSide(storeKCache{}, ix)
			r := &layoutRandom{p: p, rng: rand.New(rand.NewSource(int64(seed))), keys: layoutKeys(6), values: []string{"a", "b", "c"}, keyFunc: true}
			for _, k := range r.keys {
				p.probe = append(p.probe, k, "ns1/"+k, "ns2/"+k)
			}
			for i := 0; i < 400 && r.step(); i++ {
			}
		})
	}
}

func TestChunkBoundariesFreeListReuseAndKeyTableGrowthGiveClientGoResults(t *testing.T) {
	for _, n := range []int{1023, 1024, 1025, 2049} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			p := newLayoutPair(t, []string{"single", "multi"}, nil)
			p.probe = []string{"", "k0", fmt.Sprintf("k%d", n-1), fmt.Sprintf("k%d", n), "r0"}
			pods := make([]*corev1.Pod, n+1)
			for i := range pods {
				pods[i] = p.pod(fmt.Sprintf("o%d", i), "ns", fmt.Sprint(i), map[string]string{"s": fmt.Sprint(i % 3), "m": fmt.Sprintf("%d,%d", i%70, i%2)})
			}
			p.do(fmt.Sprintf("add k0..k%d", n-1), func(s layoutStore) string {
				for i := 0; i < n; i++ {
					s.Add(fmt.Sprintf("k%d", i), pods[i])
				}
				return ""
			})
			p.do("add k<n> then \"\"", func(s layoutStore) string {
				s.Add(fmt.Sprintf("k%d", n), pods[n])
				s.Add("", pods[0])
				return ""
			})
			// In-place mutation of every 5th, then delete every other: the
			// mutated ones stay detached under their old values.
			for i := 0; i < n; i += 5 {
				pods[i].Labels["s"] = "moved"
			}
			p.do("delete every even key", func(s layoutStore) string {
				for i := 0; i < n; i += 2 {
					s.Delete(fmt.Sprintf("k%d", i))
				}
				return ""
			})
			p.do("refill with r keys (free list reuse)", func(s layoutStore) string {
				for i := 0; i < n; i += 2 {
					s.Add(fmt.Sprintf("r%d", i), pods[i+1])
				}
				return ""
			})
			p.do("re-add even keys mutated", func(s layoutStore) string {
				for i := 0; i < n; i += 10 {
					s.Add(fmt.Sprintf("k%d", i), pods[i])
				}
				return ""
			})
			p.do("delete everything", func(s layoutStore) string {
				for _, k := range s.ListKeys() {
					s.Delete(k)
				}
				return ""
			})
			p.do("refill all", func(s layoutStore) string {
				for i := n; i >= 0; i-- {
					s.Update(fmt.Sprintf("k%d", i), pods[n-i])
				}
				return ""
			})
			p.do("addIndexers single2", func(s layoutStore) string { return fmt.Sprint(s.AddIndexers([]string{"single2"})) })
			p.do("replace with half", func(s layoutStore) string {
				items := map[string]any{}
				for i := 0; i < n; i += 2 {
					items[fmt.Sprintf("k%d", i)] = pods[i]
				}
				s.Replace(items, "3")
				return ""
			})
			p.do("delete all but one, add back", func(s layoutStore) string {
				for i := 0; i < n-1; i++ {
					s.Delete(fmt.Sprintf("k%d", i))
				}
				for i := 0; i < n; i++ {
					s.Add(fmt.Sprintf("z%d", i), pods[i])
				}
				return ""
			})
		})
	}
}

func TestAPanickingIndexFunctionInAddIndexersAndReplaceLeavesClientGosState(t *testing.T) {
	p := newLayoutPair(t, []string{"single"}, nil)
	p.probe = []string{"k", "j"}
	bad := p.pod("bad", "ns", "n", map[string]string{"s": "a", "panic": "yes"})
	p.do("add k bad", func(s layoutStore) string { s.Add("k", bad); return "" })
	p.do("addIndexers panicky", func(s layoutStore) string { return fmt.Sprint(s.AddIndexers([]string{"panicky"})) })
	p.do("addIndexers panicky again", func(s layoutStore) string { return fmt.Sprint(s.AddIndexers([]string{"panicky"})) })
	// NB: with two indices, which one client-go updates before the panic
	// follows its map order; from here on only the items are compared.
	p.names.itemsOnly = true
	p.do("replace {j: bad}", func(s layoutStore) string { s.Replace(map[string]any{"j": bad}, "2"); return "" })
	p.do("delete j", func(s layoutStore) string { s.Delete("j"); return "" })
	delete(bad.Labels, "panic")
	p.do("delete j after the fix", func(s layoutStore) string { s.Delete("j"); return "" })
	p.do("update k bad", func(s layoutStore) string { s.Update("k", bad); return "" })
}

func TestADetachedRecordReadsAsNilAndIsAdoptedThroughEveryWriteAsInClientGo(t *testing.T) {
	p := newLayoutPair(t, []string{"single", "multi"}, nil)
	p.probe = []string{"k", "j"}
	o := p.pod("o1", "ns", "n", map[string]string{"s": "a", "m": "x,y"})
	p.do("add k o1", func(s layoutStore) string { s.Add("k", o); return "" })
	o.Labels["s"], o.Labels["m"] = "b", "y,z"
	p.do("delete k after in-place change", func(s layoutStore) string { s.Delete("k"); return "" })
	p.do("add j o1", func(s layoutStore) string { s.Add("j", o); return "" })
	p.do("add k o1 (adopt)", func(s layoutStore) string { s.Add("k", o); return "" })
	o.Labels["s"] = "c"
	p.do("update k o1 changed again", func(s layoutStore) string { s.Update("k", o); return "" })
	o.Labels["s"], o.Labels["m"] = "d", "w"
	p.do("delete k again", func(s layoutStore) string { s.Delete("k"); return "" })
	p.do("addIndexers single2", func(s layoutStore) string { return fmt.Sprint(s.AddIndexers([]string{"single2"})) })
	p.do("transaction add k, delete k", func(s layoutStore) string { return s.Txn([]string{"k", "k"}, []any{o, nil}) })
	o2 := p.pod("o2", "ns", "n2", map[string]string{"s": "a"})
	p.do("add k o2", func(s layoutStore) string { s.Add("k", o2); return "" })
	p.do("delete k o2", func(s layoutStore) string { s.Delete("k"); return "" })
	p.do("replace {k: o1}", func(s layoutStore) string { s.Replace(map[string]any{"k": o}, "5"); return "" })
	p.do("delete k", func(s layoutStore) string { s.Delete("k"); return "" })
}

func TestKeySetsCrossingSixtyFourAndManyValuedObjectsIndexAsInClientGo(t *testing.T) {
	p := newLayoutPair(t, []string{"single", "multi"}, nil)
	many := func(from, n int) string {
		var v []string
		for i := from; i < from+n; i++ {
			v = append(v, fmt.Sprintf("v%d", i))
		}
		return strings.Join(v, ",")
	}
	var pods []*corev1.Pod
	for i := 0; i < 70; i++ {
		pods = append(pods, p.pod(fmt.Sprintf("o%d", i), "ns", fmt.Sprint(i), map[string]string{"s": "a", "m": many(i%3, 20)}))
	}
	p.do("add 70 under a", func(s layoutStore) string {
		for i, o := range pods {
			s.Add(fmt.Sprintf("k%d", i), o)
		}
		return ""
	})
	for i := 0; i < 70; i += 2 {
		pods[i].Labels["m"] = many(10+i%4, 20) + "," + many(0, 3)
	}
	p.do("update the changed half", func(s layoutStore) string {
		for i := 0; i < 70; i += 2 {
			s.Update(fmt.Sprintf("k%d", i), pods[i])
		}
		return ""
	})
	p.do("delete down to 63", func(s layoutStore) string {
		for i := 0; i < 7; i++ {
			s.Delete(fmt.Sprintf("k%d", i))
		}
		return ""
	})
	p.do("delete all but one", func(s layoutStore) string {
		for i := 7; i < 69; i++ {
			s.Delete(fmt.Sprintf("k%d", i))
		}
		return ""
	})
	p.do("delete the last", func(s layoutStore) string { s.Delete("k69"); return "" })
	p.do("re-add 70", func(s layoutStore) string {
		for i, o := range pods {
			s.Add(fmt.Sprintf("k%d", i), o)
		}
		return ""
	})
}

func TestAnIndexFunctionErrorPanicsWithClientGosMessageAtEveryWrite(t *testing.T) {
	p := newLayoutPair(t, []string{"erring"}, nil)
	p.probe = []string{"k", "j"}
	bad := p.pod("bad", "ns", "n", map[string]string{"s": "a", "err": "yes"})
	good := p.pod("good", "ns", "n", map[string]string{"s": "a"})
	p.do("add k bad", func(s layoutStore) string { s.Add("k", bad); return "" })
	p.do("update k good", func(s layoutStore) string { s.Update("k", good); return "" })
	p.do("update k bad", func(s layoutStore) string { s.Update("k", bad); return "" })
	p.do("delete k", func(s layoutStore) string { s.Delete("k"); return "" })
	p.do("index bad", func(s layoutStore) string {
		_, err := s.Index("erring", bad)
		return fmt.Sprint(err)
	})
	p.do("replace {j: bad}", func(s layoutStore) string { s.Replace(map[string]any{"j": bad}, "2"); return "" })
	p.do("transaction j good, k bad", func(s layoutStore) string { return s.Txn([]string{"j", "k"}, []any{good, bad}) })
	p.do("addIndexers erring2", func(s layoutStore) string { return fmt.Sprint(s.AddIndexers([]string{"nilseen"})) })
	if p.panics == 0 {
		t.Error("no write panicked")
	}
}

func TestPendingIndicesGoWithAReplaceAndAnEmptyGivenValueGoesOnceARecordJoinsAndLeavesItAsInClientGo(t *testing.T) {
	p := newLayoutPair(t, []string{"single"}, map[string]map[string][]string{
		"preloaded-only": {"v": {"k", "x"}},
		"single":         {"e": {}},
	})
	p.probe = []string{"k", "x", "e1"}
	o := p.pod("o1", "a", "n", map[string]string{"s": "a", "m": "a"})
	e := p.pod("e1", "a", "n", map[string]string{"s": "e", "m": "e"})
	p.do("add k o1", func(s layoutStore) string { s.Add("k", o); return "" })
	p.do("add e1 into the empty value", func(s layoutStore) string { s.Add("e1", e); return "" })
	p.do("delete e1", func(s layoutStore) string { s.Delete("e1"); return "" })
	p.do("delete k", func(s layoutStore) string { s.Delete("k"); return "" })
	p.do("replace {k: o1}", func(s layoutStore) string { s.Replace(map[string]any{"k": o}, "1"); return "" })
	p.do("addIndexers preloaded-only", func(s layoutStore) string {
		return fmt.Sprint(s.AddIndexers([]string{"preloaded-only"}))
	})
}
