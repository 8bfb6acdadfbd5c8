package cache

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// labelIndexFunc indexes a pod by every value of its "tags" label, a
// comma-separated list: zero, one or many values, with repeats.
func labelIndexFunc(obj interface{}) ([]string, error) {
	tags := obj.(*v1.Pod).Labels["tags"]
	if tags == "" {
		return nil, nil
	}
	return strings.Split(tags, ","), nil
}

func nodeIndexFunc(obj interface{}) ([]string, error) {
	return []string{obj.(*v1.Pod).Spec.NodeName}, nil
}

func taggedPod(ns, name, node, tags string) *v1.Pod {
	pod := &v1.Pod{Spec: v1.PodSpec{NodeName: node}}
	pod.Namespace, pod.Name = ns, name
	pod.Labels = map[string]string{"tags": tags}
	return pod
}

// randomWorkload is a reproducible stream of writes over a bounded key and
// value space.
type randomWorkload struct{ seed, ops, keys, values int }

func TestEveryIndexStaysExactUnderRandomWrites(t *testing.T) {
	for _, tt := range []randomWorkload{
		{seed: 1, ops: 4000, keys: 40, values: 3},   // few values: large key sets
		{seed: 2, ops: 4000, keys: 200, values: 90}, // many values: small key sets
		{seed: 3, ops: 4000, keys: 400, values: 4},  // sets that cross the slice/map boundary
	} {
		t.Run(fmt.Sprintf("seed=%d", tt.seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(int64(tt.seed)))
			indexers := Indexers{NamespaceIndex: MetaNamespaceIndexFunc, "node": nodeIndexFunc, "tags": labelIndexFunc}
			store := NewIndexer(MetaNamespaceKeyFunc, indexers)
			randomPod := func() *v1.Pod {
				tags := make([]string, rng.Intn(4))
				for i := range tags {
					tags[i] = fmt.Sprintf("t%d", rng.Intn(tt.values))
				}
				return taggedPod(fmt.Sprintf("ns%d", rng.Intn(3)), fmt.Sprintf("p%d", rng.Intn(tt.keys)),
					fmt.Sprintf("node%d", rng.Intn(tt.values)), strings.Join(tags, ","))
			}
			for op := 0; op < tt.ops; op++ {
				switch r := rng.Intn(100); {
				case r < 45:
					mustNoErr(t, store.Add(randomPod()))
				case r < 70:
					mustNoErr(t, store.Update(randomPod()))
				case r < 98:
					mustNoErr(t, store.Delete(randomPod()))
				default:
					list := make([]interface{}, rng.Intn(tt.keys))
					for i := range list {
						list[i] = randomPod()
					}
					mustNoErr(t, store.Replace(list, "7"))
				}
				if op%50 == 0 || op == tt.ops-1 {
					assertIndicesMatchContent(t, store, indexers)
				}
			}
		})
	}
}

// assertIndicesMatchContent recomputes every index from the stored objects
// and compares it with what the indexer answers.
func assertIndicesMatchContent(t *testing.T, store Indexer, indexers Indexers) {
	t.Helper()
	for name, fn := range indexers {
		want := map[string][]string{}
		for _, key := range store.ListKeys() {
			obj, _, _ := store.GetByKey(key)
			values, _ := fn(obj)
			seen := map[string]bool{}
			for _, v := range values {
				if !seen[v] {
					seen[v] = true
					want[v] = append(want[v], key)
				}
			}
		}
		gotValues := store.ListIndexFuncValues(name)
		if len(gotValues) != len(want) {
			t.Fatalf("index %q has %d values, want %d", name, len(gotValues), len(want))
		}
		for value, wantKeys := range want {
			gotKeys, err := store.IndexKeys(name, value)
			mustNoErr(t, err)
			sort.Strings(gotKeys)
			sort.Strings(wantKeys)
			if strings.Join(gotKeys, " ") != strings.Join(wantKeys, " ") {
				t.Fatalf("index %q value %q: keys %v, want %v", name, value, gotKeys, wantKeys)
			}
			objs, err := store.ByIndex(name, value)
			mustNoErr(t, err)
			if len(objs) != len(wantKeys) {
				t.Fatalf("ByIndex(%q, %q) gave %d objects, want %d", name, value, len(objs), len(wantKeys))
			}
		}
	}
}

func mustNoErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestUpdateRemovesKeyFromValuesItNoLongerHas(t *testing.T) {
	store := NewIndexer(MetaNamespaceKeyFunc, Indexers{"tags": labelIndexFunc})
	mustNoErr(t, store.Add(taggedPod("ns", "p", "", "a,b")))
	mustNoErr(t, store.Update(taggedPod("ns", "p", "", "b,c")))
	tests := []struct {
		value string
		want  int
	}{{"a", 0}, {"b", 1}, {"c", 1}}
	for _, tt := range tests {
		keys, err := store.IndexKeys("tags", tt.value)
		mustNoErr(t, err)
		if len(keys) != tt.want {
			t.Errorf("value %q has keys %v, want %d", tt.value, keys, tt.want)
		}
	}
	values := store.ListIndexFuncValues("tags")
	sort.Strings(values)
	if strings.Join(values, ",") != "b,c" {
		t.Fatalf("values = %v, want [b c]: a value without keys must disappear", values)
	}
}

