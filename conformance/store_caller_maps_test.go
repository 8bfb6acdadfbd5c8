package conformance

import (
	"fmt"
	"testing"

	kc "github.com/kcache-go/cache"
	"k8s.io/apimachinery/pkg/util/sets"
	cg "k8s.io/client-go/tools/cache"
)

// The maps a ThreadSafeStore is handed besides its Indexers: the items of
// Replace and the initial Indices. client-go keeps both and goes on writing
// to them; kcache reads them once (README, Deliberate differences). Both
// tests assert client-go's behaviour too, so that a client-go that stops
// sharing them shows here.

// TestThreadSafeStoreReplaceReadsTheCallersMapOnceWhereClientGoKeepsIt pins
// the deliberate difference: after Replace(items, rv), client-go's store is
// items itself (a later Add shows in it, a key the caller writes into it is
// then stored, though no index has it); kcache's store is a copy, and the
// caller's map stays the caller's.
func TestThreadSafeStoreReplaceReadsTheCallersMapOnceWhereClientGoKeepsIt(t *testing.T) {
	trace := func(replace func(map[string]any), add func(string, any), get func(string) bool, byIndex func() int) func() string {
		return func() string {
			items := map[string]any{"k1": mapsPod("a", "x")}
			replace(items)
			add("k2", mapsPod("b", "x"))
			items["k3"] = mapsPod("c", "x")
			return fmt.Sprintf("caller's map after Add: %d entries; Get(k3) after the caller wrote it: %v; ByIndex(app, x): %d",
				len(items)-1, get("k3"), byIndex())
		}
	}
	cgs := cg.NewThreadSafeStore(cg.Indexers{"app": mapsAppIndex}, cg.Indices{})
	kcs := kc.NewThreadSafeStore(kc.Indexers{"app": mapsAppIndex}, kc.Indices{})
	clientGo := trace(func(m map[string]any) { cgs.Replace(m, "1") }, cgs.Add,
		func(k string) bool { _, ok := cgs.Get(k); return ok },
		func() int { objs, _ := cgs.ByIndex("app", "x"); return len(objs) })()
	kcache := trace(func(m map[string]any) { kcs.Replace(m, "1") }, kcs.Add,
		func(k string) bool { _, ok := kcs.Get(k); return ok },
		func() int { objs, _ := kcs.ByIndex("app", "x"); return len(objs) })()
	if want := "caller's map after Add: 2 entries; Get(k3) after the caller wrote it: true; ByIndex(app, x): 2"; clientGo != want {
		t.Errorf("client-go no longer keeps Replace's map: %s (was %s); see README, Deliberate differences", clientGo, want)
	}
	if want := "caller's map after Add: 1 entries; Get(k3) after the caller wrote it: false; ByIndex(app, x): 2"; kcache != want {
		t.Errorf("kcache: %s, want %s", kcache, want)
	}
}

// TestNewThreadSafeStoreReadsTheGivenIndicesOnceWhereClientGoKeepsThem pins
// the deliberate difference for the initial Indices: client-go keeps the
// map and its sets as its index storage (its later writes show in them, a
// key the caller adds to a set is then read by IndexKeys); kcache loads
// them into its own indices and never touches them again.
func TestNewThreadSafeStoreReadsTheGivenIndicesOnceWhereClientGoKeepsThem(t *testing.T) {
	cgIndices := cg.Indices{"app": {"x": sets.New("given")}}
	kcIndices := kc.Indices{"app": {"x": sets.New("given")}}
	cgs := cg.NewThreadSafeStore(cg.Indexers{"app": mapsAppIndex}, cgIndices)
	kcs := kc.NewThreadSafeStore(kc.Indexers{"app": mapsAppIndex}, kcIndices)
	cgs.Add("ns/a", mapsPod("a", "x"))
	kcs.Add("ns/a", mapsPod("a", "x"))
	cgIndices["app"]["x"].Insert("written-by-caller")
	kcIndices["app"]["x"].Insert("written-by-caller")
	cgKeys, _ := cgs.IndexKeys("app", "x")
	kcKeys, _ := kcs.IndexKeys("app", "x")
	clientGo := fmt.Sprintf("given set: %v; IndexKeys: %v", sets.List(cgIndices["app"]["x"]), cgKeys)
	kcache := fmt.Sprintf("given set: %v; IndexKeys: %v", sets.List(kcIndices["app"]["x"]), kcKeys)
	if want := "given set: [given ns/a written-by-caller]; IndexKeys: [given ns/a written-by-caller]"; clientGo != want {
		t.Errorf("client-go no longer keeps the given Indices: %s (was %s); see README, Deliberate differences", clientGo, want)
	}
	if want := "given set: [given written-by-caller]; IndexKeys: [given ns/a]"; kcache != want {
		t.Errorf("kcache: %s, want %s", kcache, want)
	}
}
