package cache

import (
	"fmt"
	"sort"
	"testing"
)

func TestKeySetStaysASetAcrossTheSliceToMapBoundary(t *testing.T) {
	tests := []struct {
		name   string
		insert int
		remove int
	}{
		{name: "small set stays a slice", insert: 3, remove: 1},
		{name: "set at the limit stays a slice", insert: keySetListMax, remove: 0},
		{name: "set past the limit becomes a map", insert: keySetListMax + 1, remove: 0},
		{name: "large set shrinks and stays a set", insert: 3 * keySetListMax, remove: 3*keySetListMax - 2},
		{name: "everything removed", insert: 100, remove: 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s keySet
			entries := make([]*storeEntry, tt.insert)
			want := map[string]bool{}
			for i := range entries {
				entries[i] = &storeEntry{key: fmt.Sprintf("k%d", i)}
				s.insert(entries[i])
				s.insert(entries[i]) // a repeated insert changes nothing
				want[entries[i].key] = true
			}
			for _, e := range entries[:tt.remove] {
				s.remove(e)
				s.remove(e)
				delete(want, e.key)
			}
			s.remove(&storeEntry{key: "absent"})
			if s.len() != len(want) {
				t.Fatalf("len() = %d, want %d", s.len(), len(want))
			}
			if s.set != nil && s.list != nil {
				t.Fatalf("both representations in use")
			}
			got := s.appendKeys(nil)
			sort.Strings(got)
			if len(got) != len(want) {
				t.Fatalf("appendKeys gave %d keys, want %d", len(got), len(want))
			}
			for _, k := range got {
				if !want[k] {
					t.Fatalf("unexpected key %q", k)
				}
			}
			for _, e := range entries {
				if s.has(e) != want[e.key] {
					t.Fatalf("has(%s) = %v", e.key, s.has(e))
				}
			}
		})
	}
}
