package conformance

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	kc "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	cg "k8s.io/client-go/tools/cache"
)

// The Indexers map a store is given: which of its entries are indices (an
// entry with a nil IndexFunc is not), whether GetIndexers is nil, and that
// the store keeps the caller's map rather than a copy.

// mapsPod is a pod of these tests, labelled app=app.
func mapsPod(name, app string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: map[string]string{"app": app}}}
}

// mapsAppIndex indexes a pod by its app label.
func mapsAppIndex(obj any) ([]string, error) {
	return []string{obj.(*v1.Pod).Labels["app"]}, nil
}

// mapsReader is what Indexer and ThreadSafeStore of either library share,
// with the library's Indexers type hidden behind the names of its entries.
type mapsReader struct {
	byIndex    func(name, value string) ([]any, error)
	indexKeys  func(name, value string) ([]string, error)
	index      func(name string, obj any) ([]any, error)
	values     func(name string) []string
	indexers   func() (names []string, isNil bool)
	addIndexer func(name string, nilFunc bool) error
	write      func(op string, obj *v1.Pod)
	list       func() []any
}

// mapsNames returns the sorted names of an Indexers map of either library.
func mapsNames[M ~map[string]F, F any](m M) ([]string, bool) {
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	sort.Strings(names)
	return names, m == nil
}

// mapsIndexing is the index API an Indexer and a ThreadSafeStore of one
// library share; X is that library's Indexers type.
type mapsIndexing[X any] interface {
	ByIndex(indexName, indexedValue string) ([]any, error)
	IndexKeys(indexName, indexedValue string) ([]string, error)
	Index(indexName string, obj any) ([]any, error)
	ListIndexFuncValues(indexName string) []string
	GetIndexers() X
	AddIndexers(newIndexers X) error
	List() []any
}

// mapsReaderOf wraps a store of either library: X and F are its Indexers
// and IndexFunc types, write is how its kind writes a pod.
func mapsReaderOf[X ~map[string]F, F ~func(any) ([]string, error)](s mapsIndexing[X], write func(op string, obj *v1.Pod)) mapsReader {
	return mapsReader{
		byIndex: s.ByIndex, indexKeys: s.IndexKeys, index: s.Index, values: s.ListIndexFuncValues,
		indexers: func() ([]string, bool) { return mapsNames(s.GetIndexers()) },
		addIndexer: func(name string, nilFunc bool) error {
			var fn F
			if !nilFunc {
				fn = mapsAppIndex
			}
			return s.AddIndexers(X{name: fn})
		},
		write: write,
		list:  s.List,
	}
}

// mapsObjectWriter is the write API of a Store or Indexer of either library.
type mapsObjectWriter interface {
	Add(obj any) error
	Update(obj any) error
	Delete(obj any) error
	Replace(list []any, resourceVersion string) error
}

// mapsWriteObjects writes a pod into a Store or Indexer by op name.
func mapsWriteObjects(s mapsObjectWriter) func(op string, obj *v1.Pod) {
	return func(op string, obj *v1.Pod) {
		switch op {
		case "Add":
			s.Add(obj)
		case "Update":
			s.Update(obj)
		case "Delete":
			s.Delete(obj)
		case "Replace":
			s.Replace([]any{obj}, "7")
		}
	}
}

// mapsKeyedWriter is the write API of a ThreadSafeStore of either library.
type mapsKeyedWriter interface {
	Add(key string, obj any)
	Update(key string, obj any)
	Delete(key string)
	Replace(items map[string]any, resourceVersion string)
}

// mapsWriteKeyed writes a pod into a ThreadSafeStore by op name, under
// its namespace/name key.
func mapsWriteKeyed(s mapsKeyedWriter) func(op string, obj *v1.Pod) {
	return func(op string, obj *v1.Pod) {
		key := obj.Namespace + "/" + obj.Name
		switch op {
		case "Add":
			s.Add(key, obj)
		case "Update":
			s.Update(key, obj)
		case "Delete":
			s.Delete(key)
		case "Replace":
			s.Replace(map[string]any{key: obj}, "7")
		}
	}
}

