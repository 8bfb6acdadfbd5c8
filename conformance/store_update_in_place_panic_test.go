package conformance

// The sole-membership shortcut skips the IndexFunc on the old object when
// the record's memberships already are the new object's values. client-go
// always calls it, so when the cached object was changed in place into one
// its IndexFunc rejects (and only the old object is rejected), client-go's
// Update panics and kcache's does not: a deliberate difference (README,
// Deliberate differences). These tests pin exactly that: client-go panics,
// kcache does not, and both stores then read alike (with one index,
// client-go's panic comes before it touches that index, which already
// holds the record under the new object's values).

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// soleMetaHolder has metadata through ObjectMetaAccessor only while meta is
// set, so it can lose its metadata in place.
type soleMetaHolder struct{ meta *metav1.ObjectMeta }

func (h *soleMetaHolder) GetObjectMeta() metav1.Object {
	if h.meta == nil {
		return nil
	}
	return h.meta
}

func TestAnUpdateWhoseCachedObjectWasChangedInPlaceIntoOneItsIndexFuncRejectsPanicsInClientGoOnlyAndLeavesTheSameContent(t *testing.T) {
	cases := []struct {
		name    string
		indexer bool
		index   string
		// spoil changes the cached object in place so that the index
		// function rejects it.
		spoil func(p *corev1.Pod)
	}{
		{name: "an erring IndexFunc, plain keys", index: "err", spoil: func(p *corev1.Pod) { p.Labels["err"] = "1" }},
		{name: "an erring IndexFunc, an Indexer", indexer: true, index: "err", spoil: func(p *corev1.Pod) { p.Labels["err"] = "1" }},
		{name: "a panicking IndexFunc, plain keys", index: "boom", spoil: func(p *corev1.Pod) { p.Labels["boom"] = "1" }},
		{name: "a panicking IndexFunc, an Indexer", indexer: true, index: "boom", spoil: func(p *corev1.Pod) { p.Labels["boom"] = "1" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newSolePair(t, soleConfig{name: c.name, indexer: c.indexer, indexers: []string{c.index}})
			old := p.pod("ns", "a", map[string]string{"s": "x"}, "")
			next := p.pod("ns", "a", map[string]string{"s": "x"}, "")
			p.keys = []string{"ns/a"}
			p.do("add o0", func(s *soleSide) { s.add("ns/a", old) })
			c.spoil(old)
			p.doDeliberatelyDifferent("update o1 (same values as o0 had)", func(s *soleSide) { s.put("ns/a", next) })
		})
	}
}

func TestAnUpdateWhoseCachedObjectLostItsMetadataInPlacePanicsInTheNamespaceIndexInClientGoOnlyAndLeavesTheSameContent(t *testing.T) {
	for _, index := range []string{"ns", "wrapns"} {
		t.Run(index, func(t *testing.T) {
			p := newSolePair(t, soleConfig{name: index, indexers: []string{index}})
			old := &soleMetaHolder{meta: &metav1.ObjectMeta{Namespace: "ns", Name: "a"}}
			next := &soleMetaHolder{meta: &metav1.ObjectMeta{Namespace: "ns", Name: "a"}}
			p.keys = []string{"k"}
			p.do("add holder", func(s *soleSide) { s.add("k", old) })
			old.meta = nil
			p.doDeliberatelyDifferent("update to a holder of the same namespace", func(s *soleSide) { s.put("k", next) })
		})
	}
}

func TestAnUpdateWhoseIndexFuncNowRejectsTheCachedObjectThroughOutsideStatePanicsInClientGoOnlyAndLeavesTheSameContent(t *testing.T) {
	for _, indexer := range []bool{false, true} {
		t.Run(fmt.Sprintf("indexer=%v", indexer), func(t *testing.T) {
			soleRejectV1 = false
			defer func() { soleRejectV1 = false }()
			p := newSolePair(t, soleConfig{indexer: indexer, indexers: []string{"outside"}})
			old := p.pod("ns", "a", map[string]string{"s": "x", "v": "1"}, "")
			next := p.pod("ns", "a", map[string]string{"s": "x", "v": "2"}, "")
			p.keys = []string{"ns/a"}
			p.do("add v1", func(s *soleSide) { s.add("ns/a", old) })
			soleRejectV1 = true
			p.doDeliberatelyDifferent("update to v2 (same values)", func(s *soleSide) { s.put("ns/a", next) })
		})
	}
}

// doDeliberatelyDifferent runs op on both sides where client-go panics and
// kcache, by design, does not; then both stores must read alike.
func (p *solePair) doDeliberatelyDifferent(desc string, op func(s *soleSide)) {
	p.t.Helper()
	p.next(desc)
	if a := storeCatchPanic(func() { op(p.cg) }); a == "" {
		p.t.Errorf("step %d %s: client-go did not panic", p.step, desc)
	}
	if b := storeCatchPanic(func() { op(p.kc) }); b != "" {
		p.t.Errorf("step %d %s: kcache panicked: %s", p.step, desc, b)
	}
	p.compare(desc)
}
