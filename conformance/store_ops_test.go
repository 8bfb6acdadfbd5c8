package conformance

import (
	"fmt"
	"k8s.io/apimachinery/pkg/api/meta"
	"sort"
	"strings"
)

// storeOp is one write applied to both sides, in neutral form. Only the
// fields its Kind needs are set.
type storeOp struct {
	// Kind names the call: Add, Update, Delete, DeleteWithObject, Replace,
	// Resync, Bookmark, AddIndexers or Transaction; the panic test also uses
	// Index (index name in Indexers[0]), which random runs read instead.
	Kind string
	// Obj is the object of Add, Update, Delete and DeleteWithObject.
	Obj any
	// Key is the key of ThreadSafeStore calls.
	Key string
	// Objs is the list of a Store Replace.
	Objs []any
	// Items is the map of a ThreadSafeStore Replace.
	Items map[string]any
	// RV is the resource version of Replace and Bookmark.
	RV string
	// Indexers names the catalog indices of AddIndexers; nil means a nil map.
	Indexers []string
	// Txns are the transactions of a Transaction call.
	Txns []storeTxn
	// Set is the "label=value" a Mutate writes into Obj in place (an empty
	// value removes the label).
	Set string
}

// storeTxn is one neutral transaction; Key is used only by ThreadSafeStore.
type storeTxn struct {
	// Type is the transaction type, possibly one no implementation knows.
	Type string
	// Obj is the transaction's object.
	Obj any
	// Key is the ThreadSafeStoreTransaction key.
	Key string
}

// storeTxnTypes are the transaction types drawn, with unknown ones.
var storeTxnTypes = []string{"Add", "Add", "Update", "Update", "Delete", "Delete", "Bogus", ""}

// format prints the op with object names, for failure messages.
func (op storeOp) format(w *storeWorld) string {
	var b strings.Builder
	b.WriteString(op.Kind)
	b.WriteString("(")
	switch op.Kind {
	case "Add", "Update", "Delete", "DeleteWithObject":
		if op.Key != "" || op.Obj == nil {
			fmt.Fprintf(&b, "key=%q ", op.Key)
		}
		b.WriteString(w.describe(op.Obj))
	case "Replace":
		if op.Items != nil {
			keys := make([]string, 0, len(op.Items))
			for k := range op.Items {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				fmt.Fprintf(&b, "%q:%s ", k, w.describe(op.Items[k]))
			}
		} else {
			for _, o := range op.Objs {
				b.WriteString(w.describe(o) + " ")
			}
		}
		fmt.Fprintf(&b, "rv=%q", op.RV)
	case "Bookmark":
		fmt.Fprintf(&b, "%q", op.RV)
	case "AddIndexers":
		fmt.Fprintf(&b, "%q", op.Indexers)
	case "Index":
		fmt.Fprintf(&b, "%q, %s", op.Indexers, w.describe(op.Obj))
	case "Transaction":
		for _, t := range op.Txns {
			fmt.Fprintf(&b, "{%q key=%q %s} ", t.Type, t.Key, w.describe(t.Obj))
		}
	case "Mutate":
		fmt.Fprintf(&b, "%s, %q", w.describe(op.Obj), op.Set)
	}
	b.WriteString(")")
	return b.String()
}

// storeWeight is one entry of an operation mix.
type storeWeight struct {
	// kind is the op kind.
	kind string
	// weight is its relative frequency.
	weight int
}

// storeStoreMix is the op mix for Store and Indexer runs.
var storeStoreMix = []storeWeight{
	{"Add", 26}, {"Update", 22}, {"Delete", 20}, {"Replace", 2}, {"Resync", 2},
	{"Bookmark", 5}, {"AddIndexers", 1}, {"Transaction", 10}, {"Mutate", 2},
}

// storeThreadSafeMix is the op mix for ThreadSafeStore runs.
var storeThreadSafeMix = []storeWeight{
	{"Add", 26}, {"Update", 22}, {"Delete", 10}, {"DeleteWithObject", 10}, {"Replace", 2},
	{"Resync", 2}, {"Bookmark", 5}, {"AddIndexers", 1}, {"Transaction", 10}, {"Mutate", 2},
}

// storeMutateHeavyMix is the op mix of runs that hunt stale index entries:
// objects are often changed in place between writes, and no Replace or
// Resync wipes what the mutations leave behind. Delete is key-based on a
// ThreadSafeStore and object-based elsewhere; the unused kind never comes up
// for the other side because fillOp ignores what does not apply.
var storeMutateHeavyMix = []storeWeight{
	{"Add", 20}, {"Update", 15}, {"Delete", 15}, {"DeleteWithObject", 5},
	{"AddIndexers", 1}, {"Transaction", 10}, {"Mutate", 20}, {"MutateTags", 15},
}

// nextOp draws the next op from the mix; threadSafe selects key-based ops.
func (w *storeWorld) nextOp(mix []storeWeight, threadSafe bool) storeOp {
	total := 0
	for _, m := range mix {
		total += m.weight
	}
	n := w.rng.Intn(total)
	kind := mix[len(mix)-1].kind
	for _, m := range mix {
		if n < m.weight {
			kind = m.kind
			break
		}
		n -= m.weight
	}
	return w.fillOp(kind, threadSafe)
}

