package cache

// The store's key table under keys in both forms: keys whose 32-bit tags
// collide exactly, long probe runs that wrap around, backward shifts after
// an index function panicked mid-delete, and readers racing writers over
// split and plain forms of the same keys. The table stays exact (see
// keytable.Table.Verify) and every key is found in every form.

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kcache-go/cache/internal/keytable"
	"github.com/kcache-go/cache/internal/records"
)

// keyFormCheckTable verifies m's table against its records (see
// keytable.Table.Verify: each member's tag is its key's, no member is cut
// off from its home, count is right), that it holds exactly the stored
// records, and that every stored record is found under its key in each
// form.
func keyFormCheckTable(t *testing.T, m *threadSafeMap) {
	t.Helper()
	if err := m.table.Verify(&m.recs); err != nil {
		t.Fatal(err)
	}
	if m.table.Len() != m.recs.Live() {
		t.Fatalf("%d members, %d stored records", m.table.Len(), m.recs.Live())
	}
	m.recs.ForEachStored(func(id int32, _ interface{}) {
		for _, k := range records.Splits(m.recs.Key(id).String()) {
			if got := m.table.Find(k, &m.recs); got != id {
				t.Fatalf("find(%+v) = %d, want %d", k, got, id)
			}
		}
	})
}

// keyFormCollidingKeys returns pairs of distinct namespace/name keys whose
// tags under tb's seed are equal (all 32 bits), found by brute force.
func keyFormCollidingKeys(tb *keytable.Table, want int) [][2]string {
	seen := make(map[uint32]string, 1<<18)
	var pairs [][2]string
	for i := 0; len(pairs) < want; i++ {
		key := fmt.Sprintf("ns-%d/pod-%d", i%97, i)
		tag := tb.HashOf(records.Plain(key))
		if other, ok := seen[tag]; ok {
			pairs = append(pairs, [2]string{other, key})
			continue
		}
		seen[tag] = key
	}
	return pairs
}

// keyFormObj is a stored object: its key, and whether the "boom" index
// panics on it.
type keyFormObj struct {
	key  string
	boom bool
}

func keyFormBoomIndex(obj interface{}) ([]string, error) {
	o := obj.(*keyFormObj)
	if o.boom {
		panic("boom index panics on purpose")
	}
	return []string{o.key[:1]}, nil
}

// keyFormPut stores obj under key, split at its first '/' when split is
// set (as the store keys a namespaced object), plain otherwise (and when
// the key starts with '/': ("", name) renders as name alone).
func keyFormPut(m *threadSafeMap, key string, obj interface{}, split bool) {
	if ns, name, ok := strings.Cut(key, "/"); ok && split && ns != "" {
		m.updateNamed(ns, name, obj, "")
		return
	}
	m.Add(key, obj)
}

func keyFormDelete(m *threadSafeMap, key string, split bool) {
	if ns, name, ok := strings.Cut(key, "/"); ok && split && ns != "" {
		m.deleteNamed(ns, name, "")
		return
	}
	m.Delete(key)
}

func TestKeysWhoseTagsCollideInAll32BitsAreStillTellApartAndRemovedOneByOne(t *testing.T) {
	tests := []struct {
		name                string
		splitPut, splitDrop bool
	}{
		{"both stored and deleted as plain keys", false, false},
		{"stored split, deleted plain", true, false},
		{"stored plain, deleted split", false, true},
		{"both stored and deleted split", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newThreadSafeMap(Indexers{"first": keyFormBoomIndex}, Indices{})
			pairs := keyFormCollidingKeys(&m.table, 4)
			objs := map[string]*keyFormObj{}
			for _, p := range pairs {
				for _, k := range p {
					objs[k] = &keyFormObj{key: k}
					keyFormPut(m, k, objs[k], tt.splitPut)
				}
			}
			if m.table.HashOf(records.Plain(pairs[0][0])) != m.table.HashOf(records.Plain(pairs[0][1])) {
				t.Fatalf("the brute-forced keys %q do not collide", pairs[0])
			}
			keyFormCheckTable(t, m)
			for k, o := range objs {
				if got, ok := m.Get(k); !ok || got != o {
					t.Fatalf("Get(%q) = %v, %v; want its own object", k, got, ok)
				}
			}
			for _, p := range pairs {
				keyFormDelete(m, p[0], tt.splitDrop)
				if _, ok := m.Get(p[0]); ok {
					t.Fatalf("%q is still stored after its delete", p[0])
				}
				ns, name, _ := strings.Cut(p[1], "/")
				if got, ok := m.getNamed(ns, name); !ok || got != objs[p[1]] {
					t.Fatalf("deleting %q lost its tag twin %q: %v, %v", p[0], p[1], got, ok)
				}
				keyFormCheckTable(t, m)
				keyFormPut(m, p[0], objs[p[0]], !tt.splitPut)
				keyFormCheckTable(t, m)
			}
			if got := len(m.ListKeys()); got != 2*len(pairs) {
				t.Fatalf("%d keys listed, want %d", got, 2*len(pairs))
			}
		})
	}
}

