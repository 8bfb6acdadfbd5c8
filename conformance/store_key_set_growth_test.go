package conformance

// Key sets as they grow and shrink in the numbered key set table (the key
// set table, its inline first lists and values, the sole entries): key sets that grow past their inline list (4), past
// the list form (64, becoming hash sets), shrink back to nothing and have
// their numbers reused by other values, while objects changed in place and
// deleted records (detached, still held by a stale value) keep sole entries
// naming old numbers. Every read is compared against client-go.

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"sync"
	"testing"

	kc "github.com/kcache-go/cache"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// setsRun drives one random sequence over many slots, so that shared values
// hold far more than 64 keys, with values that come and go by phase.
type setsRun struct {
	*solePair
	rng   *rand.Rand
	slots []soleSlot
	// cur is the last object written under each slot (nil: none).
	cur   []*corev1.Pod
	phase int
	later []string
	done  map[string]bool
	boom  bool
}

// sValue picks a single value: a big shared one, the empty string, or one of
// the current phase's values (which later phases abandon).
func (r *setsRun) sValue() string {
	switch n := r.rng.Intn(20); {
	case n < 8:
		return "big"
	case n < 11:
		return ""
	case n < 12:
		return fmt.Sprintf("old%d", (r.phase+2)%3) // a value that comes back
	}
	return fmt.Sprintf("p%d-%d", r.phase, r.rng.Intn(6))
}

// mValue picks a comma-separated multi value, duplicates and "" included.
func (r *setsRun) mValue() string {
	var parts []string
	for n := r.rng.Intn(5); n > 0; n-- {
		parts = append(parts, r.sValue())
	}
	return strings.Join(parts, ",")
}

func (r *setsRun) newObj(i int) *corev1.Pod {
	s := &r.slots[i]
	labels := map[string]string{"s": r.sValue()}
	if r.rng.Intn(4) > 0 {
		labels["m"] = r.mValue()
	}
	if r.boom && r.rng.Intn(15) == 0 {
		labels["boom"] = "1"
	}
	node := ""
	if r.rng.Intn(2) == 0 {
		node = fmt.Sprintf("n%d", r.rng.Intn(3))
	}
	o := r.pod(s.ns, s.name, labels, node)
	s.objs = append(s.objs, o)
	return o
}

func (r *setsRun) key(i int) string { return r.slots[i].ns + "/" + r.slots[i].name }

// mutate changes a stored object in place (never into a panicking one).
func (r *setsRun) mutate() bool {
	list := r.cg.list()
	if len(list) == 0 {
		return true
	}
	o, ok := list[r.rng.Intn(len(list))].(*corev1.Pod)
	if !ok || o == nil {
		return true
	}
	switch r.rng.Intn(3) {
	case 0:
		o.Labels["s"] = r.sValue()
	case 1:
		o.Labels["m"] = r.mValue()
	default:
		delete(o.Labels, "m")
	}
	return r.do(fmt.Sprintf("mutate %s s=%q m=%q", r.of(o), o.Labels["s"], o.Labels["m"]), func(*soleSide) {})
}

// drain rewrites every slot holding value v (in s) with a fresh object of
// another value: the set of v shrinks to nothing (from a hash set when big).
func (r *setsRun) drain(v string) bool {
	for i := range r.slots {
		o := r.cur[i]
		if o == nil || o.Labels["s"] != v {
			continue
		}
		n := r.newObj(i)
		if n.Labels["s"] == v {
			n.Labels["s"] = fmt.Sprintf("p%d-drained", r.phase)
		}
		delete(n.Labels, "boom")
		k := r.key(i)
		if !r.do(fmt.Sprintf("drain %s: update %s %s s=%q", v, k, r.of(n), n.Labels["s"]), func(s *soleSide) { s.put(k, n) }) {
			return false
		}
		r.cur[i] = n
	}
	return true
}

