package conformance

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// An IndexFunc that hands back the same slice on every call, overwriting
// its previous result (a buffer kept to spare allocations), makes the
// store read an earlier result after a later call changed it. client-go's
// index content is then its own; kcache's must be the same.

// reusingIndexFunc returns an IndexFunc that splits a pod's "tags" label on
// commas into one buffer it reuses for every call, in one of three ways:
// "append-each" appends the values one by one to the emptied buffer
// (growing it as results get longer), "fixed-array" copies them into an
// array of 16, "presized" appends them at once to a buffer made with room
// for 16. (A function appending a longer result at once to a buffer too
// short for it is left out: see README, "Update calls an IndexFunc on the
// old object only when it must".)
func reusingIndexFunc(kind string) func(obj any) ([]string, error) {
	var buf []string
	var fixed [16]string
	if kind == "presized" {
		buf = make([]string, 0, 16)
	}
	return func(obj any) ([]string, error) {
		var parts []string
		if tags := obj.(*v1.Pod).Labels["tags"]; tags != "" {
			parts = strings.Split(tags, ",")
		}
		switch kind {
		case "fixed-array":
			return fixed[:copy(fixed[:], parts)], nil
		case "presized":
			buf = append(buf[:0], parts...)
			return buf, nil
		}
		buf = buf[:0]
		for _, part := range parts {
			buf = append(buf, part)
		}
		return buf, nil
	}
}

// reusedTags are the label values the random writes choose from: single
// values, several, more than any earlier result (the buffer grows), none.
var reusedTags = []string{"a", "b", "a,b", "c,d,e", "b,c", "", "f,g,h,i,j", "a"}

// reusedOp is one write of the random runs.
type reusedOp struct {
	kind string
	name string
	tags string
	// batch holds the names and tags of a Replace or a Transaction.
	batch [][2]string
}

// randomReusedOps draws n writes over five names.
func randomReusedOps(rng *rand.Rand, n int) []reusedOp {
	names := []string{"p0", "p1", "p2", "p3", "p4"}
	kinds := []string{"Add", "Update", "Update", "Update", "Delete", "Replace", "Transaction", "AddIndexers"}
	ops := make([]reusedOp, n)
	for i := range ops {
		op := reusedOp{kind: kinds[rng.Intn(len(kinds))], name: names[rng.Intn(len(names))], tags: reusedTags[rng.Intn(len(reusedTags))]}
		if op.kind == "Replace" || op.kind == "Transaction" {
			for j := rng.Intn(4); j >= 0; j-- {
				op.batch = append(op.batch, [2]string{names[rng.Intn(len(names))], reusedTags[rng.Intn(len(reusedTags))]})
			}
		}
		ops[i] = op
	}
	return ops
}

// reusedPod is the pod a write stores.
func reusedPod(name, tags string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: map[string]string{"tags": tags}}}
}

// reusedSide is one library's Indexer or ThreadSafeStore under the random
// writes, with its index reads.
type reusedSide struct {
	apply     func(op reusedOp, addedIndex int)
	values    func(name string) []string
	indexKeys func(name, value string) ([]string, error)
}