// keyFormSameHomeKeys returns n keys whose tags agree in their low 12 bits,
// so they share one home in every table of up to 4096 slots, that home
// being the last slot of a table of size slots (their run wraps around).
func keyFormSameHomeKeys(tb *keytable.Table, n, slots int) []string {
	var keys []string
	for i := 0; len(keys) < n; i++ {
		key := fmt.Sprintf("wrap-%d/obj-%d", i%13, i)
		if tb.HashOf(records.Plain(key))&4095 == uint32(slots-1) {
			keys = append(keys, key)
		}
	}
	return keys
}

// keyFormMustPanic runs fn and fails the test unless it panics.
func keyFormMustPanic(t *testing.T, fn func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Fatalf("the call did not panic")
		}
	}()
	fn()
}

func TestAPanicInAnIndexFunctionMidDeleteLeavesTheObjectStoredAndTheTableIntactForLaterShifts(t *testing.T) {
	tests := []struct {
		name  string
		split bool
		// boomAt is the position, in the shared probe run, of the key whose
		// delete panics.
		boomAt int
	}{
		{"plain keys, the panicking key first in its run", false, 0},
		{"split keys, the panicking key in mid-run", true, 7},
		{"split keys, the panicking key last in its run", true, 19},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newThreadSafeMap(Indexers{"first": keyFormBoomIndex}, Indices{})
			// 20 same-home keys and 20 fillers: 40 members, a 64-slot
			// table, the run starting at slot 63 and wrapping.
			keys := keyFormSameHomeKeys(&m.table, 20, 64)
			objs := map[string]*keyFormObj{}
			for i, k := range keys {
				objs[k] = &keyFormObj{key: k}
				keyFormPut(m, k, objs[k], tt.split)
				filler := fmt.Sprintf("filler/%d", i)
				objs[filler] = &keyFormObj{key: filler}
				keyFormPut(m, filler, objs[filler], tt.split)
			}
			if m.table.Slots() != 64 {
				t.Fatalf("table has %d slots, the test assumes 64", m.table.Slots())
			}
			keyFormCheckTable(t, m)
			victim := keys[tt.boomAt]
			objs[victim].boom = true
			keyFormMustPanic(t, func() { keyFormDelete(m, victim, tt.split) })
			if got, ok := m.Get(victim); !ok || got != objs[victim] {
				t.Fatalf("after the panicking delete Get(%q) = %v, %v; client-go keeps the object stored", victim, got, ok)
			}
			keyFormCheckTable(t, m)
			for _, k := range keys {
				if k != victim {
					keyFormDelete(m, k, !tt.split)
					keyFormCheckTable(t, m)
				}
			}
			if got, ok := m.Get(victim); !ok || got != objs[victim] {
				t.Fatalf("after its run was shifted Get(%q) = %v, %v", victim, got, ok)
			}
			objs[victim].boom = false
			keyFormDelete(m, victim, tt.split)
			if _, ok := m.Get(victim); ok {
				t.Fatalf("%q survived a delete that did not panic", victim)
			}
			keyFormCheckTable(t, m)
			if got := len(m.ListKeys()); got != 20 {
				t.Fatalf("%d keys left, want the 20 fillers", got)
			}
		})
	}
}

func TestTheTableStaysExactAcrossGrowthAndLongShiftsOfMixedKeyForms(t *testing.T) {
	tests := []struct {
		name string
		n    int
	}{
		{"a table that grows a few times", 100},
		{"a table past a thousand members", 1500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newThreadSafeMap(Indexers{"first": keyFormBoomIndex}, Indices{})
			key := func(i int) string {
				return []string{"a/b/", "a/", "/", "//x/", "名前/"}[i%5] + fmt.Sprint(i) + strings.Repeat("/", i%3)
			}
			for round := 0; round < 3; round++ {
				for i := 0; i < tt.n; i++ {
					keyFormPut(m, key(i), &keyFormObj{key: key(i)}, (i+round)%2 == 0)
				}
				keyFormCheckTable(t, m)
				for i := round; i < tt.n; i += 2 {
					keyFormDelete(m, key(i), (i+round)%3 == 0)
				}
				keyFormCheckTable(t, m)
				for i := 0; i < tt.n; i++ {
					_, ok := m.Get(key(i))
					if want := (i-round)%2 != 0 || i < round; ok != want {
						t.Fatalf("round %d: Get(%q) found=%v, want %v", round, key(i), ok, want)
					}
				}
			}
		})
	}
}

