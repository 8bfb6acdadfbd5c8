package conformance

import (
	"fmt"
	"testing"

	cg "k8s.io/client-go/tools/cache"

	kc "github.com/kcache-go/cache"
)

// queueCatch runs f and renders its panic, or "no panic".
func queueCatch(f func() string) (out string) {
	defer func() {
		if r := recover(); r != nil {
			out = fmt.Sprintf("panic(%T: %v)", r, r)
		}
	}()
	return f()
}

// TestRealFIFORejectsTheSameOptionCombinationsAsClientGo builds a RealFIFO
// with every combination of AtomicEvents, UnlockWhileProcessing,
// EmitDeltaTypeBookmark, KnownObjects and Name, and requires the same panic
// (type and message) or the same Name and initial sync state.
func TestRealFIFORejectsTheSameOptionCombinationsAsClientGo(t *testing.T) {
	for mask := 0; mask < 32; mask++ {
		atomic, unlock, bookmarks, known, named := mask&1 != 0, mask&2 != 0, mask&4 != 0, mask&8 != 0, mask&16 != 0
		name := fmt.Sprintf("atomic=%v/unlock=%v/bookmarks=%v/known=%v/named=%v", atomic, unlock, bookmarks, known, named)
		t.Run(name, func(t *testing.T) {
			want := queueCatch(func() string {
				opts := cg.RealFIFOOptions{AtomicEvents: atomic, UnlockWhileProcessing: unlock, EmitDeltaTypeBookmark: bookmarks}
				if known {
					opts.KnownObjects = cg.NewIndexer(cg.MetaNamespaceKeyFunc, nil)
				}
				if named {
					opts.Name = "custom"
				}
				f := cg.NewRealFIFOWithOptions(opts)
				return fmt.Sprintf("name=%s synced=%v closed=%v", f.Name(), f.HasSynced(), f.IsClosed())
			})
			got := queueCatch(func() string {
				opts := kc.RealFIFOOptions{AtomicEvents: atomic, UnlockWhileProcessing: unlock, EmitDeltaTypeBookmark: bookmarks}
				if known {
					opts.KnownObjects = kc.NewIndexer(kc.MetaNamespaceKeyFunc, nil)
				}
				if named {
					opts.Name = "custom"
				}
				f := kc.NewRealFIFOWithOptions(opts)
				return fmt.Sprintf("name=%s synced=%v closed=%v", f.Name(), f.HasSynced(), f.IsClosed())
			})
			if want != got {
				t.Fatalf("client-go: %s\nkcache:    %s", want, got)
			}
		})
	}
}

