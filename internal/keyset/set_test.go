package keyset

import (
	"fmt"
	"math/rand"
	"runtime"
	"sort"
	"testing"
	"unsafe"
	"weak"

	"github.com/kcache-go/cache/internal/records"
)

func TestKeySetStaysASetAcrossTheSliceToMapBoundary(t *testing.T) {
	tests := []struct {
		name   string
		insert int
		remove int
	}{
		{name: "small set stays a slice", insert: 3, remove: 1},
		{name: "set at the limit stays a slice", insert: ListMax, remove: 0},
		{name: "set past the limit becomes a map", insert: ListMax + 1, remove: 0},
		{name: "large set shrinks and stays a set", insert: 3 * ListMax, remove: 3*ListMax - 2},
		{name: "everything removed", insert: 100, remove: 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Set
			keys := make([]string, tt.insert+1)
			var recs records.Table
			want := map[string]bool{}
			for i := 0; i < tt.insert; i++ {
				keys[i] = fmt.Sprintf("k%d", i)
				recs.Add(records.Plain(keys[i]), nil)
				s.Insert(int32(i))
				s.Insert(int32(i)) // a repeated insert changes nothing
				want[keys[i]] = true
			}
			for i := 0; i < tt.remove; i++ {
				s.Remove(int32(i))
				s.Remove(int32(i))
				delete(want, keys[i])
			}
			s.Remove(int32(tt.insert)) // absent
			if s.Len() != len(want) {
				t.Fatalf("len() = %d, want %d", s.Len(), len(want))
			}
			checkKeySet(t, &s)
			got := s.AppendKeys(nil, &recs)
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
				if s.Has(int32(i)) != want[keys[i]] {
					t.Fatalf("has(%s) = %v", keys[i], s.Has(int32(i)))
				}
			}
		})
	}
}

func TestKeySetsFromBlocksAreDistinctEmptyAndNumberedInOrder(t *testing.T) {
	var table Blocks
	sets := map[*Set]bool{}
	for i := 0; i < 3*blockSize+1; i++ {
		ks := table.Take(fmt.Sprint(i))
		if sets[ks] || ks.Len() != 0 || ks.num != int32(i) || table.At(ks.num) != ks || *table.ValueAt(ks.num) != fmt.Sprint(i) {
			t.Fatalf("key set %d reused, not empty, or numbered %d", i, ks.num)
		}
		sets[ks] = true
	}
}

func TestAReleasedKeySetIsTakenAgainEmptyUnderItsNumber(t *testing.T) {
	var table Blocks
	a, b := table.Take("a"), table.Take("b")
	for i := int32(0); i < 3*ListMax; i++ {
		a.Insert(i)
		b.Insert(i)
	}
	table.Release(a)
	if *table.ValueAt(0) != "" || a.Len() != 0 || cap(a.ids) != inlineCap || a.num != 0 {
		t.Fatalf("released set keeps value %q, %d members, a list of capacity %d, number %d", *table.ValueAt(0), a.Len(), cap(a.ids), a.num)
	}
	c := table.Take("c")
	if c != a || c.num != 0 || *table.ValueAt(0) != "c" || c.Len() != 0 || table.n != 2 {
		t.Fatalf("take after release gave set %d of %q with %d members; %d numbers handed out", c.num, *table.ValueAt(0), c.Len(), table.n)
	}
	if b.Len() != 3*ListMax {
		t.Fatalf("the other set has %d members, want %d", b.Len(), 3*ListMax)
	}
	c.Insert(7)
	if !c.Has(7) || c.Has(8) || b.Len() != 3*ListMax {
		t.Fatal("the set taken again does not hold its own members")
	}
}

// checkKeySet fails t unless s's invariant holds (see Set.Verify).
func checkKeySet(t *testing.T, s *Set) {
	t.Helper()
	if err := s.Verify(); err != nil {
		t.Fatal(err)
	}
}

func TestKeySetAgreesWithAGoMapUnderRandomInsertsAndRemoves(t *testing.T) {
	tests := []struct {
		name      string
		seed      int64
		ops, ids  int
		insertPct int
	}{
		{name: "small sets stay lists", seed: 1, ops: 5000, ids: 40, insertPct: 50},
		{name: "sets around the list limit", seed: 2, ops: 20000, ids: ListMax + 16, insertPct: 55},
		{name: "large hashed sets with churn", seed: 3, ops: 40000, ids: 3000, insertPct: 60},
		{name: "ids far apart", seed: 4, ops: 20000, ids: 1 << 30, insertPct: 70},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewSource(tt.seed))
			var s Set
			want := map[int32]bool{}
			var members []int32 // the ids of want, to pick removals from
			for op := 1; op <= tt.ops; op++ {
				if len(members) > 0 && rng.Intn(100) >= tt.insertPct {
					i := rng.Intn(len(members))
					id := members[i]
					if !s.Remove(id) || s.Remove(id) {
						t.Fatalf("remove(%d) of a member: not reported once", id)
					}
					delete(want, id)
					members[i] = members[len(members)-1]
					members = members[:len(members)-1]
				} else if id := int32(rng.Intn(tt.ids)); s.Insert(id) == want[id] {
					t.Fatalf("insert(%d) reported %v with the id present %v", id, !want[id], want[id])
				} else if !want[id] {
					want[id] = true
					members = append(members, id)
				}
				if s.Len() != len(want) {
					t.Fatalf("len() = %d, want %d", s.Len(), len(want))
				}
				if op%97 == 0 {
					checkKeySetMembers(t, &s, want)
				}
			}
			checkKeySetMembers(t, &s, want)
			checkKeySet(t, &s)
		})
	}
}

