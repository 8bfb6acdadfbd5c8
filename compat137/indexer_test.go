package compat137

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	kc "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	cg "k8s.io/client-go/tools/cache"
)

// byNamespace indexes pods by namespace.
func byNamespace(p *v1.Pod) ([]string, error) { return []string{p.Namespace}, nil }

// failing fails for pods named q and indexes no value for the others.
func failing(p *v1.Pod) ([]string, error) {
	if p.Name == "q" {
		return nil, fmt.Errorf("no index for %s", p.Name)
	}
	return nil, nil
}

// describePods renders a typed result with its nil-ness, the objects
// sorted (client-go's index order is map order).
func describePods(pods []*v1.Pod, err error) string {
	names := make([]string, 0, len(pods))
	for _, p := range pods {
		names = append(names, describe(p))
	}
	slices.Sort(names)
	return fmt.Sprintf("len=%d nil=%v err=%v: %s", len(pods), pods == nil, err, strings.Join(names, " "))
}

// indexerSteps are the typed indexer operations of the scenario, on the
// objects in seed; t is the typed indexer of one library (as TypedIndexer
// methods bound by the caller).
type typedIndexerOps struct {
	add              func(obj runtime.Object) string
	addTypedIndexers func(name string, fn func(*v1.Pod) ([]string, error)) error
	typedIndex       func(name string, obj *v1.Pod) ([]*v1.Pod, error)
	byTypedIndex     func(name, value string) ([]*v1.Pod, error)
	indexKeys        func(name, value string) ([]string, error)
}

// playTypedIndexer runs the scenario and returns its trace.
func playTypedIndexer(ops typedIndexerOps) []string {
	var r recorder
	step := func(name string, f func() string) {
		out := ""
		if p := capture(func() { out = f() }); p != "" {
			out = p
		}
		r.logf("%s: %s", name, out)
	}
	step("add typed indexer", func() string { return fmt.Sprint(ops.addTypedIndexers("ns", byNamespace)) })
	step("add it again", func() string { return fmt.Sprint(ops.addTypedIndexers("ns", byNamespace)) })
	step("add pods", func() string {
		return ops.add(pod("a", "1", "1")) + ops.add(pod("a", "2", "1")) + ops.add(pod("b", "3", "1"))
	})
	step("by typed index", func() string { return describePods(ops.byTypedIndex("ns", "a")) })
	step("by typed index without match", func() string { return describePods(ops.byTypedIndex("ns", "zz")) })
	step("by unknown typed index", func() string { return describePods(ops.byTypedIndex("nope", "a")) })
	step("typed index", func() string { return describePods(ops.typedIndex("ns", pod("b", "x", ""))) })
	step("typed index without match", func() string { return describePods(ops.typedIndex("ns", pod("zz", "x", ""))) })
	step("unknown typed index", func() string { return describePods(ops.typedIndex("nope", pod("a", "x", ""))) })
	step("index keys", func() string { k, err := ops.indexKeys("ns", "a"); return fmt.Sprint(len(k), err) })
	step("add a failing typed indexer", func() string { return fmt.Sprint(ops.addTypedIndexers("fail", failing)) })
	step("typed index of a failing indexer", func() string { return describePods(ops.typedIndex("fail", pod("a", "q", ""))) })
	step("add another type", func() string {
		return ops.add(&v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "c", Name: "cm"}})
	})
	step("by typed index over another type", func() string { return describePods(ops.byTypedIndex("ns", "c")) })
	return r.lines
}

// typedIndexerOpsCG binds the scenario to client-go's typed indexer.
func typedIndexerOpsCG(ix cg.TypedIndexer[*v1.Pod]) typedIndexerOps {
	return typedIndexerOps{
		add: func(obj runtime.Object) string { return fmt.Sprint(ix.Add(obj)) },
		addTypedIndexers: func(name string, fn func(*v1.Pod) ([]string, error)) error {
			return ix.AddTypedIndexers(cg.TypedIndexers[*v1.Pod]{name: fn})
		},
		typedIndex:   ix.TypedIndex,
		byTypedIndex: ix.ByTypedIndex,
		indexKeys:    ix.IndexKeys,
	}
}

