package cache

import (
	"fmt"
	"hash/maphash"
	"math/rand"
	"strings"
	"testing"
)

// splitKey returns key as a split recordKey, cut at its first '/' (a key
// without one is returned plain), and plainKey(key) as the other form.
func splitKey(key string) recordKey {
	if ns, name, ok := strings.Cut(key, "/"); ok {
		return namedKey(ns, name)
	}
	return plainKey(key)
}

// keyForms returns key in each form it can take: plain, and split at each
// '/' it holds.
func keyForms(key string) []recordKey {
	forms := []recordKey{plainKey(key)}
	for i := 0; i < len(key); i++ {
		if key[i] == '/' && i > 0 {
			forms = append(forms, namedKey(key[:i], key[i+1:]))
		}
	}
	return forms
}

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

// insert adds key unless present, split at its first '/' when its length
// is even, plain otherwise, so that both forms share the table.
func (km *keyTableModel) insert(key string) {
	if _, ok := km.want[key]; ok {
		return
	}
	rk := plainKey(key)
	if len(key)%2 == 0 {
		rk = splitKey(key)
	}
	id := km.recs.add(rk, key)
	km.table.insert(id, km.table.hashOf(rk))
	km.want[key] = id
}

// remove deletes key, present or not, given in the other form than
// insert's when its length is a multiple of 3.
func (km *keyTableModel) remove(key string) {
	wantID, ok := km.want[key]
	if !ok {
		wantID = -1
	}
	rk := plainKey(key)
	if len(key)%3 == 0 {
		rk = splitKey(key)
	}
	slot, got, _ := km.table.lookup(rk, km.table.hashOf(rk), &km.recs)
	if got != wantID {
		km.t.Fatalf("lookup(%q) before removal = %d, want %d", key, got, wantID)
	}
	if slot >= 0 {
		km.table.removeAt(slot)
	}
	if ok {
		delete(km.want, key)
		km.recs.free(wantID)
	}
}

// check verifies that every key of the map is found with its id, through
// every form of the key, that probe keys are absent, and the table's
// invariant.
func (km *keyTableModel) check(absent ...string) {
	if km.table.len() != len(km.want) {
		km.t.Fatalf("len() = %d, want %d", km.table.len(), len(km.want))
	}
	for key, id := range km.want {
		for _, rk := range keyForms(key) {
			if got := km.table.find(rk, &km.recs); got != id {
				km.t.Fatalf("find(%+v) = %d, want %d", rk, got, id)
			}
		}
	}
	for _, key := range absent {
		for _, rk := range keyForms(key) {
			if _, ok := km.want[key]; !ok && km.table.find(rk, &km.recs) != -1 {
				km.t.Fatalf("find(%+v) found a key never inserted or removed", rk)
			}
		}
	}
	km.checkRuns()
}

