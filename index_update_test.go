package cache

import (
	"fmt"
	"math/rand"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/kcache-go/cache/internal/keyset"
	"github.com/kcache-go/cache/internal/records"
)

// updateTestPod is a pod in namespace ns named name with label app=app (no
// label when app is "").
func updateTestPod(ns, name, app string) *v1.Pod {
	p := testPod(ns, name, "1")
	if app != "" {
		p.Labels = map[string]string{"app": app}
	}
	return p
}

// oldCallCounter is an IndexFunc by the app label that counts its calls
// on one object, the old one of the Update under test.
type oldCallCounter struct {
	old   interface{}
	calls int
}

func (c *oldCallCounter) index(obj interface{}) ([]string, error) {
	if obj == c.old {
		c.calls++
	}
	app := obj.(*v1.Pod).Labels["app"]
	if app == "" {
		return nil, nil
	}
	return []string{app}, nil
}

func TestUpdateCallsAnIndexFuncOnTheOldObjectOnlyWhenTheRecordIsNotAlreadyUnderTheNewValues(t *testing.T) {
	tests := []struct {
		name string
		// before runs on the stored old object and the store before the
		// Update under test.
		before    func(old *v1.Pod, s ThreadSafeStore)
		newApp    string
		wantCalls int
		// stale: the record stays under its stale value only, as in
		// client-go (old and new objects give one same value).
		stale bool
	}{
		{name: "the value did not change", newApp: "web", wantCalls: 0},
		{name: "the value changed", newApp: "db", wantCalls: 1},
		{name: "the value went away", newApp: "", wantCalls: 1},
		{
			name:      "the old object was changed in place to the new value",
			before:    func(old *v1.Pod, _ ThreadSafeStore) { old.Labels["app"] = "db" },
			newApp:    "db",
			wantCalls: 1,
			stale:     true,
		},
		{
			name:      "the old object was changed in place but the new one has the indexed value",
			before:    func(old *v1.Pod, _ ThreadSafeStore) { old.Labels["app"] = "db" },
			newApp:    "web",
			wantCalls: 0,
		},
		{
			name: "an IndexFunc panicked out of an earlier write",
			before: func(_ *v1.Pod, s ThreadSafeStore) {
				defer func() { _ = recover() }()
				s.Add("ns/panics", "not a pod")
			},
			newApp:    "web",
			wantCalls: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := updateTestPod("ns", "p", "web")
			counter := &oldCallCounter{old: old}
			s := NewThreadSafeStore(Indexers{"app": counter.index, NamespaceIndex: MetaNamespaceIndexFunc}, Indices{})
			s.Add("ns/p", old)
			if tt.before != nil {
				tt.before(old, s)
			}
			counter.calls = 0
			s.Update("ns/p", updateTestPod("ns", "p", tt.newApp))
			if counter.calls != tt.wantCalls {
				t.Errorf("the app IndexFunc ran %d times on the old object, want %d", counter.calls, tt.wantCalls)
			}
			keys, _ := s.IndexKeys("app", tt.newApp)
			if tt.newApp != "" && !tt.stale && (len(keys) != 1 || keys[0] != "ns/p") {
				t.Errorf("IndexKeys(app, %q) = %q, want [ns/p]", tt.newApp, keys)
			}
		})
	}
}

func TestIndicesGivenAnEmptyValueSetAreNotTrustedUntilAReplace(t *testing.T) {
	old := updateTestPod("ns", "p", "web")
	counter := &oldCallCounter{old: old}
	s := NewThreadSafeStore(Indexers{"app": counter.index}, Indices{"app": {"gone": sets.New[string]()}})
	s.Add("ns/p", old)
	counter.calls = 0
	s.Update("ns/p", updateTestPod("ns", "p", "web"))
	if counter.calls != 1 {
		t.Fatalf("with an empty value set given, the IndexFunc ran %d times on the old object, want 1", counter.calls)
	}
	s.Replace(map[string]interface{}{"ns/p": old}, "2")
	counter.calls = 0
	s.Update("ns/p", updateTestPod("ns", "p", "web"))
	if counter.calls != 0 {
		t.Fatalf("after a Replace, the IndexFunc ran %d times on the old object, want 0", counter.calls)
	}
}