// typedIndexerOpsKC binds the scenario to kcache's typed indexer.
func typedIndexerOpsKC(ix kc.TypedIndexer[*v1.Pod]) typedIndexerOps {
	return typedIndexerOps{
		add: func(obj runtime.Object) string { return fmt.Sprint(ix.Add(obj)) },
		addTypedIndexers: func(name string, fn func(*v1.Pod) ([]string, error)) error {
			return ix.AddTypedIndexers(kc.TypedIndexers[*v1.Pod]{name: fn})
		},
		typedIndex:   ix.TypedIndex,
		byTypedIndex: ix.ByTypedIndex,
		indexKeys:    ix.IndexKeys,
	}
}

func TestTypedIndexerOfAnInformerAnswersAsClientGo(t *testing.T) {
	cgInf := cg.NewTypedSharedIndexInformer[*v1.Pod](cg.NewSharedIndexInformer(nil, &v1.Pod{}, 0, cg.Indexers{}))
	kcInf := kc.NewTypedSharedIndexInformer[*v1.Pod](kc.NewSharedIndexInformer(nil, &v1.Pod{}, 0, kc.Indexers{}))
	compareTraces(t, playTypedIndexer(typedIndexerOpsCG(cgInf.GetTypedIndexer())), playTypedIndexer(typedIndexerOpsKC(kcInf.GetTypedIndexer())))
}

func TestTypedIndexersConvertToIndexersAsClientGo(t *testing.T) {
	var c, k recorder
	c.logf("nil typed indexers give nil=%v", cg.TypedIndexersToIndexers[*v1.Pod](nil) == nil)
	k.logf("nil typed indexers give nil=%v", kc.TypedIndexersToIndexers[*v1.Pod](nil) == nil)
	cgFn := cg.TypedIndexerFuncToIndexerFunc(byNamespace)
	kcFn := kc.TypedIndexerFuncToIndexerFunc(byNamespace)
	for _, in := range []any{pod("ns", "a", ""), "str", nil, cg.DeletedFinalStateUnknown{Key: "ns/a"}} {
		var cv, kv []string
		var ce, ke error
		c.logf("%s: %v %v %s", describe(in), cv, ce, capture(func() { cv, ce = cgFn(in) }))
		kin := in
		if d, ok := in.(cg.DeletedFinalStateUnknown); ok {
			kin = kc.DeletedFinalStateUnknown{Key: d.Key}
		}
		k.logf("%s: %v %v %s", describe(in), kv, ke, capture(func() { kv, ke = kcFn(kin) }))
	}
	// the store panics with the typed function's error, as for untyped ones
	cix := cg.NewIndexer(cg.MetaNamespaceKeyFunc, cg.TypedIndexersToIndexers(cg.TypedIndexers[*v1.Pod]{"fail": failing}))
	kix := kc.NewIndexer(kc.MetaNamespaceKeyFunc, kc.TypedIndexersToIndexers(kc.TypedIndexers[*v1.Pod]{"fail": failing}))
	c.logf("add with failing typed index: %s", capture(func() { _ = cix.Add(pod("ns", "a", "")) }))
	k.logf("add with failing typed index: %s", capture(func() { _ = kix.Add(pod("ns", "a", "")) }))
	compareTraces(t, c.lines, k.lines)
}

func TestTypedInformerWrapperCallsOnlyWhatItNeeds(t *testing.T) {
	var c, k recorder
	ci := newRecordingInformerCG(&c)
	ki := newRecordingInformerKC(&k)
	cti := cg.NewTypedSharedIndexInformer[*v1.Pod](ci)
	kti := kc.NewTypedSharedIndexInformer[*v1.Pod](ki)
	c.logf("constructed")
	k.logf("constructed")
	c.logf("AddTypedIndexers: %v", cti.AddTypedIndexers(cg.TypedIndexers[*v1.Pod]{"a": byNamespace, "b": byNamespace}))
	k.logf("AddTypedIndexers: %v", kti.AddTypedIndexers(kc.TypedIndexers[*v1.Pod]{"a": byNamespace, "b": byNamespace}))
	c.logf("AddTypedIndexers(nil): %v", cti.AddTypedIndexers(nil))
	k.logf("AddTypedIndexers(nil): %v", kti.AddTypedIndexers(nil))
	c.logf("wrapping twice gives the same value: %v", cg.NewTypedSharedIndexInformer[*v1.Pod](cti) == cti)
	k.logf("wrapping twice gives the same value: %v", kc.NewTypedSharedIndexInformer[*v1.Pod](kti) == kti)
	compareTraces(t, c.lines, k.lines)
}
