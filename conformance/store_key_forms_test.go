package conformance

// Every form of one key (split namespace/name headers, a plain rendering,
// an ExplicitKey, a tombstone key, a map key of Replace) finds the same
// record, whatever the key table's 32-bit tags and two-header key hash make
// of it, across growth, backward-shift deletes and panicking index
// functions, exactly as client-go's map of strings does.

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	kc "github.com/kcache-go/cache"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cg "k8s.io/client-go/tools/cache"
)

// keytagLong are long strings around the 32- and 128-byte marks, where a
// streamed hash changes how it buffers.
var keytagLong = []string{
	strings.Repeat("L", 31), strings.Repeat("L", 32), strings.Repeat("L", 33),
	strings.Repeat("M", 127), strings.Repeat("M", 128), strings.Repeat("M", 129),
	strings.Repeat("N", 300),
}

// keytagNamespaces and keytagNames combine into keys whose renderings
// collide across splits: ("a/b","c") and ("a","b/c") both render a/b/c.
var (
	keytagNamespaces = append([]string{"", "a", "a/b", "/", "//", "x/", "/x", "名前", "ns"}, keytagLong[1], keytagLong[3], keytagLong[4])
	keytagNames      = append([]string{"", "c", "b/c", "b", "/", "n", "ポッド", "/c", "c/"}, keytagLong[0], keytagLong[2], keytagLong[5], keytagLong[6])
)

// keytagRender is MetaNamespaceKeyFunc's rendering of (ns, name).
func keytagRender(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// keytagWorld holds the objects one run draws from; the very same pointers
// go to both libraries, so an in-place mutation reaches both stores.
type keytagWorld struct {
	rng   *rand.Rand
	pods  []*corev1.Pod
	names map[*corev1.Pod]string
	keys  []string
	// indexNames are the indices of the run's Indexers.
	indexNames []string
}

// newKeytagWorld builds the tricky keys and bulk keys (so the table grows
// past a few hundred members and deletes shift long runs).
func newKeytagWorld(seed int64, bulk int) *keytagWorld {
	w := &keytagWorld{rng: rand.New(rand.NewSource(seed)), names: map[*corev1.Pod]string{}}
	seen := map[string]bool{}
	addKey := func(k string) {
		if !seen[k] {
			seen[k] = true
			w.keys = append(w.keys, k)
		}
	}
	for _, ns := range keytagNamespaces {
		for _, name := range keytagNames {
			w.newPod(ns, name)
			addKey(keytagRender(ns, name))
		}
	}
	for i := 0; i < bulk; i++ {
		ns, name := fmt.Sprintf("bulk-%d", i%7), fmt.Sprintf("p-%d", i)
		w.newPod(ns, name)
		addKey(keytagRender(ns, name))
	}
	return w
}

// newPod adds two versions of (ns, name) to the world.
func (w *keytagWorld) newPod(ns, name string) {
	for v := 0; v < 2; v++ {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: fmt.Sprint(len(w.pods) + 1),
			Labels: map[string]string{"s": fmt.Sprint(len(w.pods) % 5), "v": fmt.Sprint(v)}}}
		w.names[p] = fmt.Sprintf("o%d", len(w.pods))
		w.pods = append(w.pods, p)
	}
}

func (w *keytagWorld) pod() *corev1.Pod { return w.pods[w.rng.Intn(len(w.pods))] }
func (w *keytagWorld) key() string      { return w.keys[w.rng.Intn(len(w.keys))] }

// keytagValue is the neutral form of a non-pod object: a tombstone or an
// ExplicitKey. Each side converts it to its own type.
type keytagValue struct {
	explicit bool
	key      string
	obj      *corev1.Pod
}

func (v keytagValue) toCG() any {
	if v.explicit {
		return cg.ExplicitKey(v.key)
	}
	return cg.DeletedFinalStateUnknown{Key: v.key, Obj: v.obj}
}

func (v keytagValue) toKC() any {
	if v.explicit {
		return kc.ExplicitKey(v.key)
	}
	return kc.DeletedFinalStateUnknown{Key: v.key, Obj: v.obj}
}