func (r *setsRun) step() bool {
	i := r.rng.Intn(len(r.slots))
	k := r.key(i)
	switch op := r.rng.Intn(100); {
	case op < 35:
		var o *corev1.Pod
		if objs := r.slots[i].objs; len(objs) > 0 && r.rng.Intn(4) == 0 {
			o = objs[r.rng.Intn(len(objs))] // an older version, maybe mutated
		} else {
			o = r.newObj(i)
		}
		r.cur[i] = o
		return r.do(fmt.Sprintf("update %s %s", k, r.of(o)), func(s *soleSide) { s.put(k, o) })
	case op < 45:
		o := r.newObj(i)
		r.cur[i] = o
		return r.do(fmt.Sprintf("add %s %s", k, r.of(o)), func(s *soleSide) { s.add(k, o) })
	case op < 65:
		r.cur[i] = nil
		return r.do("delete "+k, func(s *soleSide) { s.del(k) })
	case op < 80:
		return r.mutate()
	case op < 84:
		obj, ok := r.cg.get(k)
		p, isPod := obj.(*corev1.Pod)
		if !ok || !isPod || p == nil {
			return true
		}
		p.Labels["s"] = r.sValue()
		return r.do(fmt.Sprintf("mutate+update-same %s s=%q", r.of(p), p.Labels["s"]), func(s *soleSide) { s.put(k, p) })
	case op < 88:
		r.phase++
		return r.do(fmt.Sprintf("phase=%d", r.phase), func(*soleSide) {})
	case op < 92:
		vs := []string{"big", "", fmt.Sprintf("p%d-0", r.phase), fmt.Sprintf("old%d", (r.phase+2)%3)}
		return r.drain(vs[r.rng.Intn(len(vs))])
	case op < 93:
		for _, n := range r.later {
			if r.done[n] {
				continue
			}
			r.done[n] = true
			names := []string{n}
			return r.do("addIndexers "+n, func(s *soleSide) {
				if err := s.addIndexers(names); err != nil {
					panic("error: " + err.Error())
				}
			})
		}
		return true
	case op < 94 && r.rng.Intn(3) == 0:
		var keys []string
		var objs []any
		for j := range r.slots {
			if r.rng.Intn(3) == 0 {
				r.cur[j] = nil
				continue
			}
			o := r.newObj(j)
			delete(o.Labels, "boom") // NB: client-go rebuilds in map order
			keys, objs = append(keys, r.key(j)), append(objs, o)
			r.cur[j] = o
		}
		return r.do(fmt.Sprintf("replace %d objects", len(keys)), func(s *soleSide) { s.replace(keys, objs) })
	}
	return r.do("noop", func(*soleSide) {})
}

// largestSet is the most keys any value of any index holds in kcache.
func (r *setsRun) largestSet() int {
	largest := 0
	for _, name := range r.kc.names() {
		for _, v := range r.kc.values(name) {
			keys, _ := r.kc.indexKeys(name, v)
			largest = max(largest, len(keys))
		}
	}
	return largest
}

// bigIndices is initial content: a value with more keys than a list holds,
// values given empty (the empty string among them), keys not stored, and a
// pending name AddIndexers takes over.
func bigIndices(slots int) map[string]map[string][]string {
	var many, pend []string
	for i := 0; i < slots; i += 2 {
		many = append(many, fmt.Sprintf("ns%d/p%d", 1+i%2, i))
	}
	for i := 0; i < 80; i++ {
		pend = append(pend, fmt.Sprintf("pre/x%d", i))
	}
	pend = append(pend, "ns1/p0", "ns2/p1")
	return map[string]map[string][]string{
		"s":    {"big": many, "": {}, "empty": {}, "p0-1": {"ns1/p0", "pre/y"}},
		"pend": {"big": pend, "": {}, "gone": {}, "p0-0": {"ns2/p3"}},
	}
}

// setsConfig is one store configuration the random key set runs use.
type setsConfig struct {
	cfg  soleConfig
	boom bool
}

// setsConfigs are the configurations of the random key set runs.
func setsConfigs(slots int) []setsConfig {
	return []setsConfig{
		{cfg: soleConfig{name: "plain keys", indexers: []string{"s", "multi", "dup", "node", "ns"}, later: []string{"s2"}}},
		{cfg: soleConfig{name: "an Indexer", indexer: true, indexers: []string{"s", "multi", "many", "ns"}, later: []string{"s2"}}},
		{cfg: soleConfig{name: "initial Indices with big, empty and pending values", indexers: []string{"s", "multi"}, later: []string{"pend", "s2"}, indices: bigIndices(slots)}},
		{cfg: soleConfig{name: "one panicking index", indexers: []string{"boom"}}, boom: true},
	}
}

