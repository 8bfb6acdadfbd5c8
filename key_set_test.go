package cache

import (
	"fmt"
	"math/rand"
	"sort"
	"testing"
	"unsafe"
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
			var recs storeRecords
			want := map[string]bool{}
			for i := 0; i < tt.insert; i++ {
				keys[i] = fmt.Sprintf("k%d", i)
				recs.add(plainKey(keys[i]), nil)
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
			checkKeySet(t, &s)
			got := s.appendKeys(nil, &recs)
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

func TestKeySetsFromBlocksAreDistinctEmptyAndNumberedInOrder(t *testing.T) {
	var table keySetTable
	sets := map[*keySet]bool{}
	for i := 0; i < 3*keySetBlockSize+1; i++ {
		ks := table.take(fmt.Sprint(i))
		if sets[ks] || ks.len() != 0 || ks.num != int32(i) || table.at(ks.num) != ks || *table.valueAt(ks.num) != fmt.Sprint(i) {
			t.Fatalf("key set %d reused, not empty, or numbered %d", i, ks.num)
		}
		sets[ks] = true
	}
}

func TestAReleasedKeySetIsTakenAgainEmptyUnderItsNumber(t *testing.T) {
	var table keySetTable
	a, b := table.take("a"), table.take("b")
	for i := int32(0); i < 3*keySetListMax; i++ {
		a.insert(i)
		b.insert(i)
	}
	table.release(a)
	if *table.valueAt(0) != "" || a.len() != 0 || cap(a.ids) != keySetInline || a.num != 0 {
		t.Fatalf("released set keeps value %q, %d members, a list of capacity %d, number %d", *table.valueAt(0), a.len(), cap(a.ids), a.num)
	}
	c := table.take("c")
	if c != a || c.num != 0 || *table.valueAt(0) != "c" || c.len() != 0 || table.n != 2 {
		t.Fatalf("take after release gave set %d of %q with %d members; %d numbers handed out", c.num, *table.valueAt(0), c.len(), table.n)
	}
	if b.len() != 3*keySetListMax {
		t.Fatalf("the other set has %d members, want %d", b.len(), 3*keySetListMax)
	}
	c.insert(7)
	if !c.has(7) || c.has(8) || b.len() != 3*keySetListMax {
		t.Fatal("the set taken again does not hold its own members")
	}
}

// checkKeySet verifies s's invariant: a list has no duplicates; a hash set
// counts its members right, stays within its load limit and keeps every
// member reachable from its home slot.
func checkKeySet(t *testing.T, s *keySet) {
	t.Helper()
	if !s.hashed() {
		seen := map[int32]bool{}
		for _, id := range s.ids {
			if seen[id] {
				t.Fatalf("list holds %d twice", id)
			}
			seen[id] = true
		}
		if s.n != 0 {
			t.Fatalf("list with n = %d", s.n)
		}
		return
	}
	mask := len(s.ids) - 1
	n := 0
	for i, slot := range s.ids {
		if slot == 0 {
			continue
		}
		n++
		for j := s.home(slot - 1); j != i; j = (j + 1) & mask {
			if s.ids[j] == 0 {
				t.Fatalf("id %d at slot %d cut off from its home by empty slot %d", slot-1, i, j)
			}
		}
	}
	if n != int(s.n) || n*4 > len(s.ids)*3 || len(s.ids)&mask != 0 {
		t.Fatalf("%d members, n = %d, %d slots", n, s.n, len(s.ids))
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
		{name: "sets around the list limit", seed: 2, ops: 20000, ids: keySetListMax + 16, insertPct: 55},
		{name: "large hashed sets with churn", seed: 3, ops: 40000, ids: 3000, insertPct: 60},
		{name: "ids far apart", seed: 4, ops: 20000, ids: 1 << 30, insertPct: 70},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewSource(tt.seed))
			var s keySet
			want := map[int32]bool{}
			var members []int32 // the ids of want, to pick removals from
			for op := 1; op <= tt.ops; op++ {
				if len(members) > 0 && rng.Intn(100) >= tt.insertPct {
					i := rng.Intn(len(members))
					id := members[i]
					if !s.remove(id) || s.remove(id) {
						t.Fatalf("remove(%d) of a member: not reported once", id)
					}
					delete(want, id)
					members[i] = members[len(members)-1]
					members = members[:len(members)-1]
				} else if id := int32(rng.Intn(tt.ids)); s.insert(id) == want[id] {
					t.Fatalf("insert(%d) reported %v with the id present %v", id, !want[id], want[id])
				} else if !want[id] {
					want[id] = true
					members = append(members, id)
				}
				if s.len() != len(want) {
					t.Fatalf("len() = %d, want %d", s.len(), len(want))
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
func checkKeySetMembers(t *testing.T, s *keySet, want map[int32]bool) {
	t.Helper()
	n := 0
	s.forEach(func(id int32) {
		n++
		if !want[id] || !s.has(id) {
			t.Fatalf("forEach gave %d: wanted %v, has() %v", id, want[id], s.has(id))
		}
	})
	if n != len(want) {
		t.Fatalf("forEach gave %d ids, want %d", n, len(want))
	}
}

func TestAKeySetOutgrowingItsFirstListFromABlockLeavesItsNeighboursAlone(t *testing.T) {
	var table keySetTable
	sets := make([]*keySet, 2*keySetBlockSize+1)
	for i := range sets {
		sets[i] = table.take(fmt.Sprint(i))
		if sets[i].len() != 0 || cap(sets[i].ids) != keySetInline {
			t.Fatalf("set %d: %d members, first list of capacity %d", i, sets[i].len(), cap(sets[i].ids))
		}
	}
	for i, ks := range sets {
		for j := 0; j < keySetInline; j++ {
			ks.insert(int32(1000*i + j))
		}
	}
	// Each set in turn grows past its first list while its neighbours
	// hold a full one.
	for i, ks := range sets {
		for j := keySetInline; j < 3*keySetInline; j++ {
			ks.insert(int32(1000*i + j))
		}
		for k, other := range sets {
			want := keySetInline
			if k <= i {
				want = 3 * keySetInline
			}
			if other.len() != want {
				t.Fatalf("after set %d grew, set %d has %d members, want %d", i, k, other.len(), want)
			}
			for j := 0; j < want; j++ {
				if !other.has(int32(1000*k + j)) {
					t.Fatalf("after set %d grew, set %d lost member %d", i, k, 1000*k+j)
				}
			}
			checkKeySet(t, other)
		}
	}
}

func TestAKeySetTakesOneCacheLine(t *testing.T) {
	if size := unsafe.Sizeof(keySet{}); size != 64 {
		t.Errorf("a keySet takes %d bytes, want 64", size)
	}
}