// keyFormMeta is a namespaced object for the Indexer race.
type keyFormMeta struct {
	metav1.ObjectMeta
}

// keyFormReadUntil looks up every fixed object, by its rendered key and by
// the object, until stop is closed; a miss or a wrong object is sent to
// errs and ends the reader.
// Once it has looked every one up it calls warm, so writers can wait for
// readers to be running.
func keyFormReadUntil(ix Indexer, fixed []*keyFormMeta, stop <-chan struct{}, errs chan<- string, warm func()) {
	warmed := false
	defer func() {
		if !warmed {
			warm() // NB: a reader that fails early must not hang the writers.
		}
	}()
	for n := 0; ; n++ {
		if n == len(fixed) {
			warmed = true
			warm()
		}
		select {
		case <-stop:
			return
		default:
		}
		o := fixed[n%len(fixed)]
		key := o.Namespace + "/" + o.Name
		got, ok, _ := ix.GetByKey(key)
		got2, ok2, _ := ix.Get(o)
		if !ok || got != o || !ok2 || got2 != o {
			errs <- fmt.Sprintf("reader lost %q: %v %v / %v %v", key, got, ok, got2, ok2)
			return
		}
	}
}

func TestReadersOfAlwaysStoredKeysFindThemInBothFormsWhileWritersGrowAndShiftTheTable(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	tests := []struct {
		name    string
		writers int
		ops     int
	}{
		{"one writer", 1, 3000},
		{"two writers", 2, 1500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := NewIndexer(MetaNamespaceKeyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc})
			var fixed []*keyFormMeta
			for i := 0; i < 40; i++ {
				o := &keyFormMeta{metav1.ObjectMeta{Namespace: []string{"a/b", "a", "ns"}[i%3], Name: fmt.Sprintf("fixed-%d/x", i)}}
				fixed = append(fixed, o)
				if err := ix.Add(o); err != nil {
					t.Fatal(err)
				}
			}
			var wg sync.WaitGroup
			stop := make(chan struct{})
			errs := make(chan string, 8)
			var warm sync.WaitGroup
			for r := 0; r < 2; r++ {
				wg.Add(1)
				warm.Add(1)
				go func() {
					defer wg.Done()
					keyFormReadUntil(ix, fixed, stop, errs, warm.Done)
				}()
			}
			warm.Wait()
			var writers sync.WaitGroup
			for w := 0; w < tt.writers; w++ {
				writers.Add(1)
				go func() {
					defer writers.Done()
					for i := 0; i < tt.ops; i++ {
						o := &keyFormMeta{metav1.ObjectMeta{Namespace: "a/b", Name: fmt.Sprintf("churn-%d-%d", w, i%700)}}
						if i%3 == 2 {
							_ = ix.Delete(o)
							continue
						}
						_ = ix.Add(o)
					}
				}()
			}
			writers.Wait()
			close(stop)
			wg.Wait()
			close(errs)
			for e := range errs {
				t.Error(e)
			}
			keyFormCheckTable(t, ix.(*cache).threadSafeMap)
		})
	}
}

func TestAStoreReplacedWithPlainKeysIsWrittenAndDeletedThroughSplitKeys(t *testing.T) {
	tests := []struct {
		name string
		n    int
	}{
		{"a few keys", 5},
		{"enough keys to grow the table after the Replace", 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newThreadSafeMap(Indexers{"first": keyFormBoomIndex}, Indices{})
			key := func(i int) string { return fmt.Sprintf("%s/p-%d", []string{"a", "a/b", "x//"}[i%3], i) }
			items := map[string]interface{}{}
			for i := 0; i < tt.n; i++ {
				items[key(i)] = &keyFormObj{key: key(i)}
			}
			m.Replace(items, "1")
			keyFormCheckTable(t, m)
			for i := 0; i < 2*tt.n; i++ {
				keyFormPut(m, key(i), &keyFormObj{key: key(i) + "'"}, true)
			}
			keyFormCheckTable(t, m)
			if got := len(m.ListKeys()); got != 2*tt.n {
				t.Fatalf("%d keys after writing %d through split keys over %d replaced, want %d", got, 2*tt.n, tt.n, 2*tt.n)
			}
			for i := 0; i < 2*tt.n; i += 2 {
				keyFormDelete(m, key(i), true)
			}
			keyFormCheckTable(t, m)
			for i := 0; i < 2*tt.n; i++ {
				obj, ok := m.Get(key(i))
				if ok != (i%2 == 1) || (ok && obj.(*keyFormObj).key != key(i)+"'") {
					t.Fatalf("Get(%q) = %v, %v", key(i), obj, ok)
				}
			}
			// replaceKeyed with one key in both forms keeps one record.
			keys := []records.Key{records.Named("a/b", "c"), records.Plain("a/b/c"), records.Named("a", "b/c")}
			m.replaceKeyed(keys, []interface{}{&keyFormObj{key: "1"}, &keyFormObj{key: "2"}, &keyFormObj{key: "3"}}, "2")
			keyFormCheckTable(t, m)
			if obj, ok := m.Get("a/b/c"); !ok || obj.(*keyFormObj).key != "3" || len(m.ListKeys()) != 1 {
				t.Fatalf("after replacing with one key in three forms: %v %v, keys %q", obj, ok, m.ListKeys())
			}
		})
	}
}