// TestDeprecatedConstructorsBehaveLikeClientGo covers NewRealFIFO (which
// panics without KnownObjects, like the non-atomic options it implies),
// NewDeltaFIFO and NewFIFO names, and an identifier's name taking precedence.
func TestDeprecatedConstructorsBehaveLikeClientGo(t *testing.T) {
	cases := []struct {
		name string
		cg   func() string
		kc   func() string
	}{
		{
			name: "NewRealFIFO without known objects",
			cg:   func() string { return cg.NewRealFIFO(cg.MetaNamespaceKeyFunc, nil, nil).Name() },
			kc:   func() string { return kc.NewRealFIFO(kc.MetaNamespaceKeyFunc, nil, nil).Name() },
		},
		{
			name: "NewRealFIFO with known objects",
			cg: func() string {
				return cg.NewRealFIFO(cg.MetaNamespaceKeyFunc, cg.NewStore(cg.MetaNamespaceKeyFunc), nil).Name()
			},
			kc: func() string {
				return kc.NewRealFIFO(kc.MetaNamespaceKeyFunc, kc.NewStore(kc.MetaNamespaceKeyFunc), nil).Name()
			},
		},
		{
			name: "NewDeltaFIFO",
			cg:   func() string { return cg.NewDeltaFIFO(cg.MetaNamespaceKeyFunc, nil).Name() },
			kc:   func() string { return kc.NewDeltaFIFO(kc.MetaNamespaceKeyFunc, nil).Name() },
		},
		{
			name: "NewDeltaFIFOWithOptions named",
			cg:   func() string { return cg.NewDeltaFIFOWithOptions(cg.DeltaFIFOOptions{Name: "d"}).Name() },
			kc:   func() string { return kc.NewDeltaFIFOWithOptions(kc.DeltaFIFOOptions{Name: "d"}).Name() },
		},
		{
			name: "NewFIFO",
			cg:   func() string { return cg.NewFIFO(cg.MetaNamespaceKeyFunc).Name() },
			kc:   func() string { return kc.NewFIFO(kc.MetaNamespaceKeyFunc).Name() },
		},
		{
			name: "identifier name wins over Name",
			cg: func() string {
				n, _ := cg.NewInformerName("queue-conformance-named")
				f := cg.NewRealFIFOWithOptions(cg.RealFIFOOptions{AtomicEvents: true, Name: "x", Identifier: n.WithResource(queuePodsGVR)})
				return f.Name() + " " + f.HasSyncedChecker().Name()
			},
			kc: func() string {
				n, _ := kc.NewInformerName("queue-conformance-named")
				f := kc.NewRealFIFOWithOptions(kc.RealFIFOOptions{AtomicEvents: true, Name: "x", Identifier: n.WithResource(queuePodsGVR)})
				return f.Name() + " " + f.HasSyncedChecker().Name()
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want, got := queueCatch(tc.cg), queueCatch(tc.kc)
			if want != got {
				t.Fatalf("client-go: %s\nkcache:    %s", want, got)
			}
		})
	}
}

// TestDeltaFIFOKeyOfMatchesClientGo compares KeyOf on Deltas (empty and
// not), tombstones, objects without metadata and explicit keys, including
// the error text.
func TestDeltaFIFOKeyOfMatchesClientGo(t *testing.T) {
	pod := queuePod("a", "1")
	cases := []struct {
		name   string
		cgItem interface{}
		kcItem interface{}
	}{
		{"pod", pod, pod},
		{"empty Deltas", cg.Deltas{}, kc.Deltas{}},
		{"Deltas", cg.Deltas{{Type: cg.Added, Object: queuePod("b", "1")}, {Type: cg.Updated, Object: pod}}, kc.Deltas{{Type: kc.Added, Object: queuePod("b", "1")}, {Type: kc.Updated, Object: pod}}},
		{"tombstone", cg.DeletedFinalStateUnknown{Key: "x/y"}, kc.DeletedFinalStateUnknown{Key: "x/y"}},
		{"Deltas ending in a tombstone", cg.Deltas{{Type: cg.Deleted, Object: cg.DeletedFinalStateUnknown{Key: "k"}}}, kc.Deltas{{Type: kc.Deleted, Object: kc.DeletedFinalStateUnknown{Key: "k"}}}},
		{"no metadata", 42, 42},
		{"explicit key", cg.ExplicitKey("e/k"), kc.ExplicitKey("e/k")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wk, werr := cg.NewDeltaFIFOWithOptions(cg.DeltaFIFOOptions{}).KeyOf(tc.cgItem)
			gk, gerr := kc.NewDeltaFIFOWithOptions(kc.DeltaFIFOOptions{}).KeyOf(tc.kcItem)
			want, got := wk+" "+queueRenderErr(werr), gk+" "+queueRenderErr(gerr)
			if want != got {
				t.Fatalf("client-go: %s\nkcache:    %s", want, got)
			}
		})
	}
}

