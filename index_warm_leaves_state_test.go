package cache

// storeIndices.warm (index_warm.go), run by every delete before it goes
// through the indices, must be a pure read. These white-box tests render the full state of the indices (every key set
// slot, inline array, length and capacity, the sole columns, the set
// tables' values and free lists, the records' refs, the trust flags, and the
// pending content) before and after warm on every id a store could be asked
// about, in stores left in every shape the write paths can leave them in,
// and check that nothing but warmth moved and nothing panicked.

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/kcache-go/cache/internal/keyset"
	"github.com/kcache-go/cache/internal/records"
)

// warmStateObj is an object whose values, and whether its IndexFunc panics
// or fails on it, may be changed in place after it is stored.
type warmStateObj struct {
	key    string
	values []string
	panics bool
	fails  bool
}

// warmStateValues returns o.values, panicking or failing when o says so.
func warmStateValues(obj interface{}) ([]string, error) {
	o := obj.(*warmStateObj)
	if o.panics {
		panic("warm state: IndexFunc panics on " + o.key)
	}
	if o.fails {
		return nil, fmt.Errorf("warm state: IndexFunc fails on %s", o.key)
	}
	return o.values, nil
}

// warmStateFirst returns the first of o.values only.
func warmStateFirst(obj interface{}) ([]string, error) {
	vs, err := warmStateValues(obj)
	if len(vs) > 1 {
		vs = vs[:1]
	}
	return vs, err
}

// renderValueIndex renders everything vi holds.
func renderValueIndex(b *strings.Builder, vi *valueIndex) {
	values := make([]string, 0, len(vi.byValue))
	for v := range vi.byValue {
		values = append(values, v)
	}
	sort.Strings(values)
	fmt.Fprintf(b, "index %q byNamespace=%v fn=%v\n", vi.name, vi.byNamespace, vi.indexFunc != nil)
	for _, v := range values {
		ks := vi.byValue[v]
		inTable := ks.Num() >= 0 && int(ks.Num()) < vi.sets.Len() && vi.sets.At(ks.Num()) == ks
		fmt.Fprintf(b, "  byValue[%q] inTable=%v %s\n", v, inTable, ks.Dump())
	}
	fmt.Fprintf(b, "  sole chunks=%d", len(vi.sole.chunks))
	for i, c := range vi.sole.chunks {
		fmt.Fprintf(b, " [%d len=%d cap=%d %v]", i, len(c), cap(c), c)
	}
	fmt.Fprintf(b, "\n  %s", vi.sets.Dump())
}

// renderIndexState renders the full state of m's indices and records,
// everything but warmth.
func renderIndexState(m *threadSafeMap) string {
	var b strings.Builder
	ix := &m.indices
	fmt.Fprintf(&b, "trusted=%v writing=%v ordered=%d byName=%d indexers=%d pending=%d overMsRecords=%v\n",
		ix.trusted, ix.writing, len(ix.ordered), len(ix.byName), len(ix.indexers), len(ix.pending), ix.recs == &m.recs)
	for _, vi := range ix.ordered {
		if ix.byName[vi.name] != vi || vi.recs != &m.recs {
			fmt.Fprintf(&b, "index %q not byName's or not over m's records\n", vi.name)
		}
		renderValueIndex(&b, vi)
	}
	names := make([]string, 0, len(ix.pending))
	for n := range ix.pending {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		b.WriteString("pending ")
		renderValueIndex(&b, ix.pending[n])
	}
	b.WriteString(m.recs.Dump())
	detached := make([]string, 0, len(m.detached))
	for k, id := range m.detached {
		detached = append(detached, fmt.Sprintf("%s=%d", k, id))
	}
	sort.Strings(detached)
	fmt.Fprintf(&b, "\ndetached=%v\n", detached)
	return b.String()
}

// warmStateCatch runs fn and reports the value it panicked with, nil when
// it did not.
func warmStateCatch(fn func()) (r interface{}) {
	defer func() { r = recover() }()
	fn()
	return nil
}

// warmStateKey is the key of the i-th object of a scenario.
func warmStateKey(i int) string { return fmt.Sprintf("k%05d", i) }