func TestAnUpdateThatChangesNoIndexedValueAllocatesOnlyTheNewObjectsValues(t *testing.T) {
	byApp := func(obj interface{}) ([]string, error) {
		return []string{obj.(*v1.Pod).Labels["app"]}, nil
	}
	idx := NewIndexer(MetaNamespaceKeyFunc, Indexers{"app": byApp, NamespaceIndex: MetaNamespaceIndexFunc})
	versions := [2]*v1.Pod{updateTestPod("ns", "p", "web"), updateTestPod("ns", "p", "web")}
	if err := idx.Add(versions[0]); err != nil {
		t.Fatal(err)
	}
	i := 0
	allocs := testing.AllocsPerRun(100, func() {
		i++
		if err := idx.Update(versions[i%2]); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 1 {
		t.Fatalf("Update made %v allocations, want 1 (the app IndexFunc's result on the new object)", allocs)
	}
}

func TestTheSoleColumnNamesTheOneKeySetOfEveryRecordHeldByOne(t *testing.T) {
	tests := []struct {
		name string
		seed int64
		keys int
	}{
		{"few keys, much id reuse", 1, 20},
		{"records across a chunk boundary", 2, records.ChunkSize + 300},
		{"another run", 3, 200},
	}
	byLabels := func(obj interface{}) ([]string, error) {
		var values []string
		for k, v := range obj.(*v1.Pod).Labels {
			values = append(values, k+"="+v)
		}
		return values, nil
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewSource(tt.seed))
			s := NewThreadSafeStore(Indexers{"labels": byLabels, NamespaceIndex: MetaNamespaceIndexFunc}, Indices{}).(*threadSafeMap)
			stored := map[string]*v1.Pod{}
			for step := 0; step < 6*tt.keys; step++ {
				key := fmt.Sprintf("ns-%d/p-%d", rng.Intn(3), rng.Intn(tt.keys))
				switch op := rng.Intn(10); {
				case op < 3:
					s.Delete(key)
					delete(stored, key)
				case op < 4 && stored[key] != nil:
					stored[key].Labels = randomLabels(rng) // NB: changed in place.
				default:
					p := testPod(key[:4], key[5:], "1")
					p.Labels = randomLabels(rng)
					s.Update(key, p)
					stored[key] = p
				}
			}
			for _, vi := range s.indices.ordered {
				checkSoleColumn(t, vi, s.recs.Len())
			}
		})
	}
}

// randomLabels returns zero to three labels from a small set of values.
func randomLabels(rng *rand.Rand) map[string]string {
	labels := map[string]string{}
	for i := rng.Intn(4); i > 0; i-- {
		labels[fmt.Sprintf("k%d", rng.Intn(3))] = fmt.Sprintf("v%d", rng.Intn(3))
	}
	return labels
}

// checkSoleColumn checks vi's sole entries of records 0 to n-1 against the
// key sets, and the set numbers against the set table.
func checkSoleColumn(t *testing.T, vi *valueIndex, n int) {
	t.Helper()
	holders := map[int32][]*keyset.Set{}
	for value, ks := range vi.byValue {
		if got := vi.sets.At(ks.Num()); got != ks || *vi.sets.ValueAt(ks.Num()) != value {
			t.Errorf("%s: set of %q has number %d, which names the set of %q", vi.name, value, ks.Num(), *vi.sets.ValueAt(ks.Num()))
		}
		ks.ForEach(func(id int32) { holders[id] = append(holders[id], ks) })
	}
	for id := int32(0); id < int32(n); id++ {
		got, sets := vi.sole.get(id), holders[id]
		switch {
		case len(sets) == 0 && got != 0 && got != soleMany:
			t.Errorf("%s: record %d is in no set, its sole entry names set %d", vi.name, id, got-1)
		case len(sets) == 1 && got != sets[0].Num()+1 && got != soleMany:
			t.Errorf("%s: record %d is in set %d only, its sole entry is %d", vi.name, id, sets[0].Num(), got)
		case len(sets) > 1 && got != soleMany:
			t.Errorf("%s: record %d is in %d sets, its sole entry is %d", vi.name, id, len(sets), got)
		}
	}
}

func TestASoleColumnReadsZeroPastItsEndAndKeepsValuesAcrossChunks(t *testing.T) {
	tests := []struct {
		name string
		ids  []int32
	}{
		{"the first chunk, grown by append", []int32{0, 3, 7, 100}},
		{"later chunks", []int32{records.ChunkSize, 3*records.ChunkSize + 5, records.ChunkSize - 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c soleColumn
			for i, id := range tt.ids {
				if got := c.get(id); got != 0 {
					t.Fatalf("unset id %d reads %d", id, got)
				}
				*c.cell(id) = int32(i + 1)
			}
			for i, id := range tt.ids {
				if got := c.get(id); got != int32(i+1) {
					t.Errorf("id %d reads %d, want %d", id, got, i+1)
				}
			}
			if got := c.get(5 * records.ChunkSize); got != 0 {
				t.Errorf("an id past every chunk reads %d", got)
			}
		})
	}
}
