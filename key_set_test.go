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
		{name: "large set shrinks back to a slice", insert: 3 * keySetListMax, remove: 3*keySetListMax - 2},
		{name: "everything removed", insert: 100, remove: 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s keySet
			want := map[string]bool{}
			for i := 0; i < tt.insert; i++ {
				k := fmt.Sprintf("k%d", i)
				s.insert(k)
				s.insert(k) // a repeated insert changes nothing
				want[k] = true
			}
			for i := 0; i < tt.remove; i++ {
				k := fmt.Sprintf("k%d", i)
				s.remove(k)
				s.remove(k)
				delete(want, k)
			}
			s.remove("absent")
			if s.len() != len(want) {
				t.Fatalf("len() = %d, want %d", s.len(), len(want))
			}
			if s.set != nil && s.list != nil {
				t.Fatalf("both representations in use")
			}
			if s.set != nil && s.len() <= keySetListMax/2 {
				t.Fatalf("a map-backed set of %d keys should have shrunk", s.len())
			}
			got := s.appendTo(nil)
			sort.Strings(got)
			if len(got) != len(want) {
				t.Fatalf("appendTo gave %d keys, want %d", len(got), len(want))
			}
			for _, k := range got {
				if !want[k] || !s.has(k) {
					t.Fatalf("unexpected key %q", k)
				}
			}
		})
	}
}
