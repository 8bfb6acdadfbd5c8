package cache

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"
	"weak"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestRewritingAStoredPodWithTheLibrarysKeyAndNamespaceFunctionsDoesNotAllocate(t *testing.T) {
	cases := []struct {
		name    string
		keyFunc KeyFunc
	}{
		{name: "MetaNamespaceKeyFunc", keyFunc: MetaNamespaceKeyFunc},
		{name: "DeletionHandlingMetaNamespaceKeyFunc", keyFunc: DeletionHandlingMetaNamespaceKeyFunc},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			idx := NewIndexer(tc.keyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc})
			pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web-0", ResourceVersion: "7"}}
			if err := idx.Add(pod); err != nil {
				t.Fatal(err)
			}
			allocs := testing.AllocsPerRun(100, func() {
				_ = idx.Update(pod)
				_, _, _ = idx.Get(pod)
			})
			if allocs != 0 {
				t.Fatalf("%v allocations per Update and Get, want 0", allocs)
			}
			if keys := idx.ListKeys(); len(keys) != 1 || keys[0] != "team-a/web-0" {
				t.Fatalf("keys %v, want [team-a/web-0]", keys)
			}
		})
	}
}

func TestTheStoreRecognisesOnlyTheLibrarysOwnKeyFunctions(t *testing.T) {
	wrapped := func(obj interface{}) (string, error) { return MetaNamespaceKeyFunc(obj) }
	cases := []struct {
		name string
		fn   KeyFunc
		want keyFuncKind
	}{
		{name: "MetaNamespaceKeyFunc", fn: MetaNamespaceKeyFunc, want: keyFuncMetaNamespace},
		{name: "DeletionHandlingMetaNamespaceKeyFunc", fn: DeletionHandlingMetaNamespaceKeyFunc, want: keyFuncDeletionHandling},
		{name: "a wrapper", fn: wrapped, want: keyFuncOther},
		{name: "nil", fn: nil, want: keyFuncOther},
	}
	for _, tc := range cases {
		if got := keyFuncKindOf(tc.fn); got != tc.want {
			t.Errorf("%s: kind %d, want %d", tc.name, got, tc.want)
		}
	}
	if !isMetaNamespaceIndexFunc(MetaNamespaceIndexFunc) || isMetaNamespaceIndexFunc(func(interface{}) ([]string, error) { return nil, nil }) {
		t.Error("MetaNamespaceIndexFunc not told apart from another IndexFunc")
	}
}

// namedPodWithOwnStrings returns a pod whose namespace and name are their
// own allocations (too large for the tiny allocator), and a weak pointer to
// the name's bytes.
func namedPodWithOwnStrings(ns, name string) (*v1.Pod, weak.Pointer[byte]) {
	ns, name = strings.Clone(ns), strings.Clone(name)
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: "1"}}
	return pod, weak.Make(unsafe.StringData(name))
}

func TestWritingAStoredKeyAgainLetsTheReplacedObjectsNameGo(t *testing.T) {
	name := "web-" + strings.Repeat("x", 60)
	cases := []struct {
		name string
		// write stores next, a pod with the same key as the first.
		write func(t *testing.T, idx Indexer, next *v1.Pod)
	}{
		{name: "Update through the store", write: func(t *testing.T, idx Indexer, next *v1.Pod) {
			if err := idx.Update(next); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "Replace", write: func(t *testing.T, idx Indexer, next *v1.Pod) {
			if err := idx.Replace([]interface{}{next}, "2"); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "Transaction", write: func(t *testing.T, idx Indexer, next *v1.Pod) {
			if err := idx.(TransactionStore).Transaction(Transaction{Object: next, Type: TransactionTypeUpdate}); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "Update of the ThreadSafeStore by key", write: func(t *testing.T, idx Indexer, next *v1.Pod) {
			idx.(*cache).threadSafeMap.Update("team-a/"+name, next)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			idx := NewIndexer(MetaNamespaceKeyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc})
			first, firstName := namedPodWithOwnStrings("team-a", name)
			if err := idx.Add(first); err != nil {
				t.Fatal(err)
			}
			next, _ := namedPodWithOwnStrings("team-a", name)
			tc.write(t, idx, next)
			first = nil
			runtime.GC()
			if firstName.Value() != nil {
				t.Fatal("the replaced pod's name is still reachable from the store")
			}
			if item, ok, _ := idx.GetByKey("team-a/" + name); !ok || item != next {
				t.Fatalf("GetByKey = %v, %v; want the next pod", item, ok)
			}
			if keys := idx.ListKeys(); len(keys) != 1 || keys[0] != "team-a/"+name {
				t.Fatalf("keys %q", keys)
			}
		})
	}
}

func TestAddingANewNamedObjectAllocatesNoKey(t *testing.T) {
	idx := NewIndexer(MetaNamespaceKeyFunc, Indexers{})
	pods := make([]*v1.Pod, 2000)
	for i := range pods {
		pods[i] = &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web-" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + strconv.Itoa(i)}}
	}
	// Fill past the first chunk and let the table grow, then measure
	// Delete and Add back of stored keys: no growth, so any allocation
	// would be the key's.
	for _, p := range pods {
		_ = idx.Add(p)
	}
	tx := idx.(TransactionStore)
	txns := make([]Transaction, 2)
	cases := []struct {
		name string
		// rewrite deletes p and adds it back.
		rewrite func(p *v1.Pod)
		// want is the allocations the calls make beyond the key.
		want float64
	}{
		{name: "Delete and Add", rewrite: func(p *v1.Pod) { _ = idx.Delete(p); _ = idx.Add(p) }},
		{name: "one Transaction (its two key slices)", want: 2, rewrite: func(p *v1.Pod) {
			txns[0] = Transaction{Object: p, Type: TransactionTypeDelete}
			txns[1] = Transaction{Object: p, Type: TransactionTypeAdd}
			_ = tx.Transaction(txns...)
		}},
	}
	for _, tc := range cases {
		i := 0
		allocs := testing.AllocsPerRun(1000, func() {
			tc.rewrite(pods[i%len(pods)])
			i++
		})
		if allocs != tc.want {
			t.Errorf("%s: %v allocations per rewrite of a named pod, want %v", tc.name, allocs, tc.want)
		}
	}
}
