package cache

import (
	"sort"
	"strconv"
	"testing"

	"github.com/kcache-go/cache/internal/records"
)

func TestDeletedRecordIdsAreReusedLastFreedFirstAndReadsSkipTheHoles(t *testing.T) {
	tests := []struct {
		name      string
		add       []string
		del       []string
		then      []string
		wantIDs   []int32 // ids of then, in order
		wantKeys  []string
		wantHoles int
	}{
		{name: "no delete appends", add: []string{"a", "b"}, then: []string{"c"}, wantIDs: []int32{2}, wantKeys: []string{"a", "b", "c"}},
		{name: "one delete is reused", add: []string{"a", "b", "c"}, del: []string{"b"}, then: []string{"d"}, wantIDs: []int32{1}, wantKeys: []string{"a", "c", "d"}},
		{name: "last freed first", add: []string{"a", "b", "c"}, del: []string{"a", "c"}, then: []string{"x", "y", "z"}, wantIDs: []int32{2, 0, 3}, wantKeys: []string{"b", "x", "y", "z"}},
		{name: "holes are skipped", add: []string{"a", "b", "c", "d"}, del: []string{"b", "d"}, wantKeys: []string{"a", "c"}, wantHoles: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newThreadSafeMap(Indexers{"first": func(obj interface{}) ([]string, error) {
				return []string{obj.(string)[:1]}, nil
			}}, Indices{})
			for _, k := range tt.add {
				m.Add(k, k)
			}
			for _, k := range tt.del {
				m.Delete(k)
			}
			for i, k := range tt.then {
				m.Add(k, k)
				if id := m.table.Find(records.Plain(k), &m.recs); id != tt.wantIDs[i] {
					t.Fatalf("%q got id %d, want %d", k, id, tt.wantIDs[i])
				}
			}
			checkEntryInvariants(t, m)
			keys := m.ListKeys()
			sort.Strings(keys)
			objs := m.List()
			if len(objs) != len(tt.wantKeys) || len(keys) != len(tt.wantKeys) || m.count() != len(tt.wantKeys) {
				t.Fatalf("List %v, ListKeys %v, count %d; want %v", objs, keys, m.count(), tt.wantKeys)
			}
			for i, k := range tt.wantKeys {
				if keys[i] != k {
					t.Fatalf("ListKeys %v, want %v", keys, tt.wantKeys)
				}
				if got, _ := m.ByIndex("first", k[:1]); len(got) != 1 || got[0] != k {
					t.Fatalf("ByIndex(%q) = %v, want [%s]", k[:1], got, k)
				}
			}
			if holes := int(int32(m.recs.Len())) - m.recs.Live(); holes != tt.wantHoles {
				t.Fatalf("%d holes, want %d", holes, tt.wantHoles)
			}
		})
	}
}

func TestANilObjectIsStoredNotTakenForAHole(t *testing.T) {
	m := newThreadSafeMap(Indexers{}, Indices{})
	m.Add("a", nil)
	m.Add("b", "b")
	m.Delete("b")
	if obj, ok := m.Get("a"); !ok || obj != nil {
		t.Fatalf("Get(a) = %v, %v; want nil, true", obj, ok)
	}
	if got := m.List(); len(got) != 1 || got[0] != nil {
		t.Fatalf("List() = %v, want [nil]", got)
	}
	if got := m.ListKeys(); len(got) != 1 || got[0] != "a" {
		t.Fatalf("ListKeys() = %v, want [a]", got)
	}
}

func TestRecordsAcrossChunkBoundariesKeepTheirKeysObjectsAndCounts(t *testing.T) {
	tests := []struct {
		name     string
		replaced int // keys given to Replace first, 0 for none
		added    int // keys added after
	}{
		{name: "added one by one", added: 3*records.ChunkSize + 5},
		{name: "replaced, then added past the replaced size", replaced: 2*records.ChunkSize + 7, added: records.ChunkSize},
		{name: "replaced with exactly one chunk", replaced: records.ChunkSize, added: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newThreadSafeMap(Indexers{"mod7": func(obj interface{}) ([]string, error) {
				return []string{strconv.Itoa(obj.(int) % 7)}, nil
			}}, Indices{})
			items := map[string]interface{}{}
			for i := 0; i < tt.replaced; i++ {
				items["k"+strconv.Itoa(i)] = i
			}
			m.Replace(items, "1")
			total := tt.replaced + tt.added
			for i := tt.replaced; i < total; i++ {
				m.Add("k"+strconv.Itoa(i), i)
			}
			for i := 0; i < total; i += 3 {
				m.Delete("k" + strconv.Itoa(i))
			}
			for i := 0; i < total; i += 6 {
				m.Add("k"+strconv.Itoa(i), i)
			}
			checkEntryInvariants(t, m)
			want := 0
			for i := 0; i < total; i++ {
				obj, ok := m.Get("k" + strconv.Itoa(i))
				stored := i%3 != 0 || i%6 == 0
				if ok != stored || (ok && obj != i) {
					t.Fatalf("Get(k%d) = %v, %v; want stored %v", i, obj, ok, stored)
				}
				if stored {
					want++
				}
			}
			if len(m.List()) != want || len(m.ListKeys()) != want {
				t.Fatalf("List %d, ListKeys %d, want %d", len(m.List()), len(m.ListKeys()), want)
			}
			n := 0
			for v := 0; v < 7; v++ {
				objs, _ := m.ByIndex("mod7", strconv.Itoa(v))
				for _, o := range objs {
					if o.(int)%7 != v {
						t.Fatalf("ByIndex(%d) gave %v", v, o)
					}
				}
				n += len(objs)
			}
			if n != want {
				t.Fatalf("index holds %d objects, want %d", n, want)
			}
		})
	}
}