// fillOp draws the arguments of an op of the given kind.
func (w *storeWorld) fillOp(kind string, threadSafe bool) storeOp {
	op := storeOp{Kind: kind}
	switch kind {
	case "Add", "Update", "Delete", "DeleteWithObject":
		op.Obj = w.pickObject()
		if threadSafe {
			op.Key = w.keyFor(op.Obj)
		}
	case "Replace":
		op.RV = w.pick(w.resourceVersions)
		if threadSafe {
			op.Items = w.replaceItems()
		} else {
			op.Objs = w.replaceList()
		}
	case "Bookmark":
		op.RV = w.pick(w.resourceVersions)
	case "AddIndexers":
		op.Indexers = w.indexerNames()
	case "Transaction":
		op.Txns = w.transactions(threadSafe)
	case "Mutate":
		op.Obj = w.pickObject()
		op.Set = "app=" + w.pick(storeApps)
	case "MutateTags":
		op.Kind, op.Obj = "Mutate", w.pickObject()
		op.Set = "tags=" + w.pick(storeTags) + "," + w.pick(storeTags)
	}
	return op
}

// storeMutate performs a Mutate: it changes a label of op.Obj in place, as
// a controller that edits a cached object without copying it does. Both
// sides hold the very same object (unless a transformer copied it), so it
// runs once per op, not once per side. Objects without metadata and
// tombstones are left alone.
func storeMutate(op storeOp) string {
	if _, tomb := op.Obj.(storeTombstone); tomb {
		return "not mutable"
	}
	acc, err := meta.Accessor(op.Obj)
	if err != nil {
		return "not mutable"
	}
	name, value, _ := strings.Cut(op.Set, "=")
	labels := map[string]string{}
	for k, v := range acc.GetLabels() {
		labels[k] = v
	}
	if value == "" {
		delete(labels, name)
	} else {
		labels[name] = value
	}
	acc.SetLabels(labels)
	return "mutated"
}

// keyFor returns the object's own key most of the time, a random key else.
func (w *storeWorld) keyFor(obj any) string {
	if key := storeNeutralKey(obj); key != "no-key" && w.rng.Intn(5) != 0 {
		return key
	}
	return w.pickKey()
}

// replaceList draws 0..40 objects; most runs avoid invalid ones so the
// store is not emptied by errors too often.
func (w *storeWorld) replaceList() []any {
	n := w.rng.Intn(41)
	if n == 0 && w.rng.Intn(2) == 0 {
		return nil
	}
	clean := w.rng.Intn(4) != 0
	list := make([]any, 0, n)
	for len(list) < n {
		obj := w.pickObject()
		if clean && storeNeutralKey(obj) == "no-key" {
			continue
		}
		list = append(list, obj)
	}
	return list
}

// replaceItems draws 0..40 key/object pairs for a ThreadSafeStore Replace.
// It never returns a nil map: client-go's ThreadSafeStore keeps a nil map
// and panics on the next write (TestStoreIndexingPanicsLikeClientGo pins
// that), which would end a random run.
func (w *storeWorld) replaceItems() map[string]any {
	n := w.rng.Intn(41)
	items := make(map[string]any, n)
	for i := 0; i < n; i++ {
		obj := w.pickObject()
		items[w.keyFor(obj)] = obj
	}
	return items
}

// indexerNames draws 0..2 catalog names; sometimes a nil list.
func (w *storeWorld) indexerNames() []string {
	n := w.rng.Intn(3)
	if n == 0 && w.rng.Intn(2) == 0 {
		return nil
	}
	names := []string{}
	for i := 0; i < n; i++ {
		names = append(names, storeIndexCatalog[w.rng.Intn(len(storeIndexCatalog))].name)
	}
	return names
}

// transactions draws 0..6 transactions with any type and any object.
func (w *storeWorld) transactions(threadSafe bool) []storeTxn {
	n := w.rng.Intn(7)
	txns := make([]storeTxn, n)
	for i := range txns {
		txns[i] = storeTxn{Type: storeTxnTypes[w.rng.Intn(len(storeTxnTypes))], Obj: w.pickObject()}
		if threadSafe {
			txns[i].Key = w.keyFor(txns[i].Obj)
		}
	}
	return txns
}

// storeProbe says which reads to make after an op; both sides get the same.
type storeProbe struct {
	// objs are probed with Get (Store) and Index.
	objs []any
	// keys are probed with GetByKey / Get(key).
	keys []string
	// indexNames are probed with ListIndexFuncValues, ByIndex, IndexKeys, Index.
	indexNames []string
	// values[i] are the indexed values probed for indexNames[i].
	values [][]string
}

// nextProbe draws the reads for after op: its own object and key plus a
// random sample, every catalog index, an unknown index, and a few values.
func (w *storeWorld) nextProbe(op storeOp) storeProbe {
	p := storeProbe{
		objs: []any{w.pickObject(), w.pickObject()},
		keys: []string{w.pickKey(), w.pickKey(), w.pickKey()},
	}
	if op.Obj != nil {
		p.objs = append(p.objs, op.Obj)
		p.keys = append(p.keys, storeNeutralKey(op.Obj))
	}
	if op.Key != "" {
		p.keys = append(p.keys, op.Key)
	}
	for _, def := range storeIndexCatalog {
		p.indexNames = append(p.indexNames, def.name)
	}
	p.indexNames = append(p.indexNames, storeUnknownIndex)
	p.values = make([][]string, len(p.indexNames))
	for i := range p.values {
		p.values[i] = []string{w.pick(w.values), w.pick(w.values)}
	}
	return p
}