// runKeySets drives one seeded random run of steps operations over slots
// slots, comparing both stores' every read after each every-th operation
// and at the end, and fails unless some value held more than 64 keys.
func runKeySets(t *testing.T, c setsConfig, seed int64, slots, steps, every int) {
	t.Helper()
	r := &setsRun{solePair: newSolePair(t, c.cfg), rng: rand.New(rand.NewSource(seed)), cur: make([]*corev1.Pod, slots), later: c.cfg.later, done: map[string]bool{}, boom: c.boom}
	r.every = every
	for i := 0; i < slots; i++ {
		r.slots = append(r.slots, soleSlot{ns: fmt.Sprintf("ns%d", 1+i%2), name: fmt.Sprintf("p%d", i)})
	}
	r.keys = []string{"ns1/p0", "ns2/p1", "pre/x0", "pre/y", "ns2/p3"}
	for i := range r.slots {
		o := r.newObj(i)
		delete(o.Labels, "boom")
		r.cur[i] = o
		k := r.key(i)
		if !r.do("add "+k, func(s *soleSide) { s.add(k, o) }) {
			t.Fatalf("seed %d", seed)
		}
	}
	largest := r.largestSet()
	for n := 0; n < steps; n++ {
		if !r.step() {
			t.Fatalf("seed %d", seed)
		}
		if n%100 == 0 {
			largest = max(largest, r.largestSet())
		}
	}
	if largest <= 64 {
		t.Fatalf("seed %d: no value ever held more than 64 keys (largest %d)", seed, largest)
	}
	if !r.compare("end") {
		t.Fatalf("seed %d", seed)
	}
	if c.boom && r.panics == 0 {
		t.Fatalf("seed %d: nothing panicked", seed)
	}
}

func TestKeySetsThatGrowPastTheirListShrinkToNothingAndAreReusedGiveClientGosReads(t *testing.T) {
	const slots = 200
	for _, c := range setsConfigs(slots) {
		t.Run(c.cfg.name, func(t *testing.T) {
			for seed := int64(1); seed <= 2; seed++ {
				runKeySets(t, c, seed, slots, 2500, 40)
			}
		})
	}
}

// TestEveryReadAfterEveryOperationOfRandomKeySetGrowthMatchesClientGo is the
// run above with another seed, shorter, comparing List, ListKeys, Get, ListIndexFuncValues,
// IndexKeys, ByIndex and Index of both stores after every single operation,
// so that a difference that a later operation hides is caught too.
func TestEveryReadAfterEveryOperationOfRandomKeySetGrowthMatchesClientGo(t *testing.T) {
	const slots = 200
	for _, c := range setsConfigs(slots) {
		t.Run(c.cfg.name, func(t *testing.T) {
			runKeySets(t, c, 3, slots, 600, 1)
		})
	}
}

// setsPod is a pod with label s.
func setsPod(ns, name, s string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"s": s}}}
}