// mapsIndexerCG wraps a client-go Indexer.
func mapsIndexerCG(s cg.Indexer) mapsReader {
	return mapsReaderOf[cg.Indexers](s, mapsWriteObjects(s))
}

// mapsIndexerKC wraps a kcache Indexer.
func mapsIndexerKC(s kc.Indexer) mapsReader {
	return mapsReaderOf[kc.Indexers](s, mapsWriteObjects(s))
}

// mapsThreadSafeCG wraps a client-go ThreadSafeStore.
func mapsThreadSafeCG(s cg.ThreadSafeStore) mapsReader {
	return mapsReaderOf[cg.Indexers](s, mapsWriteKeyed(s))
}

// mapsThreadSafeKC wraps a kcache ThreadSafeStore.
func mapsThreadSafeKC(s kc.ThreadSafeStore) mapsReader {
	return mapsReaderOf[kc.Indexers](s, mapsWriteKeyed(s))
}

// mapsReads prints every index read of names, nil and empty kept apart.
func mapsReads(r mapsReader, names ...string) string {
	var b strings.Builder
	indexers, isNil := r.indexers()
	fmt.Fprintf(&b, "GetIndexers: nil=%v %v\n", isNil, indexers)
	for _, name := range names {
		objs, err := r.byIndex(name, "x")
		fmt.Fprintf(&b, "ByIndex(%s): nil=%v len=%d err=%v\n", name, objs == nil, len(objs), err)
		keys, err := r.indexKeys(name, "x")
		fmt.Fprintf(&b, "IndexKeys(%s): nil=%v %v err=%v\n", name, keys == nil, keys, err)
		out := storeCatch(func() string {
			objs, err := r.index(name, mapsPod("probe", "x"))
			return fmt.Sprintf("nil=%v len=%d err=%v", objs == nil, len(objs), err)
		})
		fmt.Fprintf(&b, "Index(%s): %s\n", name, out)
		values := r.values(name)
		sort.Strings(values)
		fmt.Fprintf(&b, "ListIndexFuncValues(%s): nil=%v %v\n", name, values == nil, values)
	}
	return b.String()
}

// mapsStores builds a pair of stores of each kind from one Indexers
// description: names mapped to true have a nil IndexFunc.
func mapsStores(entries map[string]bool, indices map[string][]string) map[string][2]func() mapsReader {
	cgIndexers, kcIndexers := mapsIndexersOf[cg.Indexers](entries), mapsIndexersOf[kc.Indexers](entries)
	cgIndices, kcIndices := mapsIndicesOf[cg.Indices](indices), mapsIndicesOf[kc.Indices](indices)
	return map[string][2]func() mapsReader{
		"Indexer": {
			func() mapsReader { return mapsIndexerCG(cg.NewIndexer(cg.MetaNamespaceKeyFunc, cgIndexers())) },
			func() mapsReader { return mapsIndexerKC(kc.NewIndexer(kc.MetaNamespaceKeyFunc, kcIndexers())) },
		},
		"ThreadSafeStore": {
			func() mapsReader { return mapsThreadSafeCG(cg.NewThreadSafeStore(cgIndexers(), cgIndices())) },
			func() mapsReader { return mapsThreadSafeKC(kc.NewThreadSafeStore(kcIndexers(), kcIndices())) },
		},
	}
}

// mapsIndexersOf returns a builder of one library's Indexers from an
// Indexers description: names mapped to true have a nil IndexFunc.
func mapsIndexersOf[X ~map[string]F, F ~func(any) ([]string, error)](entries map[string]bool) func() X {
	return func() X {
		out := X{}
		for name, nilFunc := range entries {
			out[name] = mapsAppIndex
			if nilFunc {
				out[name] = nil
			}
		}
		return out
	}
}

// mapsIndicesOf returns a builder of one library's Indices holding keys
// under the value "x" of each index name.
func mapsIndicesOf[M ~map[string]I, I ~map[string]sets.Set[string]](indices map[string][]string) func() M {
	return func() M {
		out := M{}
		for name, keys := range indices {
			out[name] = I{"x": sets.New(keys...)}
		}
		return out
	}
}

