package cache

// The key sets of a store's indices under writes (keyset.Blocks, as the
// indices use it): every live set's list must be its own (its inline array
// while it fits, never another set's), a released set must not keep its
// value reachable, and the sole column must stay true to the sets while
// hash sets are emptied and their numbers reused. That a released set keeps
// no list it grew is pinned in internal/keyset.

import (
	"fmt"
	"math/rand"
	"runtime"
	"strings"
	"testing"
	"unsafe"
	"weak"

	"k8s.io/apimachinery/pkg/util/sets"
)

// checkSetStorage fails t when a set of any index, live or free, breaks
// the invariants of its numbered blocks (see keyset.Blocks.Verify): most
// to the point here, a list of the inline capacity must sit on the set's
// own inline array, and no two sets may share a list.
func checkSetStorage(t *testing.T, m *threadSafeMap, when string) {
	t.Helper()
	all := append([]*valueIndex(nil), m.indices.ordered...)
	for _, vi := range m.indices.pending {
		all = append(all, vi)
	}
	for _, vi := range all {
		if err := vi.sets.Verify(); err != nil {
			t.Fatalf("%s: index %s: %v", when, vi.name, err)
		}
	}
}

func TestRandomWritesOverBigSetsKeepEverySetOnItsOwnListAndEverySoleEntryTrue(t *testing.T) {
	values := []string{"", "big", "big,", "a", "a,b,c", "big,a", "c,d,e,f,g", "!"}
	for seed := int64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			var preBig, prePend []string
			for i := 0; i < 90; i++ {
				preBig = append(preBig, fmt.Sprintf("k%d", i))
				prePend = append(prePend, fmt.Sprintf("pre%d", i))
			}
			in := Indices{"v": {"": nil, "big": sets.New(preBig...)}, "later": {"big": sets.New(prePend...), "gone": nil}}
			m := newThreadSafeMap(Indexers{"v": soleValues}, in)
			var objs []*soleObj
			catch := func(fn func()) {
				defer func() { _ = recover() }()
				fn()
			}
			phase := 0
			for step := 0; step < 3000; step++ {
				key := fmt.Sprintf("k%d", rng.Intn(150))
				pick := func() string {
					if rng.Intn(3) == 0 {
						return fmt.Sprintf("ph%d-%d,big", phase, rng.Intn(4))
					}
					return values[rng.Intn(len(values))]
				}
				var desc string
				switch op := rng.Intn(20); {
				case op < 8:
					o := &soleObj{key: key, values: pick()}
					objs = append(objs, o)
					desc = "update " + key + "=" + o.values
					catch(func() { m.Update(key, o) })
				case op < 13:
					desc = "delete " + key
					catch(func() { m.Delete(key) })
				case op < 17 && len(objs) > 0:
					o := objs[rng.Intn(len(objs))]
					o.values = values[rng.Intn(len(values)-1)]
					desc = "in place " + o.key + "=" + o.values
				case op == 17:
					phase++
					continue
				case op == 18 && rng.Intn(20) == 0:
					desc = "replace"
					items := map[string]interface{}{}
					for i := 0; i < 100; i++ {
						items[fmt.Sprintf("k%d", rng.Intn(150))] = &soleObj{values: values[rng.Intn(len(values)-1)]}
					}
					m.Replace(items, "")
				case op == 19 && step > 1500 && m.indices.byName["later"] == nil:
					desc = "addIndexers later"
					catch(func() { _ = m.AddIndexers(Indexers{"later": soleValues}) })
				default:
					continue
				}
				if step%10 == 0 {
					checkSole(t, m, fmt.Sprintf("step %d %s", step, desc))
					checkSetStorage(t, m, fmt.Sprintf("step %d %s", step, desc))
				}
			}
			checkSole(t, m, "end")
			checkSetStorage(t, m, "end")
		})
	}
}

// weakValues is an IndexFunc whose values are fresh allocations of their
// own (not substrings of the object), and that keeps a weak pointer to the
// first allocation of each value it returns.
type weakValues struct {
	seen map[string]weak.Pointer[byte]
}

func (w *weakValues) fn(obj interface{}) ([]string, error) {
	o := obj.(*soleObj)
	if o.values == "" {
		return nil, nil
	}
	var out []string
	for _, v := range strings.Split(o.values, ",") {
		// NB: 64 bytes, so the value is not in a tiny-allocator block
		// shared with other allocations.
		c := strings.Clone(v + strings.Repeat(".", 64))
		if _, ok := w.seen[c]; !ok {
			w.seen[c] = weak.Make(unsafe.StringData(c))
		}
		out = append(out, c)
	}
	return out, nil
}

func weakValue(v string) string { return v + strings.Repeat(".", 64) }

func TestAReleasedKeySetDoesNotKeepItsValueReachable(t *testing.T) {
	cases := []struct {
		name    string
		members int
		// release empties the set of value "victim", whose members are
		// keys m0..m{members-1}.
		release func(m *threadSafeMap, members int)
	}{
		{"a one-member set emptied by a delete", 1, deleteAll},
		{"a grown list emptied by deletes", 10, deleteAll},
		{"a hash set emptied by deletes", 100, deleteAll},
		{"a grown list emptied by updates to another value", 10, moveAll},
		{"a hash set emptied by updates to another value", 100, moveAll},
		{"a hash set emptied and its number reused by another value", 100, func(m *threadSafeMap, n int) {
			deleteAll(m, n)
			for i := 0; i < 20; i++ {
				m.Add(fmt.Sprintf("r%d", i), &soleObj{values: fmt.Sprintf("reuse%d", i)})
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := &weakValues{seen: map[string]weak.Pointer[byte]{}}
			m := newThreadSafeMap(Indexers{"v": w.fn}, nil)
			m.Add("keep", &soleObj{values: "other"})
			for i := 0; i < c.members; i++ {
				m.Add(fmt.Sprintf("m%d", i), &soleObj{values: "victim"})
			}
			vi := m.indices.byName["v"]
			ks := vi.byValue[weakValue("victim")]
			if ks == nil || ks.Len() != c.members {
				t.Fatalf("victim set missing or wrong size")
			}
			ks = nil
			valuePtr := w.seen[weakValue("victim")]
			delete(w.seen, weakValue("victim"))
			c.release(m, c.members)
			if vi.byValue[weakValue("victim")] != nil {
				t.Fatalf("victim still indexed")
			}
			if !weakTargetCollected(valuePtr) {
				t.Errorf("the released set's value string is still reachable")
			}
			checkSole(t, m, "after release")
			checkSetStorage(t, m, "after release")
			runtime.KeepAlive(m)
		})
	}
}

func deleteAll(m *threadSafeMap, n int) {
	for i := 0; i < n; i++ {
		m.Delete(fmt.Sprintf("m%d", i))
	}
}

func moveAll(m *threadSafeMap, n int) {
	for i := 0; i < n; i++ {
		m.Update(fmt.Sprintf("m%d", i), &soleObj{values: "other"})
	}
}