// checkRuns verifies that every member's tag is its key's, and that no
// member sits past an empty slot of its probe run, the property that
// backward-shift deletion maintains.
func (km *keyTableModel) checkRuns() {
	n := 0
	mask := len(km.table.slots) - 1
	for i, s := range km.table.slots {
		if s == 0 {
			continue
		}
		n++
		key := km.recs.key(slotID(s))
		if slotTag(s) != km.table.hashOf(key) {
			km.fatalf("slot %d (%q) has tag %x, its key's is %x", i, key.String(), slotTag(s), km.table.hashOf(key))
		}
		for j := km.table.home(slotTag(s)); j != i; j = (j + 1) & mask {
			if km.table.slots[j] == 0 {
				km.fatalf("slot %d (%q) is cut off from its home by empty slot %d", i, key.String(), j)
			}
		}
	}
	if n != km.table.count || n*keyTableLoadDen > len(km.table.slots)*keyTableLoadNum {
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
		if km.table.home(km.table.hashOf(plainKey(key))) == size-1 {
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
	km := newKeyTableModel(t, 0)
	km.insert("team-a/web-0")
	ns, name := strings.Clone("team-a"), strings.Clone("web-0")
	allocs := testing.AllocsPerRun(100, func() {
		if km.table.find(namedKey(ns, name), &km.recs) != 0 || km.table.find(plainKey("team-a/web-0"), &km.recs) != 0 {
			t.Fatal("key not found")
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per lookup, want 0", allocs)
	}
}

func TestEverySplitOfAKeyHashesAsItsPlainRenderingDoes(t *testing.T) {
	seed := maphash.MakeSeed()
	long := strings.Repeat("n", 300)
	renderings := []string{
		"", "name", "ns/", "ns/a", "a/b/c/d", "/", "//", "/a", "a/", "a//b",
		"名前空間/ポッド", long + "/x", "x/" + long, long + "/" + long, long,
		strings.Repeat("q", 127) + "/", strings.Repeat("q", 63) + "/" + strings.Repeat("r", 64),
	}
	hashes := map[uint64]string{}
	for _, rendered := range renderings {
		want := plainKey(rendered).hash(seed)
		for _, k := range keyForms(rendered) {
			if got := k.hash(seed); got != want {
				t.Errorf("hash of %+v = %x, want %x (that of plain %q)", k, got, want, rendered)
			}
		}
		if other, ok := hashes[want]; ok {
			t.Errorf("%q and %q hash alike", rendered, other)
		}
		hashes[want] = rendered
	}
}

func TestRecordKeysAreEqualExactlyWhenTheirRenderingsAre(t *testing.T) {
	keys := []recordKey{
		plainKey(""), plainKey("a"), plainKey("a/b"), plainKey("a/b/c"), plainKey("ab"), plainKey("a/"), plainKey("/a"),
		namedKey("a", "b"), namedKey("a", "b/c"), namedKey("a/b", "c"), namedKey("a", ""), namedKey("", "a/b"),
		namedKey("ab", "c"), namedKey("a", "bc"), namedKey("a/b", ""), namedKey("a", "/"), namedKey("a", "b/"),
	}
	for _, k := range keys {
		for _, o := range keys {
			if got, want := k.equal(o), k.String() == o.String(); got != want {
				t.Errorf("%+v.equal(%+v) = %v, want %v (renderings %q, %q)", k, o, got, want, k.String(), o.String())
			}
			if k.len() != len(k.String()) {
				t.Errorf("%+v.len() = %d, want %d", k, k.len(), len(k.String()))
			}
		}
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

// BenchmarkKeyTableFind looks up every key of a table filled to its load
// limit (the worst point, just before it doubles) in both key forms, and
// reports the mean number of slots a successful and a failed lookup visit.
func BenchmarkKeyTableFind(b *testing.B) {
	for _, slots := range []int{1 << 17, 1 << 20} {
		b.Run(fmt.Sprintf("slots=%d", slots), func(b *testing.B) {
			km := newKeyTableModel(b, 0)
			n := slots * keyTableLoadNum / keyTableLoadDen
			keys := make([]recordKey, n)
			for i := range keys {
				key := fmt.Sprintf("team-%d/web-%d", i%500, i)
				km.insert(key)
				keys[i] = splitKey(key)
			}
			if len(km.table.slots) != slots {
				b.Fatalf("table has %d slots, want %d", len(km.table.slots), slots)
			}
			hit, miss := 0, 0
			for _, k := range keys {
				hit += km.probes(k)
				miss += km.probes(namedKey(k.prefix, k.rest+"-absent"))
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if km.table.find(keys[i%n], &km.recs) < 0 {
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
func (km *keyTableModel) probes(key recordKey) int {
	t := &km.table
	mask := len(t.slots) - 1
	n := 1
	for i := t.home(t.hashOf(key)); t.slots[i] != 0 && !km.recs.key(slotID(t.slots[i])).equal(key); i = (i + 1) & mask {
		n++
	}
	return n
}

// collidingKeys returns keys in pairs whose tags under t's seed are equal:
// by the birthday bound, a few hundred thousand keys give several such
// pairs among 2^32 tags.
func collidingKeys(t *keyTable, pairs int) []string {
	byTag := map[uint32]string{}
	var keys []string
	for i := 0; len(keys) < 2*pairs; i++ {
		key := fmt.Sprintf("ns-%d/pod-%d", i%97, i)
		tag := t.hashOf(plainKey(key))
		if other, ok := byTag[tag]; ok {
			keys = append(keys, other, key)
			continue
		}
		byTag[tag] = key
	}
	return keys
}

func TestKeysWhoseTagsCollideAreToldApartByTheirKeys(t *testing.T) {
	km := newKeyTableModel(t, 0)
	keys := collidingKeys(&km.table, 4)
	for _, key := range keys {
		km.insert(key)
	}
	km.check()
	for i := 0; i < len(keys); i += 2 {
		if a, b := km.table.hashOf(plainKey(keys[i])), km.table.hashOf(plainKey(keys[i+1])); a != b {
			t.Fatalf("%q and %q have tags %x and %x, want equal", keys[i], keys[i+1], a, b)
		}
		// Removing one of a colliding pair leaves the other, in either order.
		victim := keys[i+(i/2)%2]
		km.remove(victim)
		km.check(victim)
	}
}