// name renders a stored object of either library.
func (w *keytagWorld) name(obj any) string {
	switch o := obj.(type) {
	case nil:
		return "<nil>"
	case *corev1.Pod:
		if n, ok := w.names[o]; ok {
			return n
		}
		return "unknown-pod"
	case cg.ExplicitKey:
		return fmt.Sprintf("explicit(%q)", string(o))
	case kc.ExplicitKey:
		return fmt.Sprintf("explicit(%q)", string(o))
	case cg.DeletedFinalStateUnknown:
		return fmt.Sprintf("tomb(%q,%s)", o.Key, w.name(o.Obj))
	case kc.DeletedFinalStateUnknown:
		return fmt.Sprintf("tomb(%q,%s)", o.Key, w.name(o.Obj))
	}
	return fmt.Sprintf("%T", obj)
}

func (w *keytagWorld) list(objs []any) string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = w.name(o)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// keytagBoom is set by a run to make the "boom" index panic for a pod whose
// label boom is "1"; both libraries get the same function.
func keytagIndexFunc(name string) func(obj any) ([]string, error) {
	return func(obj any) ([]string, error) {
		p, ok := obj.(*corev1.Pod)
		if !ok {
			return []string{"other"}, nil
		}
		switch name {
		case "boom":
			if p.Labels["boom"] == "1" {
				panic("boom index panics on purpose")
			}
			return []string{p.Labels["s"]}, nil
		case "name":
			return []string{p.Name, p.Namespace}, nil
		}
		return []string{p.Labels["s"]}, nil
	}
}

// keytagTolerant gives "other" for an object that is not a pod, fn's
// values otherwise.
func keytagTolerant(fn func(any) ([]string, error)) func(any) ([]string, error) {
	return func(obj any) ([]string, error) {
		if _, ok := obj.(*corev1.Pod); !ok {
			return []string{"other"}, nil
		}
		return fn(obj)
	}
}

// keytagIndexer is the part of an Indexer the key-form tests drive.
type keytagIndexer interface {
	Add(obj any) error
	Update(obj any) error
	Delete(obj any) error
	Get(obj any) (any, bool, error)
	GetByKey(key string) (any, bool, error)
	List() []any
	ListKeys() []string
	Replace(list []any, rv string) error
	Resync() error
	ByIndex(name, value string) ([]any, error)
	IndexKeys(name, value string) ([]string, error)
	ListIndexFuncValues(name string) []string
	LastStoreSyncResourceVersion() string
}

// keytagSide is one library's store with its converter of neutral values.
type keytagSide struct {
	s  keytagIndexer
	to func(keytagValue) any
	// txn applies one Transaction of objs[i] with type typs[i].
	txn func(typs []string, objs []any) string
}

// keytagIndexNames are the indices every Indexer of the key-form tests has.
var keytagIndexNames = []string{"s", "boom", "name", "namespace"}

type keytagKeyFuncs struct {
	cg cg.KeyFunc
	kc kc.KeyFunc
}

// keytagKeyFuncChoices are the key functions the key-form tests build stores with:
// the two the store computes itself (split keys) and one it only calls.
var keytagKeyFuncChoices = map[string]keytagKeyFuncs{
	"MetaNamespaceKeyFunc":                 {cg.MetaNamespaceKeyFunc, kc.MetaNamespaceKeyFunc},
	"DeletionHandlingMetaNamespaceKeyFunc": {cg.DeletionHandlingMetaNamespaceKeyFunc, kc.DeletionHandlingMetaNamespaceKeyFunc},
	"a wrapped key function": {
		func(obj any) (string, error) { return cg.DeletionHandlingMetaNamespaceKeyFunc(obj) },
		func(obj any) (string, error) { return kc.DeletionHandlingMetaNamespaceKeyFunc(obj) },
	},
}

