package cache

import (
	"fmt"
	"math/rand"
	"testing"
)

// keyTableModel drives a keyTable and a Go map with the same operations and
// checks after each that they agree. Ids are handed out by storeRecords, as
// in the store: a removed key's id goes on the free list and is reused first.
type keyTableModel struct {
	t     testing.TB
	table keyTable
	recs  storeRecords
	want  map[string]int32
}

// newKeyTableModel returns an empty model whose table starts with room for
// capacity keys.
func newKeyTableModel(t testing.TB, capacity int) *keyTableModel {
	return &keyTableModel{t: t, table: newKeyTable(capacity), want: map[string]int32{}}
}

// insert adds key unless present.
func (km *keyTableModel) insert(key string) {
	if _, ok := km.want[key]; ok {
		return
	}
	id := km.recs.add(key, key)
	km.table.insert(id, &km.recs)
	km.want[key] = id
}

// remove deletes key, present or not.
func (km *keyTableModel) remove(key string) {
	wantID, ok := km.want[key]
	if !ok {
		wantID = -1
	}
	if got := km.table.remove(key, &km.recs); got != wantID {
		km.t.Fatalf("remove(%q) = %d, want %d", key, got, wantID)
	}
	if ok {
		delete(km.want, key)
		km.recs.free(wantID)
	}
}

// check verifies that every key of the map is found with its id, through
// both lookups, that probe keys are absent, and the table's invariant.
func (km *keyTableModel) check(absent ...string) {
	if km.table.len() != len(km.want) {
		km.t.Fatalf("len() = %d, want %d", km.table.len(), len(km.want))
	}
	for key, id := range km.want {
		if got := km.table.find(key, &km.recs); got != id {
			km.t.Fatalf("find(%q) = %d, want %d", key, got, id)
		}
		if got := km.table.findBytes([]byte(key), &km.recs); got != id {
			km.t.Fatalf("findBytes(%q) = %d, want %d", key, got, id)
		}
	}
	for _, key := range absent {
		if _, ok := km.want[key]; !ok && km.table.find(key, &km.recs) != -1 {
			km.t.Fatalf("find(%q) found a key never inserted or removed", key)
		}
	}
	km.checkRuns()
}

// checkRuns verifies that no member sits past an empty slot of its probe
// run, the property that backward-shift deletion maintains.
func (km *keyTableModel) checkRuns() {
	n := 0
	mask := len(km.table.slots) - 1
	for i, s := range km.table.slots {
		if s == 0 {
			continue
		}
		n++
		for j := km.table.home(km.recs.key(s - 1)); j != i; j = (j + 1) & mask {
			if km.table.slots[j] == 0 {
				km.fatalf("slot %d (%q) is cut off from its home by empty slot %d", i, km.recs.key(s-1), j)
			}
		}
	}
	if n != km.table.count || n*4 > len(km.table.slots)*3 {
		km.fatalf("%d members, count %d, %d slots", n, km.table.count, len(km.table.slots))
	}
}

// fatalf fails the test.
func (km *keyTableModel) fatalf(format string, args ...any) {
	km.t.Helper()
	km.t.Fatalf(format, args...)
}

func TestKeyTableAgreesWithAGoMapUnderRandomInsertsAndRemoves(t *testing.T) {
	tests := []struct {
		name               string
		seed               int64
		ops, keys          int
		insertPct          int
		capacity, checkGap int
	}{
		{name: "few keys, many removals: long shifts in a small table", seed: 1, ops: 20000, keys: 12, insertPct: 50, capacity: 0, checkGap: 1},
		{name: "table kept near its load limit", seed: 2, ops: 20000, keys: 24, insertPct: 60, capacity: 24, checkGap: 1},
		{name: "growth from empty to thousands of keys", seed: 3, ops: 30000, keys: 5000, insertPct: 80, capacity: 0, checkGap: 997},
		{name: "steady churn over a large key space", seed: 4, ops: 30000, keys: 2000, insertPct: 50, capacity: 0, checkGap: 499},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewSource(tt.seed))
			km := newKeyTableModel(t, tt.capacity)
			for op := 1; op <= tt.ops; op++ {
				key := fmt.Sprintf("ns-%d/pod-%d", rng.Intn(7), rng.Intn(tt.keys))
				if rng.Intn(100) < tt.insertPct {
					km.insert(key)
				} else {
					km.remove(key)
				}
				if op%tt.checkGap == 0 {
					km.check("absent", "ns-0/pod-"+fmt.Sprint(tt.keys))
				}
			}
			km.check()
		})
	}
}

func TestKeyTableRemovalShiftsBackAcrossTheWrapAround(t *testing.T) {
	// Keys whose home is the last slot of an 8-slot table: their probe run
	// wraps to slot 0 and on, so removing the first must pull the others
	// back across the end of the array.
	km := newKeyTableModel(t, 1)
	size := len(km.table.slots)
	var wrapping []string
	for i := 0; len(wrapping) < 4; i++ {
		key := fmt.Sprintf("k%d", i)
		if km.table.home(key) == size-1 {
			wrapping = append(wrapping, key)
		}
	}
	for _, key := range wrapping {
		km.insert(key)
	}
	if len(km.table.slots) != size {
		t.Fatalf("table grew to %d slots; the test needs %d", len(km.table.slots), size)
	}
	km.check()
	for _, key := range wrapping {
		km.remove(key)
		km.check(key)
	}
}

func TestKeyTableLookupOfAStackBuiltKeyDoesNotAllocate(t *testing.T) {
	km := newKeyTableModel(t, 0)
	km.insert("team-a/web-0")
	allocs := testing.AllocsPerRun(100, func() {
		var buf [64]byte
		key := append(append(buf[:0], "team-a"...), "/web-0"...)
		if km.table.findBytes(key, &km.recs) != 0 {
			t.Fatal("key not found")
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per lookup, want 0", allocs)
	}
}

// FuzzKeyTableAgreesWithAGoMap reads data as operations: each byte inserts
// (high bit clear) or removes (high bit set) one of 32 keys.
func FuzzKeyTableAgreesWithAGoMap(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 0x80, 0x81, 4, 0x82})
	f.Add([]byte{5, 5, 0x85, 5, 6, 7, 8, 9, 10, 11, 0x86, 0x89, 0x88, 12})
	f.Add([]byte("the quick brown fox jumps over the lazy dog"))
	f.Fuzz(func(t *testing.T, data []byte) {
		km := newKeyTableModel(t, 0)
		for _, b := range data {
			key := fmt.Sprintf("key-%d", b&31)
			if b&0x80 == 0 {
				km.insert(key)
			} else {
				km.remove(key)
			}
			km.check()
		}
	})
}
