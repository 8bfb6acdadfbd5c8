package cache

// The sole-membership column (index_sole.go): after any
// sequence of writes each record's sole entry must tell its memberships
// (0: none, n+1: exactly set n, soleMany: any number), every set number must
// be live or free, never both, and churning distinct values or keys must not
// grow the column, the set numbers or the free list past the store's
// high-water mark. Also: the shortcut's point, each IndexFunc called once by
// an Update that changes no indexed value, must survive record id reuse
// (storeIndices.fresh), a Replace after a panic, and chunk boundaries.

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/kcache-go/cache/internal/keyset"
	"github.com/kcache-go/cache/internal/records"
)

// soleObj is a test object: its key and its comma-separated values.
type soleObj struct{ key, values string }

func soleValues(obj interface{}) ([]string, error) {
	o := obj.(*soleObj)
	if o.values == "" {
		return nil, nil
	}
	if o.values == "!" {
		return nil, fmt.Errorf("rejected")
	}
	return strings.Split(o.values, ","), nil
}

// checkSole fails t when an index's sole column or set numbers disagree with
// its key sets.
func checkSole(t *testing.T, m *threadSafeMap, when string) {
	t.Helper()
	for _, vi := range m.indices.ordered {
		holders := map[int32][]*keyset.Set{}
		nums := map[int32]bool{}
		for value, ks := range vi.byValue {
			if nums[ks.Num()] {
				t.Fatalf("%s: index %s: set number %d used twice", when, vi.name, ks.Num())
			}
			nums[ks.Num()] = true
			if int(ks.Num()) >= vi.sets.Len() || vi.sets.At(ks.Num()) != ks || *vi.sets.ValueAt(ks.Num()) != value {
				t.Fatalf("%s: index %s: set %q has number %d, the set table says otherwise", when, vi.name, value, ks.Num())
			}
			ks.ForEach(func(id int32) { holders[id] = append(holders[id], ks) })
		}
		if err := vi.sets.Verify(); err != nil {
			t.Fatalf("%s: index %s: %v", when, vi.name, err)
		}
		for _, n := range vi.sets.Released() {
			if nums[n] {
				t.Fatalf("%s: index %s: set number %d both live and free", when, vi.name, n)
			}
			nums[n] = true
		}
		if len(nums) != vi.sets.Len() {
			t.Fatalf("%s: index %s: %d set numbers, %d live or free", when, vi.name, vi.sets.Len(), len(nums))
		}
		for id := int32(0); id < int32(m.recs.Len()+2*records.ChunkSize); id++ {
			s, h := vi.sole.get(id), holders[id]
			switch {
			case s == soleMany:
			case s == 0 && len(h) != 0:
				t.Fatalf("%s: index %s: id %d sole 0 but held by %d sets", when, vi.name, id, len(h))
			case s > 0 && (len(h) != 1 || h[0].Num() != s-1):
				t.Fatalf("%s: index %s: id %d sole %d but held by %d sets", when, vi.name, id, s, len(h))
			}
		}
	}
}

func TestRandomWritesKeepEverySoleEntryTrueToTheKeySets(t *testing.T) {
	values := []string{"", "a", "b", "a,b", "a,a", "c", "b,c,d", "!"}
	for seed := int64(1); seed <= 20; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			m := newThreadSafeMap(Indexers{"v": soleValues}, Indices{"v": {"a": nil, "pre": {"k1": {}, "x": {}}}, "later": {"a": {"k2": {}}}})
			var objs []*soleObj
			catch := func(fn func()) {
				defer func() { _ = recover() }()
				fn()
			}
			for step := 0; step < 400; step++ {
				key := fmt.Sprintf("k%d", rng.Intn(12))
				var desc string
				switch op := rng.Intn(10); {
				case op < 4:
					o := &soleObj{key: key, values: values[rng.Intn(len(values))]}
					objs = append(objs, o)
					desc = "update " + key + "=" + o.values
					catch(func() { m.Update(key, o) })
				case op < 6:
					desc = "delete " + key
					catch(func() { m.Delete(key) })
				case op < 8 && len(objs) > 0:
					o := objs[rng.Intn(len(objs))]
					o.values = values[rng.Intn(len(values)-1)]
					desc = "in place " + o.key + "=" + o.values
				case op == 8 && rng.Intn(4) == 0:
					desc = "replace"
					items := map[string]interface{}{}
					for i := 0; i < 5; i++ {
						items[fmt.Sprintf("k%d", rng.Intn(12))] = &soleObj{values: values[rng.Intn(len(values)-1)]}
					}
					m.Replace(items, "")
				case op == 9 && step == 200:
					desc = "addIndexers later"
					catch(func() { _ = m.AddIndexers(Indexers{"later": soleValues}) })
				default:
					continue
				}
				checkSole(t, m, fmt.Sprintf("step %d %s", step, desc))
			}
		})
	}
}