// newKeytagSides builds the two stores. rawNamespace gives the namespace
// index each library's own MetaNamespaceIndexFunc (kcache then reads the
// namespace itself), which panics on a stored tombstone or ExplicitKey;
// otherwise a wrapper that gives those "other".
func newKeytagSides(keyFunc string, indexNames []string, rawNamespace bool) (a, b keytagSide) {
	kf := keytagKeyFuncChoices[keyFunc]
	cgIx, kcIx := cg.Indexers{}, kc.Indexers{}
	{
		for _, n := range indexNames {
			switch {
			case n == "namespace" && rawNamespace:
				cgIx[n], kcIx[n] = cg.MetaNamespaceIndexFunc, kc.MetaNamespaceIndexFunc
			case n == "namespace":
				cgIx[n], kcIx[n] = keytagTolerant(cg.MetaNamespaceIndexFunc), keytagTolerant(kc.MetaNamespaceIndexFunc)
			default:
				cgIx[n], kcIx[n] = keytagIndexFunc(n), keytagIndexFunc(n)
			}
		}
	}
	ci, ki := cg.NewIndexer(kf.cg, cgIx), kc.NewIndexer(kf.kc, kcIx)
	a = keytagSide{s: ci, to: keytagValue.toCG, txn: func(typs []string, objs []any) string {
		var txns []cg.Transaction
		for i, o := range objs {
			txns = append(txns, cg.Transaction{Type: cg.TransactionType(typs[i]), Object: o})
		}
		if err := ci.(cg.TransactionStore).Transaction(txns...); err != nil {
			return fmt.Sprintf("error: %v of %d", err.SuccessfulIndices, err.TotalTransactions)
		}
		return ""
	}}
	b = keytagSide{s: ki, to: keytagValue.toKC, txn: func(typs []string, objs []any) string {
		var txns []kc.Transaction
		for i, o := range objs {
			txns = append(txns, kc.Transaction{Type: kc.TransactionType(typs[i]), Object: o})
		}
		if err := ki.(kc.TransactionStore).Transaction(txns...); err != nil {
			return fmt.Sprintf("error: %v of %d", err.SuccessfulIndices, err.TotalTransactions)
		}
		return ""
	}}
	return a, b
}

// keytagCatch runs fn and renders its panic, if any.
func keytagCatch(fn func() string) (out string) {
	defer func() {
		if r := recover(); r != nil {
			out = "panicked"
		}
	}()
	return fn()
}

func keytagErr(err error) string {
	if err != nil {
		return "error"
	}
	return "ok"
}

// keytagOp is one random operation, given the side it runs on.
type keytagOp struct {
	desc string
	run  func(s keytagSide) string
}

// nextOp draws an operation; its random choices are made once, so both
// sides run the very same call.
func (w *keytagWorld) nextOp() keytagOp {
	p := w.pod()
	tomb := keytagValue{key: w.key(), obj: p}
	if w.rng.Intn(2) == 0 {
		tomb.key = keytagRender(p.Namespace, p.Name)
	}
	explicit := keytagValue{explicit: true, key: w.key()}
	switch r := w.rng.Intn(100); {
	case r < 30:
		return keytagOp{"Add " + w.names[p], func(s keytagSide) string { return keytagErr(s.s.Add(p)) }}
	case r < 45:
		return keytagOp{"Update " + w.names[p], func(s keytagSide) string { return keytagErr(s.s.Update(p)) }}
	case r < 63:
		return keytagOp{"Delete " + w.names[p], func(s keytagSide) string { return keytagErr(s.s.Delete(p)) }}
	case r < 68:
		return keytagOp{fmt.Sprintf("Delete tombstone %q", tomb.key), func(s keytagSide) string { return keytagErr(s.s.Delete(s.to(tomb))) }}
	case r < 71:
		return keytagOp{fmt.Sprintf("Add tombstone %q", tomb.key), func(s keytagSide) string { return keytagErr(s.s.Add(s.to(tomb))) }}
	case r < 74:
		return keytagOp{fmt.Sprintf("Add explicit %q", explicit.key), func(s keytagSide) string { return keytagErr(s.s.Add(s.to(explicit))) }}
	case r < 78:
		return keytagOp{fmt.Sprintf("Delete explicit %q", explicit.key), func(s keytagSide) string { return keytagErr(s.s.Delete(s.to(explicit))) }}
	case r < 82:
		return w.mutateOp(p)
	case r < 85:
		return w.replaceOp()
	case r < 90:
		return w.txnOp()
	case r < 92:
		return keytagOp{"Resync", func(s keytagSide) string { return keytagErr(s.s.Resync()) }}
	}
	k := w.key()
	return keytagOp{fmt.Sprintf("Get %s, GetByKey %q, Get of tombstone %q and explicit %q", w.names[p], k, tomb.key, explicit.key), func(s keytagSide) string {
		a, ok, err := s.s.Get(p)
		b, ok2, err2 := s.s.GetByKey(k)
		c, ok3, err3 := s.s.Get(s.to(tomb))
		d, ok4, err4 := s.s.Get(s.to(explicit))
		return fmt.Sprintf("%s %v %s / %s %v %s / %s %v %s / %s %v %s", w.name(a), ok, keytagErr(err), w.name(b), ok2, keytagErr(err2),
			w.name(c), ok3, keytagErr(err3), w.name(d), ok4, keytagErr(err4))
	}}
}

