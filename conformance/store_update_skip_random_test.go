package conformance

// Long random operation sequences against both libraries: in-place
// mutations of cached objects, multi-valued and duplicate-returning
// IndexFuncs, an IndexFunc reading outside state, nil objects, initial
// Indices (keys not stored, empty value sets, names with no IndexFunc that
// AddIndexers later takes over), deletes and re-adds (record id reuse),
// Transactions, Replace, and panicking IndexFuncs (alone in their store, as
// client-go's index order is a map's, so a partial update after a panic is
// deterministic only with one index).

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// soleRun drives one random sequence.
type soleRun struct {
	*solePair
	rng *rand.Rand
	// slots are the keys and, per key, the objects it may hold.
	slots []soleSlot
	// spoilers are allowed to create objects the panicking functions
	// reject (never by an in-place change, see
	// store_update_in_place_panic_test.go).
	spoilers bool
	// nonPods lets non-pod objects (no metadata) be written.
	nonPods   bool
	laterDone map[string]bool
}

type soleSlot struct {
	ns, name string
	objs     []*corev1.Pod
}

func (r *soleRun) key(s soleSlot) string {
	if s.ns == "" {
		return s.name
	}
	return s.ns + "/" + s.name
}

var (
	soleSValues = []string{"a", "b", "c", "", "a,b", "empty", "gone"}
	soleMValues = []string{"a", "a,b", "b,a,b", "", "c,d,e", "a,a"}
	soleNodes   = []string{"", "n1", "n2"}
	soleNS      = []string{"ns1", "ns2", ""}
)

// newObj makes a new version of slot i.
func (r *soleRun) newObj(i int) *corev1.Pod {
	s := &r.slots[i]
	labels := map[string]string{"s": soleSValues[r.rng.Intn(len(soleSValues))]}
	if r.rng.Intn(3) > 0 {
		labels["m"] = soleMValues[r.rng.Intn(len(soleMValues))]
	}
	if r.spoilers && r.rng.Intn(8) == 0 {
		labels["err"] = "1"
	}
	if r.spoilers && r.rng.Intn(8) == 0 {
		labels["boom"] = "1"
	}
	o := r.pod(s.ns, s.name, labels, soleNodes[r.rng.Intn(len(soleNodes))])
	s.objs = append(s.objs, o)
	return o
}

// anyObj returns an object to write under slot i: usually one of its
// versions, sometimes a new one, nil (plain keys only) or a non-pod.
func (r *soleRun) anyObj(i int) any {
	if !r.cfg.indexer {
		switch r.rng.Intn(20) {
		case 0:
			return nil
		case 1:
			if r.nonPods {
				return "not-a-pod"
			}
		case 2:
			// another slot's object under this key
			j := r.rng.Intn(len(r.slots))
			if len(r.slots[j].objs) > 0 {
				return r.slots[j].objs[r.rng.Intn(len(r.slots[j].objs))]
			}
		}
	}
	s := r.slots[i]
	if len(s.objs) == 0 || r.rng.Intn(3) == 0 {
		return r.newObj(i)
	}
	return s.objs[r.rng.Intn(len(s.objs))]
}

// mutate changes a cached (or any) object in place: labels, node or
// namespace, never to a value a panicking IndexFunc rejects.
func (r *soleRun) mutate() string {
	if len(r.objs) == 0 {
		return "mutate nothing"
	}
	var o *corev1.Pod
	if r.rng.Intn(2) == 0 {
		// an object the store returns
		list := r.cg.list()
		if len(list) > 0 {
			o, _ = list[r.rng.Intn(len(list))].(*corev1.Pod)
		}
	}
	if o == nil {
		o = r.objs[r.rng.Intn(len(r.objs))]
	}
	name := r.of(o)
	switch r.rng.Intn(5) {
	case 0:
		o.Labels["s"] = soleSValues[r.rng.Intn(len(soleSValues))]
		return fmt.Sprintf("mutate %s s=%q", name, o.Labels["s"])
	case 1:
		m := soleMValues[r.rng.Intn(len(soleMValues))]
		o.Labels["m"] = m
		return fmt.Sprintf("mutate %s m=%q", name, m)
	case 2:
		delete(o.Labels, "m")
		return fmt.Sprintf("mutate %s -m", name)
	case 3:
		o.Spec.NodeName = soleNodes[r.rng.Intn(len(soleNodes))]
		return fmt.Sprintf("mutate %s node=%q", name, o.Spec.NodeName)
	}
	o.Namespace = soleNS[r.rng.Intn(len(soleNS))]
	return fmt.Sprintf("mutate %s ns=%q", name, o.Namespace)
}