// keyFormFuzzKey builds a key from bytes over a tiny alphabet, so that keys
// often collide across splits ("a/b"+"c" and "a"+"b/c").
func keyFormFuzzKey(b []byte) string {
	const alphabet = "ab/c"
	var sb strings.Builder
	for _, x := range b {
		sb.WriteByte(alphabet[x%4])
	}
	return sb.String()
}

func FuzzAStoreWritingMixedKeyFormsAgreesWithAMapOfRenderings(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17})
	f.Add([]byte("split keys and plain keys \x00\x01\x02\x03 collide /// a/b/c"))
	f.Add(bytes100())
	f.Fuzz(func(t *testing.T, data []byte) {
		m := newThreadSafeMap(Indexers{"first": func(obj interface{}) ([]string, error) {
			return []string{obj.(*keyFormObj).key[:1]}, nil
		}}, Indices{})
		want := map[string]*keyFormObj{}
		for len(data) >= 2 {
			op, n := data[0], 1+int(data[1]%6)
			data = data[2:]
			if n > len(data) {
				n = len(data)
			}
			key := "k" + keyFormFuzzKey(data[:n])
			data = data[n:]
			split := op&4 != 0
			switch op % 3 {
			case 0, 1:
				o := &keyFormObj{key: key}
				keyFormPut(m, key, o, split)
				want[key] = o
			default:
				keyFormDelete(m, key, split)
				delete(want, key)
			}
		}
		keyFormCheckTable(t, m)
		if got := len(m.ListKeys()); got != len(want) {
			t.Fatalf("%d keys stored, want %d", got, len(want))
		}
		for k, o := range want {
			if got, ok := m.Get(k); !ok || got != o {
				t.Fatalf("Get(%q) = %v, %v; want %v", k, got, ok, o)
			}
		}
	})
}

// bytes100 is a seed that writes and deletes a hundred keys.
func bytes100() []byte {
	var b []byte
	for i := 0; i < 300; i++ {
		b = append(b, byte(i*7), byte(i), byte(i*3), byte(i*5), byte(i*11))
	}
	return b
}

func TestADetachedRecordIsAdoptedThroughEitherFormAndTaggedAsItsKey(t *testing.T) {
	tests := []struct {
		name                   string
		splitDelete, splitBack bool
	}{
		{"deleted plain, written back split", false, true},
		{"deleted split, written back plain", true, false},
		{"deleted and written back split", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newThreadSafeMap(Indexers{"first": keyFormBoomIndex}, Indices{})
			for i := 0; i < 50; i++ {
				k := fmt.Sprintf("a/b/%d", i)
				keyFormPut(m, k, &keyFormObj{key: k}, i%2 == 0)
			}
			victim := &keyFormObj{key: "x/y/victim"}
			keyFormPut(m, victim.key, victim, true)
			victim.key = "z-changed-in-place" // its index value moves from "x" to "z"
			keyFormDelete(m, "x/y/victim", tt.splitDelete)
			if _, ok := m.detached["x/y/victim"]; !ok {
				t.Fatalf("the deleted record whose object changed in place is not detached: %v", m.detached)
			}
			keyFormCheckTable(t, m)
			if keys, _ := m.IndexKeys("first", "x"); len(keys) != 1 || keys[0] != "x/y/victim" {
				t.Fatalf("IndexKeys(first, x) = %q, want the detached key as client-go keeps it", keys)
			}
			back := &keyFormObj{key: "x/y/victim"}
			keyFormPut(m, "x/y/victim", back, tt.splitBack)
			if len(m.detached) != 0 {
				t.Fatalf("the record was not adopted: %v", m.detached)
			}
			keyFormCheckTable(t, m)
			if got, ok := m.Get("x/y/victim"); !ok || got != back {
				t.Fatalf("Get = %v, %v; want the object written back", got, ok)
			}
			objs, _ := m.ByIndex("first", "x")
			if len(objs) != 1 || objs[0] != back {
				t.Fatalf("ByIndex(first, x) = %v, want the object written back once", objs)
			}
		})
	}
}
