package cache

import (
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/kcache-go/cache/internal/records"
)

// appPod is a pod of namespace "a" with the given "app" label.
func appPod(name, app string) *v1.Pod {
	pod := &v1.Pod{}
	pod.Namespace, pod.Name = "a", name
	pod.Labels = map[string]string{"app": app}
	return pod
}

// appIndexFunc indexes a pod by its "app" label.
func appIndexFunc(obj interface{}) ([]string, error) {
	return []string{obj.(*v1.Pod).Labels["app"]}, nil
}

// staleStep is one step of a stale-index scenario: add, delete, replace
// (the whole content by key and pod) or mutate (relabel pod, or the pod
// added last when nil, in place).
type staleStep struct {
	op, key string
	pod     *v1.Pod
}

// checkEntryInvariants verifies, under the read lock, the records' own
// invariants (see records.Table.Verify: the free list, the marks, the live
// count), and that every record's state and membership count agree with
// the key table, the key sets and the detached map.
func checkEntryInvariants(t *testing.T, m *threadSafeMap) {
	t.Helper()
	m.lock.RLock()
	defer m.lock.RUnlock()
	r := &m.recs
	if err := r.Verify(); err != nil {
		t.Fatal(err)
	}
	refs := make([]int32, r.Len())
	indices := slices.Clone(m.indices.ordered)
	for _, vi := range m.indices.pending {
		indices = append(indices, vi)
	}
	for _, vi := range indices {
		for _, ks := range vi.byValue {
			ks.ForEach(func(id int32) { refs[id]++ })
		}
	}
	for id := range int32(r.Len()) {
		checkRecord(t, m, id, refs[id])
	}
	for key, id := range m.detached {
		if r.Object(id) != records.Detached || r.Key(id) != records.Plain(key) {
			t.Fatalf("detached %q names record %d, which is not its detached record", key, id)
		}
	}
	if r.Live() != m.table.Len() {
		t.Fatalf("%d stored records, table holds %d", r.Live(), m.table.Len())
	}
}

// checkRecord verifies one record of checkEntryInvariants: refs is the
// number of key sets holding it.
func checkRecord(t *testing.T, m *threadSafeMap, id, refs int32) {
	t.Helper()
	r := &m.recs
	rk, obj := r.Key(id), r.Object(id)
	key := rk.String()
	switch {
	case obj == records.Detached:
		if d, ok := m.detached[key]; !ok || d != id || refs == 0 || *r.Refs(id) != refs || m.table.Find(rk, r) >= 0 {
			t.Fatalf("detached record %d (%q): detached has %d %v, refs %d, held by %d, in table %v", id, key, d, ok, *r.Refs(id), refs, m.table.Find(rk, r) >= 0)
		}
	case records.IsHole(obj):
		if refs != 0 {
			t.Fatalf("free record %d held by %d key sets", id, refs)
		}
	default:
		if m.table.Find(rk, r) != id || m.table.Find(records.Plain(key), r) != id || *r.Refs(id) != refs {
			t.Fatalf("stored record %d (%q): table gives %d, refs %d, held by %d", id, key, m.table.Find(rk, r), *r.Refs(id), refs)
		}
		if _, dup := m.detached[key]; dup {
			t.Fatalf("stored record %d (%q) also detached", id, key)
		}
	}
}

// renderObjects renders index results as sorted "name" or "nil".
func renderObjects(objs []interface{}) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		if o == nil {
			out = append(out, "nil")
			continue
		}
		out = append(out, o.(*v1.Pod).Name+"="+o.(*v1.Pod).Labels["app"])
	}
	sort.Strings(out)
	return out
}

