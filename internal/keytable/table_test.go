package keytable

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"unsafe"

	"github.com/kcache-go/cache/internal/records"
)

// splitKey returns key as a split records.Key, cut at its first '/' (a key
// without one is returned plain), and records.Plain(key) as the other form.
func splitKey(key string) records.Key {
	if ns, name, ok := strings.Cut(key, "/"); ok {
		return records.Named(ns, name)
	}
	return records.Plain(key)
}

// tableModel drives a Table and a Go map with the same operations and
// checks after each that they agree. Ids are handed out by records.Table, as
// in the store: a removed key's id goes on the free list and is reused first.
type tableModel struct {
	t     testing.TB
	table Table
	recs  records.Table
	want  map[string]int32
}

// newTableModel returns an empty model whose table starts with room for
// capacity keys.
func newTableModel(t testing.TB, capacity int) *tableModel {
	return &tableModel{t: t, table: New(capacity), want: map[string]int32{}}
}

// insert adds key unless present, split at its first '/' when its length
// is even, plain otherwise, so that both forms share the table.
func (km *tableModel) insert(key string) {
	if _, ok := km.want[key]; ok {
		return
	}
	rk := records.Plain(key)
	if len(key)%2 == 0 {
		rk = splitKey(key)
	}
	id := km.recs.Add(rk, key)
	km.table.Insert(id, km.table.HashOf(rk))
	km.want[key] = id
}

// remove deletes key, present or not, given in the other form than
// insert's when its length is a multiple of 3.
func (km *tableModel) remove(key string) {
	wantID, ok := km.want[key]
	if !ok {
		wantID = -1
	}
	rk := records.Plain(key)
	if len(key)%3 == 0 {
		rk = splitKey(key)
	}
	slot, got, _ := km.table.Lookup(rk, km.table.HashOf(rk), &km.recs)
	if got != wantID {
		km.t.Fatalf("lookup(%q) before removal = %d, want %d", key, got, wantID)
	}
	if slot >= 0 {
		km.table.RemoveAt(slot)
	}
	if ok {
		delete(km.want, key)
		km.recs.Free(wantID)
	}
}

// check verifies that every key of the map is found with its id, through
// every form of the key, that probe keys are absent, and the table's
// invariant.
func (km *tableModel) check(absent ...string) {
	if km.table.Len() != len(km.want) {
		km.t.Fatalf("len() = %d, want %d", km.table.Len(), len(km.want))
	}
	for key, id := range km.want {
		for _, rk := range records.Splits(key) {
			if got := km.table.Find(rk, &km.recs); got != id {
				km.t.Fatalf("find(%+v) = %d, want %d", rk, got, id)
			}
		}
	}
	for _, key := range absent {
		for _, rk := range records.Splits(key) {
			if _, ok := km.want[key]; !ok && km.table.Find(rk, &km.recs) != -1 {
				km.t.Fatalf("find(%+v) found a key never inserted or removed", rk)
			}
		}
	}
	km.checkRuns()
}

// checkRuns fails the test unless the table's invariants hold (see
// Table.Verify): every member's tag is its key's, and no member sits past
// an empty slot of its probe run, the property that backward-shift
// deletion maintains.
func (km *tableModel) checkRuns() {
	if err := km.table.Verify(&km.recs); err != nil {
		km.fatalf("%v", err)
	}
}