// TestAnIndexersEntryWithANilIndexFuncIsNoIndexForReadsAsInClientGo pins
// what client-go makes of an Indexers entry whose IndexFunc is nil: ByIndex,
// IndexKeys and Index say the index does not exist; ListIndexFuncValues
// lists what the initial Indices gave under that name; GetIndexers lists
// the entry; AddIndexers of its name is a conflict, and of another nil
// entry registers it; a write that indexes an object (Add, Update, Delete,
// Replace) panics with the nil dereference, and leaves the object written.
func TestAnIndexersEntryWithANilIndexFuncIsNoIndexForReadsAsInClientGo(t *testing.T) {
	for kind, pair := range mapsStores(map[string]bool{"broken": true}, map[string][]string{"broken": {"ns/given"}}) {
		t.Run(kind, func(t *testing.T) {
			trace := func(r mapsReader) string {
				var b strings.Builder
				b.WriteString(mapsReads(r, "broken"))
				fmt.Fprintf(&b, "AddIndexers(broken): %v\n", r.addIndexer("broken", false))
				fmt.Fprintf(&b, "AddIndexers(also-nil, nil): %v\n", storeCatch(func() string { return fmt.Sprint(r.addIndexer("also-nil", true)) }))
				b.WriteString(mapsReads(r, "broken", "also-nil"))
				for _, op := range []string{"Add", "Update", "Delete", "Replace"} {
					out := storeCatch(func() string { r.write(op, mapsPod("a", "x")); return "no panic" })
					fmt.Fprintf(&b, "%s: %s; List: %d\n", op, out, len(r.list()))
				}
				b.WriteString(mapsReads(r, "broken", "also-nil"))
				fmt.Fprintf(&b, "AddIndexers(third, nil) over an object: %v\n", storeCatch(func() string { return fmt.Sprint(r.addIndexer("third", true)) }))
				b.WriteString(mapsReads(r, "third"))
				return b.String()
			}
			if got, want := trace(pair[1]()), trace(pair[0]()); got != want {
				t.Errorf("kcache:\n%s\nclient-go:\n%s", got, want)
			}
		})
	}
}

// nilIndexersCase builds a store both ways and returns its GetIndexers'
// length and nil-ness.
type nilIndexersCase struct {
	name   string
	cg, kc func() (int, bool)
}

// nilIndexersOf returns a case side: it calls get (the GetIndexers of a
// store it builds) and reports the map's length and nil-ness.
func nilIndexersOf[M ~map[string]F, F any](get func() M) func() (int, bool) {
	return func() (int, bool) {
		m := get()
		return len(m), m == nil
	}
}

// nilIndexersStoreCases are the stores built directly.
func nilIndexersStoreCases() []nilIndexersCase {
	return []nilIndexersCase{
		{"NewIndexer(nil)",
			nilIndexersOf(func() cg.Indexers { return cg.NewIndexer(cg.MetaNamespaceKeyFunc, nil).GetIndexers() }),
			nilIndexersOf(func() kc.Indexers { return kc.NewIndexer(kc.MetaNamespaceKeyFunc, nil).GetIndexers() })},
		{"NewIndexer(nil) after AddIndexers of nothing",
			nilIndexersOf(func() cg.Indexers {
				return nilIndexersAfterAdding[cg.Indexers](cg.NewIndexer(cg.MetaNamespaceKeyFunc, nil))
			}),
			nilIndexersOf(func() kc.Indexers {
				return nilIndexersAfterAdding[kc.Indexers](kc.NewIndexer(kc.MetaNamespaceKeyFunc, nil))
			})},
		{"NewIndexer(Indexers{})",
			nilIndexersOf(func() cg.Indexers { return cg.NewIndexer(cg.MetaNamespaceKeyFunc, cg.Indexers{}).GetIndexers() }),
			nilIndexersOf(func() kc.Indexers { return kc.NewIndexer(kc.MetaNamespaceKeyFunc, kc.Indexers{}).GetIndexers() })},
		{"NewStore",
			nilIndexersOf(func() cg.Indexers { return cg.NewStore(cg.MetaNamespaceKeyFunc).(cg.Indexer).GetIndexers() }),
			nilIndexersOf(func() kc.Indexers { return kc.NewStore(kc.MetaNamespaceKeyFunc).(kc.Indexer).GetIndexers() })},
		{"NewThreadSafeStore(nil, nil)",
			nilIndexersOf(func() cg.Indexers { return cg.NewThreadSafeStore(nil, nil).GetIndexers() }),
			nilIndexersOf(func() kc.Indexers { return kc.NewThreadSafeStore(nil, nil).GetIndexers() })},
		{"NewThreadSafeStore(Indexers{}, Indices{})",
			nilIndexersOf(func() cg.Indexers { return cg.NewThreadSafeStore(cg.Indexers{}, cg.Indices{}).GetIndexers() }),
			nilIndexersOf(func() kc.Indexers { return kc.NewThreadSafeStore(kc.Indexers{}, kc.Indices{}).GetIndexers() })},
	}
}

