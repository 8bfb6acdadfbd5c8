package cache

import (
	"testing"
)

func TestCollectedObjectsKeepOrderAcrossChunksAndHandOverAnExactSlice(t *testing.T) {
	cases := []struct {
		name  string
		pages []int
	}{
		{"nothing listed", nil},
		{"an empty page", []int{0}},
		{"one page", []int{7}},
		{"pages that fill several growing chunks", []int{500, 500, 500, 500, 500, 500, 500, 500, 500, 17}},
		{"more than the chunk limit", []int{5000, 5000, 5000, 5000}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var c collectedObjects
			next := 0
			for _, n := range tc.pages {
				c.expect(n)
				for i := 0; i < n; i++ {
					c.add(next)
					next++
				}
			}
			for _, chunk := range c.chunks {
				if cap(chunk) > collectedChunkLimit && len(c.chunks) > 1 {
					t.Fatalf("a chunk of capacity %d exceeds the limit %d", cap(chunk), collectedChunkLimit)
				}
			}
			chunks := len(c.chunks)
			got := c.take()
			if got == nil || len(got) != next {
				t.Fatalf("took %d objects (nil: %v), want %d", len(got), got == nil, next)
			}
			if chunks > 1 && cap(got) != len(got) {
				t.Fatalf("the joined slice has capacity %d for %d objects", cap(got), len(got))
			}
			for i, obj := range got {
				if obj.(int) != i {
					t.Fatalf("object %d is %v: order lost", i, obj)
				}
			}
			if c.count != 0 || c.chunks != nil {
				t.Fatal("take must empty the collector")
			}
		})
	}
}