func TestADeletedEntryWithAStaleIndexMemberReadsAsNilAndNeverAsAnotherObject(t *testing.T) {
	x, w := appPod("x", "x"), appPod("w", "w")
	cases := []struct {
		name    string
		indices Indices
		steps   []staleStep
		// want is ByIndex("app", "x") after the steps, sorted.
		want []string
		// wantKeys is IndexKeys("app", "x") after the steps, sorted.
		wantKeys []string
	}{
		{
			name: "object changed in place, then deleted, another object in its slot",
			steps: []staleStep{
				{op: "add", key: "a/x", pod: x}, {op: "add", key: "a/w", pod: w},
				{op: "mutate", pod: x}, {op: "delete", key: "a/x"},
			},
			want: []string{"nil"}, wantKeys: []string{"a/x"},
		},
		{
			name: "object changed in place in the last slot, then deleted (was out of range)",
			steps: []staleStep{
				{op: "add", key: "a/w", pod: w}, {op: "add", key: "a/last", pod: appPod("last", "x")},
				{op: "mutate", pod: nil}, {op: "delete", key: "a/last"},
			},
			want: []string{"nil"}, wantKeys: []string{"a/last"},
		},
		{
			name: "stale key stored again resolves to its new object",
			steps: []staleStep{
				{op: "add", key: "a/x", pod: x}, {op: "add", key: "a/w", pod: w},
				{op: "mutate", pod: x}, {op: "delete", key: "a/x"},
				{op: "add", key: "a/x", pod: appPod("x", "z")},
			},
			want: []string{"x=z"}, wantKeys: []string{"a/x"},
		},
		{
			name:    "key named by given Indices, stored under another value, then deleted",
			indices: Indices{"app": {"x": sets.New("a/k1", "a/k9")}},
			steps: []staleStep{
				{op: "add", key: "a/k1", pod: appPod("k1", "y")}, {op: "add", key: "a/k2", pod: appPod("k2", "w")},
				{op: "delete", key: "a/k1"},
			},
			want: []string{"nil", "nil"}, wantKeys: []string{"a/k1", "a/k9"},
		},
		{
			name: "Replace drops stale members",
			steps: []staleStep{
				{op: "add", key: "a/x", pod: x}, {op: "mutate", pod: x}, {op: "delete", key: "a/x"},
				{op: "replace", key: "a/w", pod: w},
			},
			want: []string{}, wantKeys: []string{},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x.Labels["app"] = "x" // cases share x; each starts from its original label
			m := newThreadSafeMap(Indexers{"app": appIndexFunc}, tc.indices)
			var lastAdded *v1.Pod
			for _, s := range tc.steps {
				switch s.op {
				case "add":
					m.Add(s.key, s.pod)
					lastAdded = s.pod
				case "mutate":
					target := s.pod
					if target == nil {
						target = lastAdded
					}
					target.Labels = map[string]string{"app": "moved"}
				case "delete":
					m.Delete(s.key)
				case "replace":
					m.Replace(map[string]interface{}{s.key: s.pod}, "1")
				}
				checkEntryInvariants(t, m)
			}
			objs, err := m.ByIndex("app", "x")
			if err != nil {
				t.Fatal(err)
			}
			if got := renderObjects(objs); !equalStrings(got, tc.want) {
				t.Errorf("ByIndex = %v, want %v", got, tc.want)
			}
			keys, _ := m.IndexKeys("app", "x")
			sort.Strings(keys)
			if !equalStrings(keys, tc.wantKeys) {
				t.Errorf("IndexKeys = %v, want %v", keys, tc.wantKeys)
			}
			byObj, _ := m.Index("app", appPod("probe", "x"))
			if got := renderObjects(byObj); !equalStrings(got, tc.want) {
				t.Errorf("Index = %v, want %v", got, tc.want)
			}
		})
	}
}

// heapAfterGC returns the live heap after a full collection.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func TestRepeatedMutateAndDeleteCyclesOfTheSameKeysKeepTheDetachedEntriesBounded(t *testing.T) {
	m := newThreadSafeMap(Indexers{"app": appIndexFunc}, Indices{})
	const keys = 64
	cycle := func() {
		for i := 0; i < keys; i++ {
			key := "a/p" + strconv.Itoa(i)
			pod := appPod("p"+strconv.Itoa(i), "before")
			m.Add(key, pod)
			pod.Labels = map[string]string{"app": "after-" + strconv.Itoa(i%4)}
			m.Delete(key)
		}
	}
	for i := 0; i < 100; i++ {
		cycle()
	}
	base := heapAfterGC()
	for i := 0; i < 20000; i++ {
		cycle()
	}
	checkEntryInvariants(t, m)
	if n := len(m.detached); n != keys {
		t.Fatalf("detached holds %d entries after the cycles, want %d (one per key)", n, keys)
	}
	// NB: the bound is loose (other tests' garbage may still be live); an
	// entry leaked per cycle would add over a megabyte per 1000 cycles.
	if grown := int64(heapAfterGC()) - int64(base); grown > 1<<20 {
		t.Fatalf("heap grew by %d bytes over 20000 mutate/delete cycles of the same %d keys", grown, keys)
	}
}

func TestIndexReadsRaceFreeWithAWriterThatLeavesStaleMembers(t *testing.T) {
	m := newThreadSafeMap(Indexers{"app": appIndexFunc}, Indices{})
	// The writer changes stored pods' labels in place (leaving stale index
	// members); readers never read labels of stored pods, only their names,
	// so the test itself has no data race.
	done := make(chan struct{})
	var wg sync.WaitGroup
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				for _, v := range []string{"x", "y", "moved"} {
					objs, _ := m.ByIndex("app", v)
					for _, o := range objs {
						if o != nil && o.(*v1.Pod).Name == "" {
							t.Error("an index read returned a pod without a name")
						}
					}
					_, _ = m.IndexKeys("app", v)
					_, _ = m.Index("app", appPod("probe", v))
				}
				_ = m.ListIndexFuncValues("app")
				_ = m.List()
				_ = m.ListKeys()
				_, _ = m.Get("a/p1")
			}
		}()
	}
	for i := 0; i < 3000; i++ {
		key := "a/p" + strconv.Itoa(i%7)
		pod := appPod("p"+strconv.Itoa(i%7), "x")
		m.Add(key, pod)
		pod.Labels = map[string]string{"app": "moved"}
		m.Update(key, appPod("p"+strconv.Itoa(i%7), "y"))
		other := appPod("p"+strconv.Itoa(i%5), "x")
		m.Transaction(ThreadSafeStoreTransaction{Transaction: Transaction{Type: TransactionTypeAdd, Object: other}, Key: "a/p" + strconv.Itoa(i%5)})
		other.Labels = map[string]string{"app": "y"}
		m.Delete("a/p" + strconv.Itoa(i%3))
		if i%500 == 0 {
			m.Replace(map[string]interface{}{"a/p1": appPod("p1", "x")}, strconv.Itoa(i))
		}
	}
	close(done)
	wg.Wait()
	checkEntryInvariants(t, m)
}