// nilIndexersAfterAdding calls s.AddIndexers with nil and with an empty
// map, and returns GetIndexers then.
func nilIndexersAfterAdding[X ~map[string]F, F any](s interface {
	AddIndexers(X) error
	GetIndexers() X
}) X {
	s.AddIndexers(nil)
	s.AddIndexers(X{})
	return s.GetIndexers()
}

// nilIndexersInformerCases are the stores of shared informers.
func nilIndexersInformerCases() []nilIndexersCase {
	lwCG, lwKC := &cg.ListWatch{}, &kc.ListWatch{}
	return []nilIndexersCase{
		{"NewSharedIndexInformerWithOptions without Indexers",
			nilIndexersOf(func() cg.Indexers {
				return cg.NewSharedIndexInformerWithOptions(lwCG, &v1.Pod{}, cg.SharedIndexInformerOptions{}).GetIndexer().GetIndexers()
			}),
			nilIndexersOf(func() kc.Indexers {
				return kc.NewSharedIndexInformerWithOptions(lwKC, &v1.Pod{}, kc.SharedIndexInformerOptions{}).GetIndexer().GetIndexers()
			})},
		{"NewSharedInformer",
			nilIndexersOf(func() cg.Indexers {
				return cg.NewSharedInformer(lwCG, &v1.Pod{}, 0).GetStore().(cg.Indexer).GetIndexers()
			}),
			nilIndexersOf(func() kc.Indexers {
				return kc.NewSharedInformer(lwKC, &v1.Pod{}, 0).GetStore().(kc.Indexer).GetIndexers()
			})},
	}
}

// nilIndexersOfStore is nilIndexersOf for a constructor that returns a
// Store (of the NewInformer family) and a controller: the Store's
// GetIndexers, it being an Indexer.
func nilIndexersOfStore[X ~map[string]F, F any, S, C any](build func() (S, C)) func() (int, bool) {
	return nilIndexersOf(func() X {
		s, _ := build()
		return any(s).(interface{ GetIndexers() X }).GetIndexers()
	})
}

