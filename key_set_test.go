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
			keys := make([]string, tt.insert+1)
			want := map[string]bool{}
			for i := 0; i < tt.insert; i++ {
				keys[i] = fmt.Sprintf("k%d", i)
				s.insert(int32(i))
				s.insert(int32(i)) // a repeated insert changes nothing
				want[keys[i]] = true
			}
			for i := 0; i < tt.remove; i++ {
				s.remove(int32(i))
				s.remove(int32(i))
				delete(want, keys[i])
			}
			s.remove(int32(tt.insert)) // absent
			if s.len() != len(want) {
				t.Fatalf("len() = %d, want %d", s.len(), len(want))
			}
			if s.set != nil && s.list != nil {
				t.Fatalf("both representations in use")
			}
			got := s.appendKeys(nil, keys)
			sort.Strings(got)
			if len(got) != len(want) {
				t.Fatalf("appendKeys gave %d keys, want %d", len(got), len(want))
			}
			for _, k := range got {
				if !want[k] {
					t.Fatalf("unexpected key %q", k)
				}
			}
			for i := 0; i < tt.insert; i++ {
				if s.has(int32(i)) != want[keys[i]] {
					t.Fatalf("has(%s) = %v", keys[i], s.has(int32(i)))
				}
			}
		})
	}
}

func TestKeySetsFromBlocksAreDistinctAndEmpty(t *testing.T) {
	vi := &valueIndex{}
	sets := map[*keySet]bool{}
	for i := 0; i < 3*keySetBlockSize+1; i++ {
		ks := vi.newKeySet()
		if sets[ks] || ks.len() != 0 {
			t.Fatalf("key set %d reused or not empty", i)
		}
		sets[ks] = true
	}
}
