package conformance

import (
	"fmt"
	"strings"
	"testing"

	kc "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cg "k8s.io/client-go/tools/cache"
)

// orderPod is a pod of the IndexKeys order tests: in namespace ns (empty:
// cluster-scoped key), labelled group=group.
func orderPod(ns, name, group string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"group": group}}}
}

// orderGroupIndex indexes a pod by its group label.
func orderGroupIndex(obj any) ([]string, error) {
	return []string{obj.(*v1.Pod).Labels["group"]}, nil
}

// orderOps is the write sequence of the IndexKeys order tests: names added
// out of order (cluster-scoped and namespaced keys mixed, so "/" sorts
// among names), some deleted and added again (kcache reuses their record
// ids), and one group grown past a key set's list form into a hash set.
func orderOps() []*v1.Pod {
	var pods []*v1.Pod
	for _, n := range []string{"zeta", "alpha", "mid", "beta", "omega", "delta"} {
		pods = append(pods, orderPod("ns", n, "small"), orderPod("", n, "small"), orderPod("a", n+"-x", "small"))
	}
	for i := 0; i < 150; i++ {
		// NB: a stride coprime with 150, so the names come out of order.
		pods = append(pods, orderPod("big", fmt.Sprintf("p%03d", (i*67)%150), "big"))
	}
	return pods
}

// orderDeleted are the keys deleted and then added again.
var orderDeleted = []string{"ns/alpha", "mid", "big/p007", "big/p100"}

// indexKeysTrace runs the write sequence through add and del, and prints
// IndexKeys of both groups, in the order returned, after the adds and after
// the deletes and re-adds.
func indexKeysTrace(add func(key string, obj any), del func(key string), indexKeys func(string, string) ([]string, error)) string {
	var b strings.Builder
	read := func(when string) {
		for _, g := range []string{"small", "big", "none"} {
			keys, err := indexKeys("group", g)
			fmt.Fprintf(&b, "%s %s: nil=%v %s err=%v\n", when, g, keys == nil, strings.Join(keys, ","), err)
		}
		keys, err := indexKeys("no-such-index", "small")
		fmt.Fprintf(&b, "%s unknown index: nil=%v %v err=%v\n", when, keys == nil, keys, err)
	}
	byKey := map[string]*v1.Pod{}
	for _, p := range orderOps() {
		key, _ := cg.MetaNamespaceKeyFunc(p)
		byKey[key] = p
		add(key, p)
	}
	read("added")
	for _, key := range orderDeleted {
		del(key)
	}
	read("deleted")
	for i := len(orderDeleted) - 1; i >= 0; i-- {
		add(orderDeleted[i], byKey[orderDeleted[i]])
	}
	read("re-added")
	return b.String()
}

// TestIndexKeysAreSortedAsInClientGo pins the order of IndexKeys: client-go
// returns an index value's keys sorted, for Indexer and ThreadSafeStore
// alike, whatever the order of the writes.
func TestIndexKeysAreSortedAsInClientGo(t *testing.T) {
	cases := []struct {
		name   string
		cg, kc func() string
	}{
		{"Indexer", func() string {
			s := cg.NewIndexer(cg.MetaNamespaceKeyFunc, cg.Indexers{"group": orderGroupIndex})
			return indexKeysTrace(func(_ string, o any) { s.Add(o) }, func(k string) { s.Delete(cg.ExplicitKey(k)) }, s.IndexKeys)
		}, func() string {
			s := kc.NewIndexer(kc.MetaNamespaceKeyFunc, kc.Indexers{"group": orderGroupIndex})
			return indexKeysTrace(func(_ string, o any) { s.Add(o) }, func(k string) { s.Delete(kc.ExplicitKey(k)) }, s.IndexKeys)
		}},
		{"ThreadSafeStore", func() string {
			s := cg.NewThreadSafeStore(cg.Indexers{"group": orderGroupIndex}, cg.Indices{})
			return indexKeysTrace(s.Add, s.Delete, s.IndexKeys)
		}, func() string {
			s := kc.NewThreadSafeStore(kc.Indexers{"group": orderGroupIndex}, kc.Indices{})
			return indexKeysTrace(s.Add, s.Delete, s.IndexKeys)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got, want := c.kc(), c.cg(); got != want {
				t.Errorf("kcache:\n%s\nclient-go:\n%s", got, want)
			}
		})
	}
}