// nilIndexersOldInformerCases are the stores of the NewInformer family.
func nilIndexersOldInformerCases() []nilIndexersCase {
	lwCG, lwKC := &cg.ListWatch{}, &kc.ListWatch{}
	cgH, kcH := cg.ResourceEventHandlerFuncs{}, kc.ResourceEventHandlerFuncs{}
	return []nilIndexersCase{
		{"NewInformer",
			nilIndexersOfStore[cg.Indexers](func() (cg.Store, cg.Controller) { return cg.NewInformer(lwCG, &v1.Pod{}, 0, cgH) }),
			nilIndexersOfStore[kc.Indexers](func() (kc.Store, kc.Controller) { return kc.NewInformer(lwKC, &v1.Pod{}, 0, kcH) })},
		{"NewTransformingInformer",
			nilIndexersOfStore[cg.Indexers](func() (cg.Store, cg.Controller) {
				return cg.NewTransformingInformer(lwCG, &v1.Pod{}, 0, cgH, nil)
			}),
			nilIndexersOfStore[kc.Indexers](func() (kc.Store, kc.Controller) {
				return kc.NewTransformingInformer(lwKC, &v1.Pod{}, 0, kcH, nil)
			})},
		{"NewInformerWithOptions without Indexers",
			nilIndexersOfStore[cg.Indexers](func() (cg.Store, cg.Controller) {
				return cg.NewInformerWithOptions(cg.InformerOptions{ListerWatcher: lwCG, ObjectType: &v1.Pod{}, Handler: cgH})
			}),
			nilIndexersOfStore[kc.Indexers](func() (kc.Store, kc.Controller) {
				return kc.NewInformerWithOptions(kc.InformerOptions{ListerWatcher: lwKC, ObjectType: &v1.Pod{}, Handler: kcH})
			})},
		{"NewTransformingIndexerInformer(nil)",
			nilIndexersOfStore[cg.Indexers](func() (cg.Indexer, cg.Controller) {
				return cg.NewTransformingIndexerInformer(lwCG, &v1.Pod{}, 0, cgH, nil, nil)
			}),
			nilIndexersOfStore[kc.Indexers](func() (kc.Indexer, kc.Controller) {
				return kc.NewTransformingIndexerInformer(lwKC, &v1.Pod{}, 0, kcH, nil, nil)
			})},
		{"NewIndexerInformer(nil)",
			nilIndexersOfStore[cg.Indexers](func() (cg.Indexer, cg.Controller) { return cg.NewIndexerInformer(lwCG, &v1.Pod{}, 0, cgH, nil) }),
			nilIndexersOfStore[kc.Indexers](func() (kc.Indexer, kc.Controller) { return kc.NewIndexerInformer(lwKC, &v1.Pod{}, 0, kcH, nil) })},
	}
}

// TestGetIndexersOfAStoreBuiltWithNilIndexersIsNilAsInClientGo pins
// GetIndexers' nil: nil for NewIndexer and NewThreadSafeStore given nil
// Indexers (and for NewIndexerInformer and NewSharedIndexInformerWithOptions
// given none), still after AddIndexers of nothing; an empty map for
// NewStore, for empty Indexers, and for NewInformer, NewTransformingInformer,
// NewInformerWithOptions and NewSharedInformer, which build their store as
// NewStore does.
func TestGetIndexersOfAStoreBuiltWithNilIndexersIsNilAsInClientGo(t *testing.T) {
	cases := append(nilIndexersStoreCases(), nilIndexersInformerCases()...)
	for _, c := range append(cases, nilIndexersOldInformerCases()...) {
		t.Run(c.name, func(t *testing.T) {
			wantLen, wantNil := c.cg()
			gotLen, gotNil := c.kc()
			if gotLen != wantLen || gotNil != wantNil {
				t.Errorf("GetIndexers: len=%d nil=%v, client-go len=%d nil=%v", gotLen, gotNil, wantLen, wantNil)
			}
		})
	}
}

