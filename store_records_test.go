package cache

import (
	"sort"
	"testing"
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
				if id := m.table.find(k, m.recs.keys); id != tt.wantIDs[i] {
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
			if holes := len(m.recs.keys) - m.recs.live; holes != tt.wantHoles {
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