func TestIndexReturnsObjectsSharingAnyValueOnce(t *testing.T) {
	store := NewIndexer(MetaNamespaceKeyFunc, Indexers{"tags": labelIndexFunc})
	mustNoErr(t, store.Add(taggedPod("ns", "p1", "", "a,b")))
	mustNoErr(t, store.Add(taggedPod("ns", "p2", "", "b")))
	mustNoErr(t, store.Add(taggedPod("ns", "p3", "", "c")))
	got, err := store.Index("tags", taggedPod("", "probe", "", "a,b,b"))
	mustNoErr(t, err)
	if len(got) != 2 {
		t.Fatalf("Index gave %d objects, want p1 and p2 once each", len(got))
	}
}

func TestReadsOfUnknownIndexAreErrors(t *testing.T) {
	store := NewIndexer(MetaNamespaceKeyFunc, Indexers{})
	const want = "Index with name nope does not exist"
	if _, err := store.Index("nope", testPod("a", "b", "")); err == nil || err.Error() != want {
		t.Errorf("Index: %v", err)
	}
	if _, err := store.ByIndex("nope", "a"); err == nil || err.Error() != want {
		t.Errorf("ByIndex: %v", err)
	}
	if _, err := store.IndexKeys("nope", "a"); err == nil || err.Error() != want {
		t.Errorf("IndexKeys: %v", err)
	}
	if got := store.ListIndexFuncValues("nope"); got == nil || len(got) != 0 {
		t.Errorf("ListIndexFuncValues = %#v, want an empty slice", got)
	}
}

func TestAddIndexersBackFillsAndRejectsNamesInUse(t *testing.T) {
	store := NewIndexer(MetaNamespaceKeyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc})
	mustNoErr(t, store.Add(taggedPod("ns", "p1", "n1", "")))
	mustNoErr(t, store.Add(taggedPod("ns", "p2", "n2", "")))

	err := store.AddIndexers(Indexers{NamespaceIndex: MetaNamespaceIndexFunc, "node": nodeIndexFunc})
	if err == nil || err.Error() != "indexer conflict: map[namespace:{}]" {
		t.Fatalf("conflicting AddIndexers: err = %v", err)
	}
	if _, err := store.ByIndex("node", "n1"); err == nil {
		t.Fatalf("a rejected AddIndexers must add nothing")
	}

	mustNoErr(t, store.AddIndexers(Indexers{"node": nodeIndexFunc}))
	got, err := store.ByIndex("node", "n1")
	mustNoErr(t, err)
	if len(got) != 1 {
		t.Fatalf("back-filled index holds %d objects for n1, want 1", len(got))
	}
	if n := len(store.GetIndexers()); n != 2 {
		t.Fatalf("GetIndexers has %d entries, want 2", n)
	}
}

func TestIndexFuncErrorPanicsWithKeyAndIndexName(t *testing.T) {
	failing := func(interface{}) ([]string, error) { return nil, fmt.Errorf("boom") }
	tests := []struct {
		name string
		run  func()
	}{
		{name: "add", run: func() {
			_ = NewIndexer(MetaNamespaceKeyFunc, Indexers{"bad": failing}).Add(testPod("a", "x", ""))
		}},
		{name: "add indexers over existing objects", run: func() {
			store := NewIndexer(MetaNamespaceKeyFunc, Indexers{})
			_ = store.Add(testPod("a", "x", ""))
			_ = store.AddIndexers(Indexers{"bad": failing})
		}},
	}
	const want = `unable to calculate an index entry for key "a/x" on index "bad": boom`
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				r := recover()
				err, ok := r.(error)
				if !ok || err.Error() != want {
					t.Fatalf("recovered %v, want panic %q", r, want)
				}
			}()
			tt.run()
		})
	}
}

func TestNewThreadSafeStoreLoadsGivenIndices(t *testing.T) {
	indices := Indices{NamespaceIndex: index{"ns": {"ns/p": {}}}}
	store := NewThreadSafeStore(Indexers{NamespaceIndex: MetaNamespaceIndexFunc}, indices)
	keys, err := store.IndexKeys(NamespaceIndex, "ns")
	mustNoErr(t, err)
	if len(keys) != 1 || keys[0] != "ns/p" {
		t.Fatalf("IndexKeys = %v, want [ns/p]", keys)
	}
}