func TestScriptedSetNumberReuseAroundDetachedAndChangedInPlaceRecordsMatchesClientGo(t *testing.T) {
	type op struct {
		desc string
		run  func(p *solePair, objs map[string]*corev1.Pod) func(s *soleSide)
	}
	put := func(name, key, s string) op {
		return op{fmt.Sprintf("put %s=%s s=%q", key, name, s), func(p *solePair, objs map[string]*corev1.Pod) func(*soleSide) {
			ns, n, _ := strings.Cut(key, "/")
			o := p.pod(ns, n, map[string]string{"s": s}, "")
			objs[name] = o
			return func(side *soleSide) { side.put(key, o) }
		}}
	}
	reput := func(name, key string) op {
		return op{fmt.Sprintf("put %s=%s again", key, name), func(p *solePair, objs map[string]*corev1.Pod) func(*soleSide) {
			o := objs[name]
			return func(side *soleSide) { side.put(key, o) }
		}}
	}
	del := func(key string) op {
		return op{"delete " + key, func(*solePair, map[string]*corev1.Pod) func(*soleSide) {
			return func(side *soleSide) { side.del(key) }
		}}
	}
	mutate := func(name, s string) op {
		return op{fmt.Sprintf("mutate %s s=%q", name, s), func(_ *solePair, objs map[string]*corev1.Pod) func(*soleSide) {
			objs[name].Labels["s"] = s
			return func(*soleSide) {}
		}}
	}
	many := func(prefix string, n int, s string) []op {
		var out []op
		for i := 0; i < n; i++ {
			out = append(out, put(fmt.Sprintf("%s%d", prefix, i), fmt.Sprintf("ns/%s%d", prefix, i), s))
		}
		return out
	}
	manyDel := func(prefix string, n int) []op {
		var out []op
		for i := 0; i < n; i++ {
			out = append(out, del(fmt.Sprintf("ns/%s%d", prefix, i)))
		}
		return out
	}
	cat := func(parts ...[]op) []op {
		var out []op
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	cases := []struct {
		name  string
		cfg   soleConfig
		probe []string
		ops   []op
	}{
		{
			name: "a detached record keeps a stale value while that value's hash set is emptied and its number goes to another value",
			cfg:  soleConfig{indexers: []string{"s"}},
			ops: cat(
				[]op{put("d", "ns/d", "a")},
				many("x", 70, "a"),
				[]op{mutate("d", "z"), del("ns/d")}, // d stays under a, detached
				manyDel("x", 70),                    // a keeps only d
				[]op{put("e", "ns/e", "b"), put("f", "ns/f", "c")},
				many("y", 5, "c"),
				[]op{mutate("d", "a"), put("d2", "ns/d", "z"), del("ns/d")},
				[]op{put("g", "ns/g", "a"), del("ns/g"), put("h", "ns/h", "")},
			),
		},
		{
			name: "an emptied set reused by the empty string while a stale record names the old number",
			cfg:  soleConfig{indexers: []string{"s", "multi"}},
			ops: cat(
				[]op{put("k", "ns/k", "v1"), put("j", "ns/j", "v2")},
				[]op{mutate("k", ""), del("ns/k")},      // k detached under v1
				[]op{put("l", "ns/l", ""), del("ns/j")}, // v2's number free, "" takes another
				[]op{put("m", "ns/m", "v3"), put("k2", "ns/k", "")},
				[]op{mutate("k2", "v1"), del("ns/k"), put("k3", "ns/k", "v1"), del("ns/k")},
				[]op{del("ns/l"), put("n", "ns/n", ""), del("ns/n")},
			),
		},
		{
			name: "a delete after an in-place change onto the empty string and back",
			cfg:  soleConfig{indexers: []string{"s"}},
			ops: cat(
				many("q", 6, ""),
				[]op{put("r", "ns/r", "w"), mutate("r", ""), del("ns/r")},
				manyDel("q", 6),
				[]op{put("r2", "ns/r", "w"), mutate("r2", "w2"), reput("r2", "ns/r"), del("ns/r")},
			),
		},
		{
			name: "initial Indices with the empty string given empty and a big pending value taken over",
			cfg: soleConfig{indexers: []string{"s"}, later: []string{"pend"}, indices: map[string]map[string][]string{
				"s":    {"": {}, "big": {"ns/x0", "ns/x1", "ns/x2", "ns/x3", "ns/x4", "ns/x5"}},
				"pend": {"": {}, "big": keysOf("ns/x", 70)},
			}},
			ops: cat(
				many("x", 70, "big"),
				[]op{{"addIndexers pend", func(*solePair, map[string]*corev1.Pod) func(*soleSide) {
					return func(s *soleSide) {
						if err := s.addIndexers([]string{"pend"}); err != nil {
							panic(err)
						}
					}
				}}},
				manyDel("x", 70),
				[]op{put("a", "ns/a", ""), put("b", "ns/b", "big"), del("ns/a")},
			),
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newSolePair(t, c.cfg)
			p.keys = []string{"ns/d", "ns/k", "ns/r", "ns/x0", "ns/a"}
			objs := map[string]*corev1.Pod{}
			for _, o := range c.ops {
				if !p.do(o.desc, o.run(p, objs)) {
					t.FailNow()
				}
			}
		})
	}
}

