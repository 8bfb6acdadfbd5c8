package cache

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/kcache-go/cache/internal/keyset"
	"github.com/kcache-go/cache/internal/records"
)

// indexSnapshot renders everything the indices of m answer: each index's
// values and, per value, its sorted keys.
func indexSnapshot(t *testing.T, m *threadSafeMap) map[string]map[string][]string {
	t.Helper()
	snap := map[string]map[string][]string{}
	for name := range m.GetIndexers() {
		byValue := map[string][]string{}
		for _, value := range m.ListIndexFuncValues(name) {
			keys, err := m.IndexKeys(name, value)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(keys)
			byValue[value] = keys
		}
		snap[name] = byValue
	}
	return snap
}

// TestReadingAheadForADeleteChangesNothingAnIndexHolds runs warm on every
// record id, and ids past the records, in stores whose records sit in no
// set, in one list, in one hash set, in several sets, or were deleted, and
// checks that every index answers as before.
func TestReadingAheadForADeleteChangesNothingAnIndexHolds(t *testing.T) {
	cases := []struct {
		name  string
		setup func(m *threadSafeMap)
	}{
		{"records in no set", func(m *threadSafeMap) {
			for i := range 5 {
				m.Add(fmt.Sprint("k", i), &soleObj{key: fmt.Sprint("k", i)})
			}
		}},
		{"records sharing one small list", func(m *threadSafeMap) {
			for i := range 5 {
				m.Add(fmt.Sprint("k", i), &soleObj{key: fmt.Sprint("k", i), values: "a"})
			}
		}},
		{"records sharing one hash set", func(m *threadSafeMap) {
			for i := range 3 * keyset.ListMax {
				m.Add(fmt.Sprint("k", i), &soleObj{key: fmt.Sprint("k", i), values: "big"})
			}
		}},
		{"records in several sets of one index", func(m *threadSafeMap) {
			for i := range 5 {
				m.Add(fmt.Sprint("k", i), &soleObj{key: fmt.Sprint("k", i), values: "a,b," + fmt.Sprint(i)})
			}
		}},
		{"deleted records and an index added later", func(m *threadSafeMap) {
			for i := range 70 {
				m.Add(fmt.Sprint("k", i), &soleObj{key: fmt.Sprint("k", i), values: fmt.Sprint(i % 3)})
			}
			for i := 0; i < 70; i += 2 {
				m.Delete(fmt.Sprint("k", i))
			}
			if err := m.AddIndexers(Indexers{"late": soleValues}); err != nil {
				panic(err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := newThreadSafeMap(Indexers{"v": soleValues, "w": soleValues}, Indices{})
			tc.setup(m)
			before := indexSnapshot(t, m)
			for id := int32(0); id < int32(m.recs.Len())+records.ChunkSize+1; id++ {
				m.indices.warm(id)
			}
			if after := indexSnapshot(t, m); !reflect.DeepEqual(before, after) {
				t.Fatalf("warm changed the indices:\nbefore %v\nafter  %v", before, after)
			}
			checkSole(t, m, "after warm")
		})
	}
}