// TestDeltasOldestAndNewestMatchClientGo compares the accessors on empty,
// single and longer Deltas, and that they point into the slice.
func TestDeltasOldestAndNewestMatchClientGo(t *testing.T) {
	for n := 0; n < 4; n++ {
		t.Run(fmt.Sprintf("%d deltas", n), func(t *testing.T) {
			var cd cg.Deltas
			var kd kc.Deltas
			for i := 0; i < n; i++ {
				cd = append(cd, cg.Delta{Type: cg.Updated, Object: queuePod("a", fmt.Sprint(i))})
				kd = append(kd, kc.Delta{Type: kc.Updated, Object: queuePod("a", fmt.Sprint(i))})
			}
			render := func(oldest, newest string, aliased bool) string {
				return fmt.Sprintf("oldest=%s newest=%s aliased=%v", oldest, newest, aliased)
			}
			want := render(queueCGDeltaText(cd.Oldest()), queueCGDeltaText(cd.Newest()), n > 0 && cd.Newest() == &cd[n-1])
			got := render(queueKCDeltaText(kd.Oldest()), queueKCDeltaText(kd.Newest()), n > 0 && kd.Newest() == &kd[n-1])
			if want != got {
				t.Fatalf("client-go: %s\nkcache:    %s", want, got)
			}
		})
	}
}

// queueCGDeltaText renders a *cg.Delta or nil.
func queueCGDeltaText(d *cg.Delta) string {
	if d == nil {
		return "nil"
	}
	return string(d.Type) + ":" + queueRender(d.Object)
}

// queueKCDeltaText renders a *kc.Delta or nil.
func queueKCDeltaText(d *kc.Delta) string {
	if d == nil {
		return "nil"
	}
	return string(d.Type) + ":" + queueRender(d.Object)
}

// TestFailedFirstWritesSyncTheQueuesExactlyWhenClientGoDoes compares
// HasSynced after a first write that fails on its key, for each queue and
// write: some count as the population, some do not.
func TestFailedFirstWritesSyncTheQueuesExactlyWhenClientGoDoes(t *testing.T) {
	type writes struct{ add, update, del func(interface{}) error }
	type queues struct {
		name   string
		cg, kc func() (writes, func() bool)
	}
	cases := []queues{
		{"FIFO",
			func() (writes, func() bool) {
				f := cg.NewFIFO(cg.MetaNamespaceKeyFunc)
				return writes{f.Add, f.Update, f.Delete}, f.HasSynced
			},
			func() (writes, func() bool) {
				f := kc.NewFIFO(kc.MetaNamespaceKeyFunc)
				return writes{f.Add, f.Update, f.Delete}, f.HasSynced
			}},
		{"DeltaFIFO",
			func() (writes, func() bool) {
				f := cg.NewDeltaFIFOWithOptions(cg.DeltaFIFOOptions{})
				return writes{f.Add, f.Update, f.Delete}, f.HasSynced
			},
			func() (writes, func() bool) {
				f := kc.NewDeltaFIFOWithOptions(kc.DeltaFIFOOptions{})
				return writes{f.Add, f.Update, f.Delete}, f.HasSynced
			}},
		{"RealFIFO",
			func() (writes, func() bool) {
				f := cg.NewRealFIFOWithOptions(cg.RealFIFOOptions{AtomicEvents: true})
				return writes{f.Add, f.Update, f.Delete}, f.HasSynced
			},
			func() (writes, func() bool) {
				f := kc.NewRealFIFOWithOptions(kc.RealFIFOOptions{AtomicEvents: true})
				return writes{f.Add, f.Update, f.Delete}, f.HasSynced
			}},
	}
	for _, q := range cases {
		for _, op := range []string{"Add", "Update", "Delete"} {
			t.Run(q.name+"/"+op, func(t *testing.T) {
				run := func(make func() (writes, func() bool)) string {
					w, synced := make()
					call := map[string]func(interface{}) error{"Add": w.add, "Update": w.update, "Delete": w.del}[op]
					return queueRenderErr(call(42)) + fmt.Sprintf(" synced=%v", synced())
				}
				if want, got := run(q.cg), run(q.kc); want != got {
					t.Fatalf("client-go: %s\nkcache:    %s", want, got)
				}
			})
		}
	}
}