func keysOf(prefix string, n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, fmt.Sprintf("%s%d", prefix, i))
	}
	return out
}

// TestSlicesReturnedByIndexReadsNeverChangeUnderTheCallerNorLetTheCallerCorruptTheIndex
// holds a small set (inline list) and a big one (hash set): a caller that
// overwrites or appends to what IndexKeys, ByIndex, Index, List, ListKeys and
// ListIndexFuncValues returned must not change the index, and what it got
// must not change under it after later writes, with readers running
// concurrently with writers.
func TestSlicesReturnedByIndexReadsNeverChangeUnderTheCallerNorLetTheCallerCorruptTheIndex(t *testing.T) {
	value := func(obj any) ([]string, error) { return []string{obj.(*corev1.Pod).Labels["s"]}, nil }
	for _, n := range []int{1, 3, 4, 5, 64, 65, 300} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			s := kc.NewThreadSafeStore(kc.Indexers{"s": value}, nil)
			want := make([]string, 0, n)
			for i := 0; i < n; i++ {
				k := fmt.Sprintf("ns/a%03d", i)
				s.Add(k, setsPod("ns", fmt.Sprintf("a%03d", i), "a"))
				want = append(want, k)
			}
			sort.Strings(want)
			keys, _ := s.IndexKeys("s", "a")
			objs, _ := s.ByIndex("s", "a")
			got := append([]string(nil), keys...)
			sort.Strings(got)
			if fmt.Sprint(got) != fmt.Sprint(want) || len(objs) != n {
				t.Fatalf("IndexKeys=%v (%d objects), want %v", got, len(objs), want)
			}
			snapshot := append([]string(nil), keys...)
			// writers move the records around, readers read, concurrently
			var wg sync.WaitGroup
			wg.Add(3)
			go func() {
				defer wg.Done()
				for i := 0; i < n; i++ {
					k := fmt.Sprintf("ns/a%03d", i)
					s.Update(k, setsPod("ns", fmt.Sprintf("a%03d", i), "b"))
					s.Delete(k)
					s.Add(k, setsPod("ns", fmt.Sprintf("a%03d", i), "c"))
				}
			}()
			for r := 0; r < 2; r++ {
				go func() {
					defer wg.Done()
					for i := 0; i < 50; i++ {
						for _, v := range []string{"a", "b", "c"} {
							ks, _ := s.IndexKeys("s", v)
							for j := range ks {
								ks[j] = "garbage"
							}
							_ = append(ks, "more")
							os, _ := s.ByIndex("s", v)
							for j := range os {
								os[j] = nil
							}
						}
						l := s.ListKeys()
						for j := range l {
							l[j] = "x"
						}
						vs := s.ListIndexFuncValues("s")
						for j := range vs {
							vs[j] = "y"
						}
					}
				}()
			}
			wg.Wait()
			if fmt.Sprint(keys) != fmt.Sprint(snapshot) {
				t.Fatalf("a returned IndexKeys slice changed under the caller")
			}
			for j := range keys {
				keys[j] = "corrupt"
			}
			for j := range objs {
				objs[j] = nil
			}
			for _, v := range []string{"a", "b"} {
				if ks, _ := s.IndexKeys("s", v); len(ks) != 0 {
					t.Fatalf("value %s still holds %v", v, ks)
				}
			}
			ks, _ := s.IndexKeys("s", "c")
			sort.Strings(ks)
			if fmt.Sprint(ks) != fmt.Sprint(want) {
				t.Fatalf("IndexKeys(c)=%v, want %v", ks, want)
			}
			os, _ := s.ByIndex("s", "c")
			for _, o := range os {
				if o == nil || o.(*corev1.Pod).Labels["s"] != "c" {
					t.Fatalf("ByIndex(c) gave %v", o)
				}
			}
			if vs := s.ListIndexFuncValues("s"); fmt.Sprint(vs) != "[c]" {
				t.Fatalf("ListIndexFuncValues=%v, want [c]", vs)
			}
		})
	}
}