// mutateOp changes a pod in place: its namespace, its name, or whether the
// boom index panics on it. Both stores share the pointer, so the closure
// runs the change once, on the first side.
func (w *keytagWorld) mutateOp(p *corev1.Pod) keytagOp {
	var desc string
	var change func()
	switch w.rng.Intn(3) {
	case 0:
		ns := keytagNamespaces[w.rng.Intn(len(keytagNamespaces))]
		desc, change = fmt.Sprintf("set namespace of %s to %q", w.names[p], ns), func() { p.Namespace = ns }
	case 1:
		name := keytagNames[w.rng.Intn(len(keytagNames))]
		desc, change = fmt.Sprintf("set name of %s to %q", w.names[p], name), func() { p.Name = name }
	default:
		v := fmt.Sprint(w.rng.Intn(4) / 3)
		desc, change = fmt.Sprintf("set boom of %s to %s", w.names[p], v), func() {
			labels := map[string]string{}
			for k, x := range p.Labels {
				labels[k] = x
			}
			labels["boom"] = v
			p.Labels = labels
		}
	}
	done := false
	return keytagOp{desc, func(keytagSide) string {
		if !done {
			done = true
			change()
		}
		return ""
	}}
}

func (w *keytagWorld) replaceOp() keytagOp {
	n := w.rng.Intn(len(w.pods) / 2)
	var pods []*corev1.Pod
	for i := 0; i < n; i++ {
		pods = append(pods, w.pod())
	}
	var extra []keytagValue
	for i := 0; i < w.rng.Intn(5)-2; i++ {
		extra = append(extra, keytagValue{explicit: i%2 == 0, key: w.key(), obj: w.pod()})
	}
	return keytagOp{fmt.Sprintf("Replace with %d pods and %d others", len(pods), len(extra)), func(s keytagSide) string {
		list := make([]any, 0, len(pods)+len(extra))
		for _, p := range pods {
			list = append(list, p)
		}
		for _, v := range extra {
			list = append(list, s.to(v))
		}
		return keytagErr(s.s.Replace(list, "rv"))
	}}
}

func (w *keytagWorld) txnOp() keytagOp {
	types := []string{"Add", "Update", "Delete", "Bogus"}
	var pods []*corev1.Pod
	var typs []string
	for i := 0; i < 1+w.rng.Intn(6); i++ {
		pods = append(pods, w.pod())
		typs = append(typs, types[w.rng.Intn(len(types))])
	}
	tomb := keytagValue{key: w.key(), obj: pods[0]}
	if w.rng.Intn(2) == 0 {
		tomb.key = keytagRender(pods[0].Namespace, pods[0].Name)
	}
	tombType := types[w.rng.Intn(len(types))]
	return keytagOp{fmt.Sprintf("Transaction %s %q then %v of %d pods", tombType, tomb.key, typs, len(pods)), func(s keytagSide) string {
		objs := []any{s.to(tomb)}
		for _, p := range pods {
			objs = append(objs, p)
		}
		return s.txn(append([]string{tombType}, typs...), objs)
	}}
}