// reusedContent prints every value and its keys of the named indices.
func reusedContent(s reusedSide, names []string) string {
	var b strings.Builder
	for _, name := range names {
		values := s.values(name)
		sort.Strings(values)
		fmt.Fprintf(&b, "%s:", name)
		for _, v := range values {
			keys, err := s.indexKeys(name, v)
			fmt.Fprintf(&b, " %s=%s%v", v, strings.Join(keys, ","), storeErrSuffix(err))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// storeErrSuffix prints a non-nil error after a read.
func storeErrSuffix(err error) string {
	if err == nil {
		return ""
	}
	return "(" + err.Error() + ")"
}

// newReusedSide builds lib's side: kind is "Indexer" or "ThreadSafeStore",
// reuse the reusingIndexFunc kind; shared puts one reusing function under
// both initial index names.
func newReusedSide(lib storeLib, kind, reuse string, shared bool) reusedSide {
	first := reusingIndexFunc(reuse)
	second := reusingIndexFunc(reuse)
	if shared {
		second = first
	}
	build := storeBuild{indexers: func([]string) storeIndexFuncs { return storeIndexFuncs{"tags": first, "tags-2": second} }}
	if kind == "Indexer" {
		ix := lib.build(storeRow{Kind: "indexer", KeyFunc: "MetaNamespaceKeyFunc", Indexers: []string{"tags", "tags-2"}}, build).(storeIndexer)
		return reusedSideOf(lib, ix, reuse, func(op reusedOp) { reusedWriteIndexer(lib, ix, op) })
	}
	ts := lib.build(storeRow{Kind: "threadSafeStore", Indexers: []string{"tags", "tags-2"}}, build).(storeThreadSafe)
	return reusedSideOf(lib, ts, reuse, func(op reusedOp) { reusedWriteThreadSafe(lib, ts, op) })
}

// reusedSideOf is the side over subject, lib's Indexer or ThreadSafeStore:
// write applies the writes, AddIndexers adds a reusing function.
func reusedSideOf(lib storeLib, subject storeIndexReader, reuse string, write func(op reusedOp)) reusedSide {
	return reusedSide{
		values:    subject.ListIndexFuncValues,
		indexKeys: subject.IndexKeys,
		apply: func(op reusedOp, added int) {
			if op.kind != "AddIndexers" {
				write(op)
				return
			}
			lib.addIndexers(subject, storeIndexFuncs{fmt.Sprint("added-", added): reusingIndexFunc(reuse)})
		},
	}
}

// reusedTxns are the transactions of a batch: Update, Add and Delete in turn.
func reusedTxns(batch [][2]string) []storeTxn {
	var txns []storeTxn
	for i, p := range batch {
		typ := []string{"Update", "Add", "Delete"}[i%3]
		txns = append(txns, storeTxn{Type: typ, Obj: reusedPod(p[0], p[1]), Key: p[0]})
	}
	return txns
}

// reusedWriteIndexer applies a write other than AddIndexers to lib's Indexer.
func reusedWriteIndexer(lib storeLib, ix storeIndexer, op reusedOp) {
	switch op.kind {
	case "Add":
		ix.Add(reusedPod(op.name, op.tags))
	case "Update":
		ix.Update(reusedPod(op.name, op.tags))
	case "Delete":
		ix.Delete(reusedPod(op.name, op.tags))
	case "Replace":
		var list []any
		for _, p := range op.batch {
			list = append(list, reusedPod(p[0], p[1]))
		}
		ix.Replace(list, "1")
	case "Transaction":
		if _, ok := lib.transact(ix, reusedTxns(op.batch), func(obj any) any { return obj }); !ok {
			panic("not a TransactionStore")
		}
	}
}

// reusedWriteThreadSafe applies a write other than AddIndexers to lib's
// ThreadSafeStore.
func reusedWriteThreadSafe(lib storeLib, ts storeThreadSafe, op reusedOp) {
	switch op.kind {
	case "Add":
		ts.Add(op.name, reusedPod(op.name, op.tags))
	case "Update":
		ts.Update(op.name, reusedPod(op.name, op.tags))
	case "Delete":
		ts.Delete(op.name)
	case "Replace":
		items := map[string]any{}
		for _, p := range op.batch {
			items[p[0]] = reusedPod(p[0], p[1])
		}
		ts.Replace(items, "1")
	case "Transaction":
		if !lib.transactThreadSafe(ts, reusedTxns(op.batch), func(obj any) any { return obj }) {
			panic("not a ThreadSafeStoreWithTransaction")
		}
	}
}

// TestAnIndexFuncThatReusesItsResultSliceGivesClientGosIndexContent plays
// seeded random writes (Add, Update, Delete, Replace, transactions,
// AddIndexers) with IndexFuncs that overwrite one result slice on every
// call, on client-go's and kcache's Indexer and ThreadSafeStore, one
// function per index or one shared by two, and compares every index's
// values and keys after every write.
func TestAnIndexFuncThatReusesItsResultSliceGivesClientGosIndexContent(t *testing.T) {
	for _, kind := range []string{"Indexer", "ThreadSafeStore"} {
		for _, reuse := range []string{"append-each", "fixed-array", "presized"} {
			for _, shared := range []bool{false, true} {
				for seed := int64(1); seed <= 25; seed++ {
					t.Run(fmt.Sprintf("%s/%s/shared=%v/seed=%d", kind, reuse, shared, seed), func(t *testing.T) {
						playReused(t, seed, newReusedSide(storeClientGo{}, kind, reuse, shared), newReusedSide(storeKCache{}, kind, reuse, shared))
					})
				}
			}
		}
	}
}

// playReused plays the random writes of seed on want (client-go) and got
// (kcache), comparing the index content after each.
func playReused(t *testing.T, seed int64, want, got reusedSide) {
	t.Helper()
	ops := randomReusedOps(rand.New(rand.NewSource(seed)), 60)
	names := []string{"tags", "tags-2"}
	for i, op := range ops {
		want.apply(op, len(names))
		got.apply(op, len(names))
		if op.kind == "AddIndexers" {
			names = append(names, fmt.Sprint("added-", len(names)))
		}
		if w, g := reusedContent(want, names), reusedContent(got, names); w != g {
			t.Fatalf("after op#%d %+v:\nclient-go:\n%skcache:\n%s", i, op, w, g)
		}
	}
}