// warmStateAdd stores n objects, k00000..., with values(i) as values.
func warmStateAdd(m *threadSafeMap, from, to int, values func(i int) []string) []*warmStateObj {
	objs := make([]*warmStateObj, 0, to-from)
	for i := from; i < to; i++ {
		o := &warmStateObj{key: warmStateKey(i), values: values(i)}
		m.Add(o.key, o)
		objs = append(objs, o)
	}
	return objs
}

// TestReadingAheadForADeleteLeavesEveryByteOfTheIndicesAsItWasInEveryShapeAStoreCanBeIn
// runs warm on every id up to 2000 past the records (free ids, detached
// records, ids past a sole column, ids past a chunk) and on far ids, in
// stores left by every write path, panicking ones included, and compares
// the full rendered state.
func TestReadingAheadForADeleteLeavesEveryByteOfTheIndicesAsItWasInEveryShapeAStoreCanBeIn(t *testing.T) {
	cases := []struct {
		name     string
		indexers Indexers
		indices  Indices
		setup    func(t *testing.T, m *threadSafeMap)
	}{
		{name: "an empty store with no index", indexers: Indexers{}},
		{name: "an empty store with indices", indexers: Indexers{"v": warmStateValues, "f": warmStateFirst}},
		{
			name:     "records with several, duplicate, empty and no values",
			indexers: Indexers{"v": warmStateValues, "f": warmStateFirst},
			setup: func(t *testing.T, m *threadSafeMap) {
				warmStateAdd(m, 0, 40, func(i int) []string {
					switch i % 5 {
					case 0:
						return nil
					case 1:
						return []string{""}
					case 2:
						return []string{"a", "a", "b"}
					case 3:
						return []string{fmt.Sprint(i), "", "a"}
					}
					return []string{"solo" + fmt.Sprint(i)}
				})
			},
		},
		{
			name:     "hash sets of several hundred keys under one value, half deleted",
			indexers: Indexers{"v": warmStateValues, "f": warmStateFirst},
			setup: func(t *testing.T, m *threadSafeMap) {
				warmStateAdd(m, 0, 5*keyset.ListMax, func(i int) []string { return []string{"big", fmt.Sprint("mod", i%3)} })
				for i := 0; i < 5*keyset.ListMax; i += 2 {
					m.Delete(warmStateKey(i))
				}
			},
		},
		{
			name:     "more records than a chunk, deleted and re-added so ids are reused",
			indexers: Indexers{"v": warmStateValues},
			setup: func(t *testing.T, m *threadSafeMap) {
				n := records.ChunkSize + records.ChunkSize/2
				warmStateAdd(m, 0, n, func(i int) []string { return []string{fmt.Sprint("v", i%7)} })
				for i := records.ChunkSize - 10; i < records.ChunkSize+10; i++ {
					m.Delete(warmStateKey(i))
				}
				warmStateAdd(m, n, n+15, func(i int) []string { return []string{"reused"} })
			},
		},
		{
			name:     "records detached by an in-place change before their delete",
			indexers: Indexers{"v": warmStateValues, "f": warmStateFirst},
			setup: func(t *testing.T, m *threadSafeMap) {
				objs := warmStateAdd(m, 0, 20, func(i int) []string { return []string{"old", fmt.Sprint(i)} })
				for i, o := range objs {
					if i%2 == 0 {
						o.values = []string{"new"}
						m.Delete(o.key)
					}
				}
				if len(m.detached) == 0 {
					t.Fatal("no record was detached")
				}
			},
		},
		{
			name:     "initial Indices with empty sets, keys not stored and a name with no IndexFunc",
			indexers: Indexers{"v": warmStateValues},
			indices: Indices{
				"v":    index{"empty": nil, "given": {"ghost": {}, "k00001": {}}},
				"none": index{"x": {"ghost": {}, "k00002": {}}, "void": {}},
			},
			setup: func(t *testing.T, m *threadSafeMap) {
				warmStateAdd(m, 0, 5, func(i int) []string { return []string{"given"} })
				m.Delete(warmStateKey(1))
				m.Delete(warmStateKey(2))
			},
		},
		{
			name:     "an index added after the records, and one taking over pending content",
			indexers: Indexers{"v": warmStateValues},
			indices:  Indices{"late2": index{"x": {"k00003": {}, "ghost": {}}}},
			setup: func(t *testing.T, m *threadSafeMap) {
				warmStateAdd(m, 0, records.ChunkSize+5, func(i int) []string { return []string{fmt.Sprint(i % 4)} })
				for i := 0; i < 30; i++ {
					m.Delete(warmStateKey(i * 3))
				}
				if err := m.AddIndexers(Indexers{"late": warmStateFirst, "late2": warmStateValues}); err != nil {
					t.Fatal(err)
				}
			},
		},
		{
			name:     "an AddIndexers whose IndexFunc panicked midway",
			indexers: Indexers{"v": warmStateValues},
			setup: func(t *testing.T, m *threadSafeMap) {
				objs := warmStateAdd(m, 0, 50, func(i int) []string { return []string{fmt.Sprint(i % 4)} })
				objs[25].panics = true
				if warmStateCatch(func() { _ = m.AddIndexers(Indexers{"late": warmStateFirst}) }) == nil {
					t.Fatal("AddIndexers did not panic")
				}
			},
		},
		{
			name:     "a delete whose IndexFunc panicked midway through the indices",
			indexers: Indexers{"v": warmStateValues, "f": warmStateFirst, "g": warmStateFirst},
			setup: func(t *testing.T, m *threadSafeMap) {
				objs := warmStateAdd(m, 0, 10, func(i int) []string { return []string{"a", fmt.Sprint(i)} })
				objs[4].panics = true
				if warmStateCatch(func() { m.Delete(objs[4].key) }) == nil {
					t.Fatal("Delete did not panic")
				}
				objs[5].fails = true
				if warmStateCatch(func() { m.Delete(objs[5].key) }) == nil {
					t.Fatal("Delete did not panic")
				}
			},
		},
		{
			name:     "a Replace whose IndexFunc panicked midway",
			indexers: Indexers{"v": warmStateValues},
			setup: func(t *testing.T, m *threadSafeMap) {
				warmStateAdd(m, 0, 30, func(i int) []string { return []string{"a"} })
				items := map[string]interface{}{}
				for i := 0; i < 30; i++ {
					items[warmStateKey(i)] = &warmStateObj{key: warmStateKey(i), values: []string{"r", fmt.Sprint(i)}, panics: i == 17}
				}
				if warmStateCatch(func() { m.Replace(items, "1") }) == nil {
					t.Fatal("Replace did not panic")
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := newThreadSafeMap(tc.indexers, tc.indices)
			if tc.setup != nil {
				tc.setup(t, m)
			}
			before := renderIndexState(m)
			ids := []int32{}
			for id := int32(0); id < int32(m.recs.Len())+2000; id++ {
				ids = append(ids, id)
			}
			ids = append(ids, 4*records.ChunkSize-1, 4*records.ChunkSize, 1<<24, 1<<30, 1<<31-1)
			for _, id := range ids {
				if r := warmStateCatch(func() { m.indices.warm(id) }); r != nil {
					t.Fatalf("warm(%d) panicked: %v", id, r)
				}
			}
			if after := renderIndexState(m); after != before {
				t.Fatalf("warm changed the indices:\n--- before\n%s\n--- after\n%s", before, after)
			}
			checkSole(t, m, "after warm")
		})
	}
}

// warmStateSequence drives a store through writes that end in deletes of
// every shape; it is run twice, once with extra warm calls before every
// delete, and the two stores must end identical.
func warmStateSequence(m *threadSafeMap, beforeDelete func(m *threadSafeMap, key string)) []string {
	var panics []string
	del := func(key string) {
		beforeDelete(m, key)
		if r := warmStateCatch(func() { m.Delete(key) }); r != nil {
			panics = append(panics, fmt.Sprint(r))
		}
	}
	objs := warmStateAdd(m, 0, 3*keyset.ListMax, func(i int) []string {
		return []string{"all", fmt.Sprint("m", i%5), fmt.Sprint("m", i%5), ""}
	})
	for i, o := range objs {
		switch i % 6 {
		case 0:
			del(o.key)
		case 1:
			o.values = []string{"moved"}
			del(o.key)
		case 2:
			o.panics = i%12 == 2
			del(o.key)
		case 3:
			o.fails = true
			del(o.key)
		}
	}
	for i := 0; i < 3*keyset.ListMax; i++ {
		o := &warmStateObj{key: warmStateKey(i), values: []string{"again", fmt.Sprint(i % 2)}}
		// NB: a key whose delete panicked is still stored under an
		// object that panics, so its update panics too.
		if r := warmStateCatch(func() { m.Add(o.key, o) }); r != nil {
			panics = append(panics, fmt.Sprint(r))
		}
	}
	for i := 0; i < 3*keyset.ListMax; i += 3 {
		del(warmStateKey(i))
	}
	return panics
}

// warmStateNoop does nothing before a delete.
func warmStateNoop(*threadSafeMap, string) {}

// warmStateWarmEvery calls warm, many times, on every id near key's
// before its delete.
func warmStateWarmEvery(m *threadSafeMap, key string) {
	for id := int32(0); id < int32(m.recs.Len())+keyset.ListMax; id++ {
		m.indices.warm(id)
		m.indices.warm(id)
	}
}

// TestExtraReadsAheadBeforeEveryDeleteLeaveTheSameStoreAndTheSamePanics
// checks warm is idempotent in effect: a store whose deletes are preceded
// by thousands more warm calls ends byte for byte where one without them
// ends, with the same panics.
func TestExtraReadsAheadBeforeEveryDeleteLeaveTheSameStoreAndTheSamePanics(t *testing.T) {
	// NB: one index at a time, so both stores order their indices alike
	// (an Indexers map's order is random).
	newMap := func() *threadSafeMap {
		m := newThreadSafeMap(Indexers{"v": warmStateValues}, Indices{"p": index{"x": {"k00001": {}}}})
		if err := m.AddIndexers(Indexers{"f": warmStateFirst}); err != nil {
			t.Fatal(err)
		}
		return m
	}
	plain, warmed := newMap(), newMap()
	// NB: each store gets its own objects, changed in place the same way.
	pp := warmStateSequence(plain, warmStateNoop)
	wp := warmStateSequence(warmed, warmStateWarmEvery)
	if fmt.Sprint(pp) != fmt.Sprint(wp) {
		t.Fatalf("panics differ:\nwithout extra warm %v\nwith extra warm    %v", pp, wp)
	}
	if a, b := renderIndexState(plain), renderIndexState(warmed); a != b {
		t.Fatalf("stores differ:\n--- without extra warm\n%s\n--- with extra warm\n%s", a, b)
	}
}

// TestDeletesReadingAheadRaceWithNoReaderOfTheIndices runs index readers
// while writers add and delete under the same values (lists and hash
// sets), for the race detector: warm writes warmth, so it must run under
// the write lock only.
func TestDeletesReadingAheadRaceWithNoReaderOfTheIndices(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	m := newThreadSafeMap(Indexers{"v": warmStateValues, "f": warmStateFirst}, Indices{})
	probe := &warmStateObj{key: "probe", values: []string{"shared", "x"}}
	reports := churnWhileReading(func(w int) {
		for round := 0; round < 4; round++ {
			for i := 0; i < 2*keyset.ListMax; i++ {
				key := fmt.Sprintf("w%d-%d", w, i)
				m.Add(key, &warmStateObj{key: key, values: []string{"shared", fmt.Sprint(i % 3)}})
			}
			for i := 0; i < 2*keyset.ListMax; i++ {
				m.Delete(fmt.Sprintf("w%d-%d", w, i))
			}
		}
	}, func(func(string)) {
		_, _ = m.ByIndex("v", "shared")
		_, _ = m.IndexKeys("f", "shared")
		_ = m.ListIndexFuncValues("v")
		_, _ = m.Index("v", probe)
		_ = m.List()
		_ = m.ListKeys()
		_ = m.GetIndexers()
	})
	if len(reports) != 0 {
		t.Fatalf("readers reported %v", reports)
	}
	if keys := m.ListKeys(); len(keys) != 0 {
		t.Fatalf("keys left: %v", keys)
	}
	if vs := m.ListIndexFuncValues("v"); len(vs) != 0 {
		t.Fatalf("values left: %v", vs)
	}
}