// TestGetIndexersIsTheMapTheStoreWasGivenAsInClientGo pins that the store
// keeps the caller's Indexers map: AddIndexers adds to it, so the new
// index shows through the caller's map and through every GetIndexers result
// taken before, and a GetIndexers result is that very map.
func TestGetIndexersIsTheMapTheStoreWasGivenAsInClientGo(t *testing.T) {
	view := func(names []string, _ bool) string { return fmt.Sprint(names) }
	t.Run("Indexer", func(t *testing.T) {
		cgMap, kcMap := cg.Indexers{"app": mapsAppIndex}, kc.Indexers{"app": mapsAppIndex}
		cgs, kcs := cg.NewIndexer(cg.MetaNamespaceKeyFunc, cgMap), kc.NewIndexer(kc.MetaNamespaceKeyFunc, kcMap)
		cgEarlier, kcEarlier := cgs.GetIndexers(), kcs.GetIndexers()
		cgs.AddIndexers(cg.Indexers{"later": mapsAppIndex})
		kcs.AddIndexers(kc.Indexers{"later": mapsAppIndex})
		cgEarlier["written-through-GetIndexers"] = mapsAppIndex
		kcEarlier["written-through-GetIndexers"] = mapsAppIndex
		want := view(mapsNames(cgMap)) + view(mapsNames(cgEarlier)) + view(mapsNames(cgs.GetIndexers()))
		got := view(mapsNames(kcMap)) + view(mapsNames(kcEarlier)) + view(mapsNames(kcs.GetIndexers()))
		if got != want {
			t.Errorf("caller's map, earlier and later GetIndexers: %s, client-go %s", got, want)
		}
	})
	t.Run("ThreadSafeStore", func(t *testing.T) {
		cgMap, kcMap := cg.Indexers{"app": mapsAppIndex}, kc.Indexers{"app": mapsAppIndex}
		cgs, kcs := cg.NewThreadSafeStore(cgMap, cg.Indices{}), kc.NewThreadSafeStore(kcMap, kc.Indices{})
		cgEarlier, kcEarlier := cgs.GetIndexers(), kcs.GetIndexers()
		cgs.AddIndexers(cg.Indexers{"later": mapsAppIndex})
		kcs.AddIndexers(kc.Indexers{"later": mapsAppIndex})
		want := view(mapsNames(cgMap)) + view(mapsNames(cgEarlier))
		got := view(mapsNames(kcMap)) + view(mapsNames(kcEarlier))
		if got != want {
			t.Errorf("caller's map and earlier GetIndexers: %s, client-go %s", got, want)
		}
	})
	t.Run("NewStore", func(t *testing.T) {
		cgs, kcs := cg.NewStore(cg.MetaNamespaceKeyFunc).(cg.Indexer), kc.NewStore(kc.MetaNamespaceKeyFunc).(kc.Indexer)
		cgEarlier, kcEarlier := cgs.GetIndexers(), kcs.GetIndexers()
		cgs.AddIndexers(cg.Indexers{"later": mapsAppIndex})
		kcs.AddIndexers(kc.Indexers{"later": mapsAppIndex})
		if got, want := view(mapsNames(kcEarlier)), view(mapsNames(cgEarlier)); got != want {
			t.Errorf("earlier GetIndexers after AddIndexers: %s, client-go %s", got, want)
		}
	})
}

// mapsNameIndex indexes a pod by the first letter of its name.
func mapsNameIndex(obj any) ([]string, error) {
	return []string{obj.(*v1.Pod).Name[:1]}, nil
}

// mapsEdits are direct writes into the caller's Indexers map, by name: an
// IndexFunc set ("app", "name": the functions above) or the entry deleted.
type mapsEdits []struct{ name, fn string }

// mapsEditFunc returns the function an edit names.
func mapsEditFunc(fn string) func(any) ([]string, error) {
	if fn == "app" {
		return mapsAppIndex
	}
	return mapsNameIndex
}

// mapsEditableStore builds a store of the given library ("cg" or "kc") and
// kind over a map with "app", and returns it with a function that edits
// that map directly (fn "" deletes the entry).
func mapsEditableStore(lib, kind string) (mapsReader, func(name, fn string)) {
	if lib == "cg" {
		m := cg.Indexers{"app": mapsAppIndex}
		if kind == "Indexer" {
			return mapsIndexerCG(cg.NewIndexer(cg.MetaNamespaceKeyFunc, m)), mapsEditor(m)
		}
		return mapsThreadSafeCG(cg.NewThreadSafeStore(m, cg.Indices{})), mapsEditor(m)
	}
	m := kc.Indexers{"app": mapsAppIndex}
	if kind == "Indexer" {
		return mapsIndexerKC(kc.NewIndexer(kc.MetaNamespaceKeyFunc, m)), mapsEditor(m)
	}
	return mapsThreadSafeKC(kc.NewThreadSafeStore(m, kc.Indices{})), mapsEditor(m)
}