// fatalf fails the test.
func (km *tableModel) fatalf(format string, args ...any) {
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
			km := newTableModel(t, tt.capacity)
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
	km := newTableModel(t, 1)
	size := len(km.table.slots)
	var wrapping []string
	for i := 0; len(wrapping) < 4; i++ {
		key := fmt.Sprintf("k%d", i)
		if km.table.home(km.table.HashOf(records.Plain(key))) == size-1 {
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

func TestKeyTableLookupOfASplitKeyDoesNotAllocate(t *testing.T) {
	km := newTableModel(t, 0)
	km.insert("team-a/web-0")
	ns, name := strings.Clone("team-a"), strings.Clone("web-0")
	allocs := testing.AllocsPerRun(100, func() {
		if km.table.Find(records.Named(ns, name), &km.recs) != 0 || km.table.Find(records.Plain("team-a/web-0"), &km.recs) != 0 {
			t.Fatal("key not found")
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per lookup, want 0", allocs)
	}
}

// FuzzTableAgreesWithAGoMap reads data as operations: each byte inserts
// (high bit clear) or removes (high bit set) one of 32 keys.
func FuzzTableAgreesWithAGoMap(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 0x80, 0x81, 4, 0x82})
	f.Add([]byte{5, 5, 0x85, 5, 6, 7, 8, 9, 10, 11, 0x86, 0x89, 0x88, 12})
	f.Add([]byte("the quick brown fox jumps over the lazy dog"))
	f.Fuzz(func(t *testing.T, data []byte) {
		km := newTableModel(t, 0)
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

// BenchmarkTableFind looks up every key of a table filled to its load
// limit (the worst point, just before it doubles) in both key forms, and
// reports the mean number of slots a successful and a failed lookup visit.
func BenchmarkTableFind(b *testing.B) {
	for _, slots := range []int{1 << 17, 1 << 20} {
		b.Run(fmt.Sprintf("slots=%d", slots), func(b *testing.B) {
			km := newTableModel(b, 0)
			n := slots * loadNum / loadDen
			keys := make([]records.Key, n)
			for i := range keys {
				key := fmt.Sprintf("team-%d/web-%d", i%500, i)
				km.insert(key)
				keys[i] = splitKey(key)
			}
			if len(km.table.slots) != slots {
				b.Fatalf("table has %d slots, want %d", len(km.table.slots), slots)
			}
			hit, miss := 0, 0
			for i, k := range keys {
				hit += km.probes(k)
				miss += km.probes(splitKey(fmt.Sprintf("team-%d/web-%d-absent", i%500, i)))
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if km.table.Find(keys[i%n], &km.recs) < 0 {
					b.Fatal("key not found")
				}
			}
			// NB: after the loop: ResetTimer drops metrics reported before it.
			b.ReportMetric(float64(hit)/float64(n), "probes/hit")
			b.ReportMetric(float64(miss)/float64(n), "probes/miss")
		})
	}
}

// probes returns how many slots a lookup of key visits, the empty slot
// that ends a failed one included.
func (km *tableModel) probes(key records.Key) int {
	t := &km.table
	mask := len(t.slots) - 1
	n := 1
	for i := t.home(t.HashOf(key)); t.slots[i] != 0 && !km.recs.Key(slotID(t.slots[i])).Equal(key); i = (i + 1) & mask {
		n++
	}
	return n
}

// collidingKeys returns keys in pairs whose tags under t's seed are equal:
// by the birthday bound, a few hundred thousand keys give several such
// pairs among 2^32 tags.
func collidingKeys(t *Table, pairs int) []string {
	byTag := map[uint32]string{}
	var keys []string
	for i := 0; len(keys) < 2*pairs; i++ {
		key := fmt.Sprintf("ns-%d/pod-%d", i%97, i)
		tag := t.HashOf(records.Plain(key))
		if other, ok := byTag[tag]; ok {
			keys = append(keys, other, key)
			continue
		}
		byTag[tag] = key
	}
	return keys
}

func TestKeysWhoseTagsCollideAreToldApartByTheirKeys(t *testing.T) {
	km := newTableModel(t, 0)
	keys := collidingKeys(&km.table, 4)
	for _, key := range keys {
		km.insert(key)
	}
	km.check()
	for i := 0; i < len(keys); i += 2 {
		if a, b := km.table.HashOf(records.Plain(keys[i])), km.table.HashOf(records.Plain(keys[i+1])); a != b {
			t.Fatalf("%q and %q have tags %x and %x, want equal", keys[i], keys[i+1], a, b)
		}
		// Removing one of a colliding pair leaves the other, in either order.
		victim := keys[i+(i/2)%2]
		km.remove(victim)
		km.check(victim)
	}
}

func TestATableCostsTenToTwentyBytesPerStoredKey(t *testing.T) {
	// limit is the number of keys a table of size slots holds before it
	// doubles.
	limit := func(size int) int { return size * loadNum / loadDen }
	tests := []struct {
		name string
		n    int
	}{
		{"just past a doubling", limit(128) + 1},
		{"just before a doubling", limit(1024)},
		{"a large store", 10000},
	}
	// NB: 8-byte slots, at most 13/16 and, after a doubling, just over
	// 13/32 of them used.
	lo := 8 * float64(loadDen) / float64(loadNum)
	hi := 2 * lo
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			km := newTableModel(t, 0)
			for i := 0; i < tt.n; i++ {
				km.insert("ns/" + fmt.Sprint(i))
			}
			slotBytes := int(unsafe.Sizeof(km.table.slots[0])) // NB: 8 since the slots carry tags.
			perKey := float64(len(km.table.slots)*slotBytes) / float64(km.table.Len())
			if perKey < lo-0.01 || perKey > hi {
				t.Fatalf("%d keys in %d slots: %.1f B a key, want %.1f to %.1f", km.table.Len(), len(km.table.slots), perKey, lo, hi)
			}
			t.Logf("%d keys in %d slots: %.1f B a key", km.table.Len(), len(km.table.slots), perKey)
		})
	}
}