// state renders what a reader sees; probe keys are every key of the world.
func (w *keytagWorld) state(s keytagIndexer, indexed bool) string {
	var b strings.Builder
	keys := s.ListKeys()
	sort.Strings(keys)
	fmt.Fprintf(&b, "keys=%q\nlist=%s\nrv=%q\n", keys, w.list(s.List()), s.LastStoreSyncResourceVersion())
	for _, k := range append(keys, w.keys...) {
		obj, ok, _ := s.GetByKey(k)
		fmt.Fprintf(&b, "get(%q)=%s %v\n", k, w.name(obj), ok)
	}
	if !indexed {
		return b.String()
	}
	for _, name := range w.indexNames {
		values := s.ListIndexFuncValues(name)
		sort.Strings(values)
		for _, v := range values {
			ks, _ := s.IndexKeys(name, v)
			sort.Strings(ks)
			objs, _ := s.ByIndex(name, v)
			fmt.Fprintf(&b, "%s[%q]=%q %s\n", name, v, ks, w.list(objs))
		}
	}
	return b.String()
}

// keytagStateEvery is how often (in operations) the whole state is compared;
// every operation's own answer is always compared.
const keytagStateEvery = 9

func runKeytagDifferential(t *testing.T, seed int64, keyFunc string, indexNames []string, rawNamespace bool, ops, bulk int) {
	w := newKeytagWorld(seed, bulk)
	w.indexNames = indexNames
	indexed := len(indexNames) > 0
	// NB: with one index, a panicking write leaves client-go's indices as
	// certain as kcache's (the one index panics before it changes
	// anything), so they stay compared; only a Replace that panics leaves
	// them to the order client-go iterated its map in.
	orderFree := len(indexNames) == 1
	a, b := newKeytagSides(keyFunc, indexNames, rawNamespace)
	var log []string
	// NB: after an IndexFunc panics, client-go's indices depend on its map
	// order (which index, which object of a Replace came first), so only
	// the items are compared until a Replace rebuilds the indices.
	tainted, panics, indexChecks := false, 0, 0
	for i := 0; i < ops; i++ {
		op := w.nextOp()
		log = append(log, op.desc)
		ra, rb := keytagCatch(func() string { return op.run(a) }), keytagCatch(func() string { return op.run(b) })
		if ra != rb {
			t.Fatalf("seed %d op %d %s: client-go %q, kcache %q\nlast ops: %s", seed, i, op.desc, ra, rb, strings.Join(keytagTail(log), "; "))
		}
		switch {
		case ra == "panicked":
			tainted = tainted || !orderFree || strings.HasPrefix(op.desc, "Replace")
			panics++
		case strings.HasPrefix(op.desc, "Replace") && ra == "ok":
			tainted = false
		}
		if i%keytagStateEvery != 0 && i != ops-1 {
			continue
		}
		if indexed && !tainted {
			indexChecks++
		}
		if sa, sb := w.state(a.s, indexed && !tainted), w.state(b.s, indexed && !tainted); sa != sb {
			t.Fatalf("seed %d after op %d %s: state differs\nlast ops: %s\n%s", seed, i, op.desc, strings.Join(keytagTail(log), "; "), layoutDiff(sa, sb))
		}
	}
	t.Logf("seed %d: %d operations, %d panicked on both sides, indices compared %d times", seed, ops, panics, indexChecks)
	if indexed && indexChecks < ops/keytagStateEvery/8 {
		t.Errorf("seed %d: indices compared only %d times", seed, indexChecks)
	}
}

func keytagTail(log []string) []string {
	if len(log) > 12 {
		return log[len(log)-12:]
	}
	return log
}

func TestIndexersFedKeysInEverySplitAndPlainFormMatchClientGoOverLongRandomRuns(t *testing.T) {
	tests := []struct {
		name         string
		keyFunc      string
		indexNames   []string
		rawNamespace bool
		seeds        []int64
	}{
		{"meta namespace keys with client-go's own namespace index", "MetaNamespaceKeyFunc", keytagIndexNames, true, []int64{1, 2}},
		{"meta namespace keys with indices", "MetaNamespaceKeyFunc", keytagIndexNames, false, []int64{3}},
		{"deletion handling keys with indices", "DeletionHandlingMetaNamespaceKeyFunc", keytagIndexNames, false, []int64{4, 5, 6}},
		{"deletion handling keys without indices", "DeletionHandlingMetaNamespaceKeyFunc", nil, false, []int64{7, 8}},
		{"a key function the store only calls", "a wrapped key function", keytagIndexNames, false, []int64{9, 10}},
		{"deletion handling keys with only the panicking index, compared after every panic", "DeletionHandlingMetaNamespaceKeyFunc", []string{"boom"}, false, []int64{15, 16}},
		{"meta namespace keys with only the panicking index", "MetaNamespaceKeyFunc", []string{"boom"}, false, []int64{17}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, seed := range tt.seeds {
				runKeytagDifferential(t, seed, tt.keyFunc, tt.indexNames, tt.rawNamespace, 1500, 150)
			}
		})
	}
}