// step runs one random operation on both sides.
func (r *soleRun) step() bool {
	i := r.rng.Intn(len(r.slots))
	k := r.key(r.slots[i])
	switch op := r.rng.Intn(100); {
	case op < 30:
		obj := r.anyObj(i)
		return r.do(fmt.Sprintf("update %s %s", k, r.of(obj)), func(s *soleSide) { s.put(k, obj) })
	case op < 40:
		obj := r.anyObj(i)
		return r.do(fmt.Sprintf("add %s %s", k, r.of(obj)), func(s *soleSide) { s.add(k, obj) })
	case op < 52:
		return r.do("delete "+k, func(s *soleSide) { s.del(k) })
	case op < 66:
		desc := r.mutate()
		return r.do(desc, func(*soleSide) {})
	case op < 74:
		// Get, change in place, write the very same object back.
		obj, ok := r.cg.get(k)
		p, isPod := obj.(*corev1.Pod)
		if !ok || !isPod || p == nil {
			return true
		}
		p.Labels["s"] = soleSValues[r.rng.Intn(len(soleSValues))]
		return r.do(fmt.Sprintf("mutate+update-same %s s=%q", r.of(p), p.Labels["s"]), func(s *soleSide) { s.put(k, p) })
	case op < 78:
		r.epoch++
		return r.do(fmt.Sprintf("epoch=%d", r.epoch), func(*soleSide) {})
	case op < 81:
		return r.replace()
	case op < 83:
		return r.addLater()
	case op < 90 && !r.cfg.indexer:
		return r.txn()
	}
	obj := r.anyObj(i)
	return r.do(fmt.Sprintf("update %s %s", k, r.of(obj)), func(s *soleSide) { s.put(k, obj) })
}

// replace replaces the content with a random subset of the slots.
func (r *soleRun) replace() bool {
	var keys []string
	var objs []any
	var desc []string
	for i := range r.slots {
		if r.rng.Intn(2) == 0 {
			continue
		}
		obj := r.anyObj(i)
		if p, ok := obj.(*corev1.Pod); r.spoilers && ok && (p.Labels["err"] == "1" || p.Labels["boom"] == "1") {
			// NB: client-go rebuilds in map order; a panic
			// mid-rebuild leaves a random part indexed.
			continue
		}
		if _, ok := obj.(string); ok {
			continue
		}
		if r.cfg.indexer {
			if p, ok := obj.(*corev1.Pod); !ok || p == nil {
				continue
			}
		}
		keys = append(keys, r.key(r.slots[i]))
		objs = append(objs, obj)
		desc = append(desc, r.key(r.slots[i])+"="+r.of(obj))
	}
	return r.do("replace "+strings.Join(desc, ","), func(s *soleSide) { s.replace(keys, objs) })
}

// addLater registers one of the later names not registered yet.
func (r *soleRun) addLater() bool {
	for _, n := range r.cfg.later {
		if r.laterDone[n] {
			continue
		}
		r.laterDone[n] = true
		names := []string{n}
		return r.do("addIndexers "+n, func(s *soleSide) {
			if err := s.addIndexers(names); err != nil {
				panic("error: " + err.Error())
			}
		})
	}
	return true
}

// txn writes a few slots in one Transaction; a nil object at an even
// position deletes.
func (r *soleRun) txn() bool {
	var keys []string
	var objs []any
	var desc []string
	for n := 1 + r.rng.Intn(4); n > 0; n-- {
		i := r.rng.Intn(len(r.slots))
		obj := r.anyObj(i)
		keys = append(keys, r.key(r.slots[i]))
		objs = append(objs, obj)
		desc = append(desc, r.key(r.slots[i])+"="+r.of(obj))
	}
	return r.do("txn "+strings.Join(desc, ","), func(s *soleSide) { s.txn(keys, objs) })
}