func TestChurningDistinctValuesAndKeysKeepsTheSoleColumnAndSetNumbersWithinTheHighWaterMark(t *testing.T) {
	cases := []struct {
		name string
		// write makes round i's writes to m; live is the most
		// records and values it keeps at once.
		write func(m *threadSafeMap, i int)
		live  int
	}{
		{name: "fixed keys, each update a new value", live: 100, write: func(m *threadSafeMap, i int) {
			m.Update(fmt.Sprintf("k%d", i%100), &soleObj{values: fmt.Sprintf("v%d", i)})
		}},
		{name: "fixed keys, each update new multiple values", live: 300, write: func(m *threadSafeMap, i int) {
			m.Update(fmt.Sprintf("k%d", i%100), &soleObj{values: fmt.Sprintf("v%d,w%d,x%d", i, i, i)})
		}},
		{name: "new keys added and deleted, each its own value", live: 1500, write: func(m *threadSafeMap, i int) {
			m.Add(fmt.Sprintf("n%d", i), &soleObj{values: fmt.Sprintf("v%d", i)})
			if i >= 1500 {
				m.Delete(fmt.Sprintf("n%d", i-1500))
			}
		}},
		{name: "new keys added and deleted, several values each", live: 1500 * 2, write: func(m *threadSafeMap, i int) {
			m.Add(fmt.Sprintf("n%d", i), &soleObj{values: fmt.Sprintf("v%d,s%d", i, i%3)})
			if i >= 1500 {
				m.Delete(fmt.Sprintf("n%d", i-1500))
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := newThreadSafeMap(Indexers{"v": soleValues}, nil)
			for i := 0; i < 30000; i++ {
				c.write(m, i)
			}
			checkSole(t, m, "after churn")
			vi := m.indices.byName["v"]
			if vi.sets.Len() > c.live+3 {
				t.Errorf("%d set numbers after churn, at most %d values were live at once", vi.sets.Len(), c.live+3)
			}
			if len(vi.sets.Released()) > vi.sets.Len() {
				t.Errorf("%d free numbers for %d set numbers", len(vi.sets.Released()), vi.sets.Len())
			}
			cells := 0
			for _, ch := range vi.sole.chunks {
				cells += len(ch)
			}
			if limit := m.recs.Len() + records.ChunkSize; cells > limit {
				t.Errorf("sole column has %d cells for %d records", cells, m.recs.Len())
			}
		})
	}
}

// soleCounted counts its calls.
type soleCounted struct{ calls int }

func (c *soleCounted) fn(obj interface{}) ([]string, error) {
	c.calls++
	return soleValues(obj)
}

func TestAnUpdateThatChangesNoIndexedValueCallsEachIndexFuncOnce(t *testing.T) {
	cases := []struct {
		name string
		// prepare writes m before the update of key "u" from
		// values "x" to values "x"; it may panic.
		prepare func(m *threadSafeMap)
	}{
		{name: "a new store", prepare: func(m *threadSafeMap) {}},
		{name: "a record id freed by a key held by several values", prepare: func(m *threadSafeMap) {
			m.Add("gone", &soleObj{values: "x,y"})
			m.Delete("gone") // NB: its id, once many, is u's
		}},
		{name: "a record past the first chunk", prepare: func(m *threadSafeMap) {
			for i := 0; i < 3*records.ChunkSize; i++ {
				m.Add(fmt.Sprintf("f%d", i), &soleObj{values: fmt.Sprintf("x,f%d", i%7)})
			}
		}},
		{name: "many ids freed after being several values, then reused", prepare: func(m *threadSafeMap) {
			for i := 0; i < 2*records.ChunkSize; i++ {
				m.Add(fmt.Sprintf("f%d", i), &soleObj{values: "x,y"})
			}
			for i := 0; i < 2*records.ChunkSize; i++ {
				m.Delete(fmt.Sprintf("f%d", i))
			}
			for i := 0; i < 2*records.ChunkSize-1; i++ {
				m.Add(fmt.Sprintf("g%d", i), &soleObj{values: "x"})
			}
		}},
		{name: "a Replace after a panicking write", prepare: func(m *threadSafeMap) {
			func() {
				defer func() { _ = recover() }()
				m.Add("bad", &soleObj{values: "!"})
			}()
			m.Replace(map[string]interface{}{"other": &soleObj{values: "y"}}, "")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			counted := &soleCounted{}
			m := newThreadSafeMap(Indexers{"v": counted.fn}, nil)
			c.prepare(m)
			m.Add("u", &soleObj{values: "x"})
			counted.calls = 0
			m.Update("u", &soleObj{values: "x"})
			if counted.calls != 1 {
				t.Errorf("the IndexFunc was called %d times, want once", counted.calls)
			}
			checkSole(t, m, "after the update")
		})
	}
}