// keytagStep is one call of a directed scenario: the object is a pod of
// the scenario by index, or a tombstone or ExplicitKey of a rendering.
type keytagStep struct {
	op   string // Add, Update, Delete, Replace
	pods []int
	// other, when set, is a tombstone (explicit false) or ExplicitKey given
	// after the pods.
	other *keytagValue
}

func TestKeysOfOneRenderingInDifferentSplitsAreOneKeyAsInClientGo(t *testing.T) {
	// pods[0] and pods[1] both render a/b/c; pods[2] renders a/b/c/d (three
	// splits); pods[3] is cluster-scoped "a/b/c" by name alone.
	mk := func() []*corev1.Pod {
		return []*corev1.Pod{
			{ObjectMeta: metav1.ObjectMeta{Namespace: "a/b", Name: "c", Labels: map[string]string{"s": "0"}}},
			{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "b/c", Labels: map[string]string{"s": "1"}}},
			{ObjectMeta: metav1.ObjectMeta{Namespace: "a/b/c", Name: "d", Labels: map[string]string{"s": "2"}}},
			{ObjectMeta: metav1.ObjectMeta{Name: "a/b/c", Labels: map[string]string{"s": "3"}}},
		}
	}
	tomb := func(key string) *keytagValue { return &keytagValue{key: key} }
	tests := []struct {
		name    string
		keyFunc string
		steps   []keytagStep
	}{
		{"a second split of the same key replaces the first", "MetaNamespaceKeyFunc",
			[]keytagStep{{op: "Add", pods: []int{0}}, {op: "Add", pods: []int{1}}, {op: "Update", pods: []int{3}}, {op: "Delete", pods: []int{0}}}},
		{"a tombstone of the rendering deletes a split key", "DeletionHandlingMetaNamespaceKeyFunc",
			[]keytagStep{{op: "Add", pods: []int{0, 2}}, {op: "Delete", other: tomb("a/b/c")}, {op: "Delete", other: tomb("a/b/c/d")}}},
		{"an ExplicitKey of the rendering deletes a split key", "MetaNamespaceKeyFunc",
			[]keytagStep{{op: "Add", pods: []int{1, 2}}, {op: "Delete", other: &keytagValue{explicit: true, key: "a/b/c"}}, {op: "Delete", other: &keytagValue{explicit: true, key: "a/b/c/d"}}}},
		{"an ExplicitKey stored first is replaced by a split key of its rendering", "MetaNamespaceKeyFunc",
			[]keytagStep{{op: "Add", other: &keytagValue{explicit: true, key: "a/b/c"}}, {op: "Add", pods: []int{0}}, {op: "Delete", pods: []int{3}}}},
		{"a Replace listing one key in several forms keeps the last", "DeletionHandlingMetaNamespaceKeyFunc",
			[]keytagStep{{op: "Replace", pods: []int{0, 1, 3, 2}}, {op: "Replace", pods: []int{3, 1, 0}, other: tomb("a/b/c")}, {op: "Delete", pods: []int{1}}}},
		{"a Replace then writes through the other splits", "MetaNamespaceKeyFunc",
			[]keytagStep{{op: "Replace", pods: []int{1, 2}}, {op: "Update", pods: []int{0}}, {op: "Delete", pods: []int{3}}, {op: "Add", pods: []int{2}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pods := mk()
			w := &keytagWorld{names: map[*corev1.Pod]string{}, keys: []string{"a/b/c", "a/b/c/d", "a", "a/b", "c", "b/c", "d"}, indexNames: keytagIndexNames}
			for i, p := range pods {
				w.names[p] = fmt.Sprintf("pod%d", i)
			}
			a, b := newKeytagSides(tt.keyFunc, keytagIndexNames, false)
			for i, st := range tt.steps {
				run := func(s keytagSide) string {
					var objs []any
					for _, p := range st.pods {
						objs = append(objs, pods[p])
					}
					if st.other != nil {
						objs = append(objs, s.to(*st.other))
					}
					var out []string
					if st.op == "Replace" {
						return keytagErr(s.s.Replace(objs, "rv"))
					}
					for _, o := range objs {
						var err error
						switch st.op {
						case "Add":
							err = s.s.Add(o)
						case "Update":
							err = s.s.Update(o)
						case "Delete":
							err = s.s.Delete(o)
						}
						out = append(out, keytagErr(err))
					}
					return strings.Join(out, ",")
				}
				ra, rb := keytagCatch(func() string { return run(a) }), keytagCatch(func() string { return run(b) })
				if ra != rb {
					t.Fatalf("step %d %+v: client-go %q, kcache %q", i, st, ra, rb)
				}
				if sa, sb := w.state(a.s, true), w.state(b.s, true); sa != sb {
					t.Fatalf("step %d %+v: state differs\n%s", i, st, layoutDiff(sa, sb))
				}
			}
			if len(a.s.ListKeys()) == 0 && tt.steps[len(tt.steps)-1].op != "Delete" {
				t.Fatalf("the scenario left nothing to compare")
			}
		})
	}
}