// checkKeySetMembers verifies that s holds exactly the ids of want.
func checkKeySetMembers(t *testing.T, s *Set, want map[int32]bool) {
	t.Helper()
	n := 0
	s.ForEach(func(id int32) {
		n++
		if !want[id] || !s.Has(id) {
			t.Fatalf("forEach gave %d: wanted %v, has() %v", id, want[id], s.Has(id))
		}
	})
	if n != len(want) {
		t.Fatalf("forEach gave %d ids, want %d", n, len(want))
	}
}

func TestAKeySetOutgrowingItsFirstListFromABlockLeavesItsNeighboursAlone(t *testing.T) {
	var table Blocks
	sets := make([]*Set, 2*blockSize+1)
	for i := range sets {
		sets[i] = table.Take(fmt.Sprint(i))
		if sets[i].Len() != 0 || cap(sets[i].ids) != inlineCap {
			t.Fatalf("set %d: %d members, first list of capacity %d", i, sets[i].Len(), cap(sets[i].ids))
		}
	}
	for i, ks := range sets {
		for j := 0; j < inlineCap; j++ {
			ks.Insert(int32(1000*i + j))
		}
	}
	// Each set in turn grows past its first list while its neighbours
	// hold a full one.
	for i, ks := range sets {
		for j := inlineCap; j < 3*inlineCap; j++ {
			ks.Insert(int32(1000*i + j))
		}
		for k, other := range sets {
			want := inlineCap
			if k <= i {
				want = 3 * inlineCap
			}
			if other.Len() != want {
				t.Fatalf("after set %d grew, set %d has %d members, want %d", i, k, other.Len(), want)
			}
			for j := 0; j < want; j++ {
				if !other.Has(int32(1000*k + j)) {
					t.Fatalf("after set %d grew, set %d lost member %d", i, k, 1000*k+j)
				}
			}
			checkKeySet(t, other)
		}
	}
}

func TestAKeySetTakesOneCacheLine(t *testing.T) {
	if size := unsafe.Sizeof(Set{}); size != 64 {
		t.Errorf("a Set takes %d bytes, want 64", size)
	}
}

// TestFirstSlotReadsTheSlotALookupStartsAt pins what FirstSlot reads for
// each form of a set: a list's first member (0 for an empty list), and a
// hash set's home slot of the id, never empty for a member (it is reached
// from its home without crossing an empty slot).
func TestFirstSlotReadsTheSlotALookupStartsAt(t *testing.T) {
	var empty, list, hashed Set
	empty.reset(0)
	list.reset(1)
	list.Insert(7)
	list.Insert(3)
	hashed.reset(2)
	for id := int32(0); id <= ListMax; id++ {
		hashed.Insert(id)
	}
	if !hashed.hashed() {
		t.Fatalf("a set of %d ids is still a list", ListMax+1)
	}
	cases := []struct {
		name     string
		set      *Set
		id       int32
		want     int
		nonEmpty bool
	}{
		{name: "an empty list", set: &empty, id: 5, want: 0},
		{name: "a list, for a member", set: &list, id: 3, want: 7},
		{name: "a list, for another id", set: &list, id: 9, want: 7},
		{name: "a hash set, for a member", set: &hashed, id: 9, nonEmpty: true},
	}
	for _, tc := range cases {
		got := tc.set.FirstSlot(tc.id)
		if tc.nonEmpty && got == 0 || !tc.nonEmpty && got != tc.want {
			t.Errorf("%s: FirstSlot(%d) = %d, want %d (non-empty: %v)", tc.name, tc.id, got, tc.want, tc.nonEmpty)
		}
	}
}

func TestAReleasedSetKeepsNoListItGrewReachable(t *testing.T) {
	for _, members := range []int{inlineCap + 2, 3 * ListMax} {
		t.Run(fmt.Sprintf("%d members", members), func(t *testing.T) {
			var blocks Blocks
			s := blocks.Take("victim")
			for id := int32(0); id < int32(members); id++ {
				s.Insert(id)
			}
			list := weak.Make(&s.ids[:1][0])
			blocks.Release(s)
			for i := 0; i < 4 && list.Value() != nil; i++ {
				runtime.GC()
			}
			if list.Value() != nil {
				t.Errorf("the released set's grown list is still reachable")
			}
			if err := blocks.Verify(); err != nil {
				t.Fatal(err)
			}
			runtime.KeepAlive(&blocks)
		})
	}
}