func newSoleRun(t *testing.T, c soleConfig, seed int64, slots int) *soleRun {
	r := &soleRun{solePair: newSolePair(t, c), rng: rand.New(rand.NewSource(seed)), laterDone: map[string]bool{}}
	for i := 0; i < slots; i++ {
		s := soleSlot{ns: soleNS[i%2], name: fmt.Sprintf("p%d", i)}
		r.slots = append(r.slots, s)
		r.keys = append(r.keys, r.key(s))
	}
	r.keys = append(r.keys, "pre/x", "pre/y", "ns1/p0/extra", "p0", "ns2/p1")
	return r
}

func TestUpdatesThatSkipTheOldObjectGiveClientGosIndicesReadsAndPanicsOverLongRandomSequences(t *testing.T) {
	rich := []string{"ns", "s", "multi", "node", "dup", "ext", "many", "wrapns"}
	preloaded := map[string]map[string][]string{
		"s":     {"a": {"ns1/p0", "pre/x"}, "b": {"ns2/p1"}},
		"multi": {"a": {"pre/x", "pre/y"}, "zz": {"ns1/p2"}},
		"pend":  {"a": {"ns1/p0", "pre/y"}, "q": {"pre/x"}},
		"pend2": {"b": {"ns2/p3"}},
	}
	withEmpty := map[string]map[string][]string{
		"s":    {"a": {"ns1/p0"}, "empty": {}},
		"pend": {"gone": {}, "a": {"pre/x"}},
	}
	configs := []struct {
		cfg      soleConfig
		spoilers bool
		nonPods  bool
	}{
		{cfg: soleConfig{name: "plain keys, many indices", indexers: rich, later: []string{"s2", "pend"}}},
		{cfg: soleConfig{name: "an Indexer, many indices", indexer: true, indexers: rich, later: []string{"s2"}}},
		{cfg: soleConfig{name: "initial Indices with pending names", indexers: []string{"s", "multi", "ns"}, later: []string{"pend", "pend2"}, indices: preloaded}},
		{cfg: soleConfig{name: "initial Indices with empty value sets", indexers: []string{"s", "node"}, later: []string{"pend"}, indices: withEmpty}},
		{cfg: soleConfig{name: "one erring index", indexers: []string{"err"}}, spoilers: true},
		{cfg: soleConfig{name: "one panicking index", indexers: []string{"boom"}}, spoilers: true},
		{cfg: soleConfig{name: "one namespace index and objects without metadata", indexers: []string{"ns"}}, nonPods: true},
		{cfg: soleConfig{name: "one erring index, an Indexer", indexer: true, indexers: []string{"err"}}, spoilers: true},
	}
	for _, c := range configs {
		t.Run(c.cfg.name, func(t *testing.T) {
			panics := 0
			for seed := int64(1); seed <= 4; seed++ {
				r := newSoleRun(t, c.cfg, seed, 8)
				r.spoilers, r.nonPods = c.spoilers, c.nonPods
				for n := 0; n < 300; n++ {
					if !r.step() {
						t.Fatalf("seed %d", seed)
					}
				}
				panics += r.panics
			}
			if (c.spoilers || c.nonPods) && panics == 0 {
				t.Fatalf("no operation panicked: the panicking objects never reached the store")
			}
		})
	}
}

func TestUpdatesThatSkipTheOldObjectGiveClientGosIndicesOverManyRecordsAcrossChunksAndReusedIDs(t *testing.T) {
	configs := []soleConfig{
		{name: "plain keys", indexers: []string{"ns", "s", "multi", "node", "dup"}, later: []string{"s2"}},
		{name: "an Indexer", indexer: true, indexers: []string{"ns", "s", "multi", "node"}, later: []string{"s2"}},
	}
	for _, c := range configs {
		t.Run(c.name, func(t *testing.T) {
			for seed := int64(1); seed <= 1; seed++ {
				r := newSoleRun(t, c, seed, 1300)
				r.every = 250
				// fill past the first record chunk, then churn
				for i := range r.slots {
					obj := r.newObj(i)
					k := r.key(r.slots[i])
					r.do("add "+k, func(s *soleSide) { s.add(k, obj) })
				}
				for n := 0; n < 5000; n++ {
					if !r.step() {
						t.Fatalf("seed %d", seed)
					}
				}
				if !r.compare("end") {
					t.Fatalf("seed %d", seed)
				}
			}
		})
	}
}