func TestThreadSafeStoresGivenTrickyPlainKeysAndAPanickingIndexMatchClientGo(t *testing.T) {
	tests := []struct {
		name string
		seed int64
		ops  int
	}{
		{"a short run", 21, 300},
		{"a long run over a growing table", 22, 1500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewSource(tt.seed))
			p := newLayoutPair(t, []string{"panicky"}, nil)
			var keys []string
			for _, ns := range keytagNamespaces {
				for _, name := range keytagNames {
					keys = append(keys, keytagRender(ns, name))
				}
			}
			for i := 0; i < 120; i++ {
				keys = append(keys, fmt.Sprintf("bulk-%d/p-%d", i%5, i))
			}
			p.probe = keys
			var pods []*corev1.Pod
			for i := 0; i < 60; i++ {
				pods = append(pods, p.pod(fmt.Sprintf("pod%d", i), "ns", fmt.Sprint(i), map[string]string{"s": fmt.Sprint(i % 4)}))
			}
			for i := 0; i < tt.ops; i++ {
				k, o := keys[rng.Intn(len(keys))], pods[rng.Intn(len(pods))]
				var ok bool
				switch r := rng.Intn(10); {
				case r < 4:
					ok = p.do(fmt.Sprintf("Add %q %s", k, p.names.of(o)), func(s layoutStore) string { s.Add(k, o); return "" })
				case r < 7:
					ok = p.do(fmt.Sprintf("Delete %q", k), func(s layoutStore) string { s.Delete(k); return "" })
				case r < 8:
					labels := map[string]string{"s": fmt.Sprint(rng.Intn(4))}
					if rng.Intn(3) == 0 {
						labels["panic"] = "1"
					}
					ok = p.do(fmt.Sprintf("set labels of %s to %v", p.names.of(o), labels), func(s layoutStore) string {
						o.Labels = labels // NB: the same pointer is in both stores; setting it twice is harmless.
						return ""
					})
				case r < 9:
					items := map[string]any{}
					for j := 0; j < rng.Intn(len(keys)); j++ {
						if c := pods[rng.Intn(len(pods))]; c.Labels["panic"] == "" {
							items[keys[rng.Intn(len(keys))]] = c
						}
					}
					ok = p.do(fmt.Sprintf("Replace with %d", len(items)), func(s layoutStore) string { s.Replace(items, "rv"); return "" })
				default:
					tk := []string{k, keys[rng.Intn(len(keys))], k}
					tobjs := []any{o, pods[rng.Intn(len(pods))], nil}
					ok = p.do(fmt.Sprintf("Transaction %q", tk), func(s layoutStore) string { return s.Txn(tk, tobjs) })
				}
				if !ok {
					return
				}
			}
			if p.panics == 0 {
				t.Fatalf("no operation panicked: the panicking index was never exercised")
			}
		})
	}
}