// mapsEditor returns a function that edits m, an Indexers map of either
// library, directly: fn "" deletes the entry, else sets the function it names.
func mapsEditor[X ~map[string]F, F ~func(any) ([]string, error)](m X) func(name, fn string) {
	return func(name, fn string) {
		if fn == "" {
			delete(m, name)
		} else {
			m[name] = mapsEditFunc(fn)
		}
	}
}

// mapsEditedTrace builds a store of the given kind over a map with "app",
// writes before (some objects), applies the edits to the caller's map
// directly, then runs after (more writes) and reads every name involved.
func mapsEditedTrace(t *testing.T, lib, kind string, before, after []string, edits mapsEdits) string {
	t.Helper()
	r, edit := mapsEditableStore(lib, kind)
	play := func(steps []string) {
		for _, step := range steps {
			op, rest, _ := strings.Cut(step, " ")
			name, app, _ := strings.Cut(rest, "=")
			r.write(op, mapsPod(name, app))
		}
	}
	play(before)
	for _, e := range edits {
		edit(e.name, e.fn)
	}
	play(after)
	var b strings.Builder
	indexers, _ := r.indexers()
	fmt.Fprintf(&b, "GetIndexers: %v\n", indexers)
	for _, name := range []string{"app", "late", "swapped"} {
		values := r.values(name)
		sort.Strings(values)
		fmt.Fprintf(&b, "ListIndexFuncValues(%s): %v\n", name, values)
		for _, v := range append(values, "x") {
			keys, err := r.indexKeys(name, v)
			objs, _ := r.byIndex(name, v)
			fmt.Fprintf(&b, "  %s=%s: keys=%v objects=%d err=%v\n", name, v, keys, len(objs), err)
		}
	}
	return b.String()
}

// TestIndexFuncsTheCallerPutsInTheIndexersMapBeforeAnyWriteAreIndicesAsInClientGo
// pins the store's use of the caller's map: an IndexFunc the caller adds to
// the map it gave NewIndexer or NewThreadSafeStore (say, before starting the
// informer that fills the store) indexes every object written afterwards.
func TestIndexFuncsTheCallerPutsInTheIndexersMapBeforeAnyWriteAreIndicesAsInClientGo(t *testing.T) {
	edits := mapsEdits{{"late", "name"}}
	after := []string{"Add a=x", "Add b=y", "Add c=x", "Update a=y", "Update b=y", "Delete c=x", "Add d=x"}
	for _, kind := range []string{"Indexer", "ThreadSafeStore"} {
		t.Run(kind, func(t *testing.T) {
			if got, want := mapsEditedTrace(t, "kc", kind, nil, after, edits), mapsEditedTrace(t, "cg", kind, nil, after, edits); got != want {
				t.Errorf("kcache:\n%s\nclient-go:\n%s", got, want)
			}
		})
	}
}

// TestAReplaceRebuildsTheIndicesOfTheIndexersMapAsItIsAsInClientGo pins
// Replace against direct writes into the caller's map: the indices after a
// Replace, and after the writes that follow it, are those of the map's
// entries then (an entry added, one deleted, one whose function was
// replaced), as client-go rebuilds them.
func TestAReplaceRebuildsTheIndicesOfTheIndexersMapAsItIsAsInClientGo(t *testing.T) {
	before := []string{"Add a=x", "Add b=y", "Add c=x"}
	edits := mapsEdits{{"late", "name"}, {"swapped", "app"}, {"app", ""}, {"swapped", "name"}}
	after := []string{"Replace b=y", "Add a=x", "Add e=y", "Update b=x", "Delete e=y"}
	for _, kind := range []string{"Indexer", "ThreadSafeStore"} {
		t.Run(kind, func(t *testing.T) {
			if got, want := mapsEditedTrace(t, "kc", kind, before, after, edits), mapsEditedTrace(t, "cg", kind, before, after, edits); got != want {
				t.Errorf("kcache:\n%s\nclient-go:\n%s", got, want)
			}
		})
	}
}
