package conformance

import (
	"context"
	"errors"
	"sort"
	"time"

	kcache "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

func informerMisuseClientGo(lw *informerScriptedSource) informerMisuse {
	inf := cache.NewSharedIndexInformer(lw, &v1.Pod{}, time.Minute, cache.Indexers{})
	indexers := func(names ...string) cache.Indexers {
		idx := cache.Indexers{}
		for _, n := range names {
			idx[n] = informerIndexFuncs["by-app"]
		}
		return idx
	}
	return informerMisuse{
		addNilHandler: func() string {
			return informerMisuseCall(func() error { _, err := inf.AddEventHandler(nil); return err })
		},
		addHandler: func(h *informerCrashHandler) string {
			return informerMisuseCall(func() error { _, err := inf.AddEventHandler(h); return err })
		},
		addNegative: func(h *informerCrashHandler, period time.Duration, logger *klog.Logger) string {
			return informerMisuseCall(func() error {
				_, err := inf.AddEventHandlerWithOptions(h, cache.HandlerOptions{ResyncPeriod: &period, Logger: logger})
				return err
			})
		},
		removeForeign: func() string {
			other := cache.NewSharedIndexInformer(lw, &v1.Pod{}, 0, cache.Indexers{})
			reg, _ := other.AddEventHandler(&informerCrashHandler{})
			return informerMisuseCall(func() error { return inf.RemoveEventHandler(reg) })
		},
		addIndexers: func(names ...string) string {
			return informerMisuseCall(func() error { return inf.AddIndexers(indexers(names...)) })
		},
		addNilIndexers:  func() string { return informerMisuseCall(func() error { return inf.AddIndexers(nil) }) },
		setNilTransform: func() string { return informerMisuseCall(func() error { return inf.SetTransform(nil) }) },
		removeNil:       func() string { return informerMisuseCall(func() error { return inf.RemoveEventHandler(nil) }) },
		run:             inf.RunWithContext,
		hasSynced:       inf.HasSynced,
		cacheContents: func() []string {
			var out []string
			for _, obj := range inf.GetStore().List() {
				out = append(out, informerDescribe(obj))
			}
			sort.Strings(out)
			return out
		},
		checkerNames: func() []string {
			reg, _ := inf.AddEventHandler(&informerCrashHandler{})
			_, plain := cache.NewInformerWithOptions(cache.InformerOptions{ListerWatcher: lw, ObjectType: &v1.Pod{}, Handler: &informerCrashHandler{}})
			return []string{inf.HasSyncedChecker().Name(), inf.GetController().HasSyncedChecker().Name(), reg.HasSyncedChecker().Name(), plain.HasSyncedChecker().Name()}
		},
		processErrorPlay: func(ctx context.Context, plw *informerScriptedSource) []string {
			var calls []string
			store := cache.NewStore(cache.MetaNamespaceKeyFunc)
			ctrl := cache.New(&cache.Config{
				Queue:         cache.NewDeltaFIFOWithOptions(cache.DeltaFIFOOptions{KnownObjects: store}),
				ListerWatcher: plw,
				ObjectType:    &v1.Pod{},
				Process: func(obj interface{}, _ bool) error {
					calls = append(calls, informerDescribe(obj.(cache.Deltas).Newest().Object))
					return errors.New("process fails")
				},
			})
			ctrl.RunWithContext(ctx)
			sort.Strings(calls)
			return calls
		},
	}
}

func informerMisuseKcache(lw *informerScriptedSource) informerMisuse {
	inf := kcache.NewSharedIndexInformer(lw, &v1.Pod{}, time.Minute, kcache.Indexers{})
	indexers := func(names ...string) kcache.Indexers {
		idx := kcache.Indexers{}
		for _, n := range names {
			idx[n] = informerIndexFuncs["by-app"]
		}
		return idx
	}
	return informerMisuse{
		addNilHandler: func() string {
			return informerMisuseCall(func() error { _, err := inf.AddEventHandler(nil); return err })
		},
		addHandler: func(h *informerCrashHandler) string {
			return informerMisuseCall(func() error { _, err := inf.AddEventHandler(h); return err })
		},
		addNegative: func(h *informerCrashHandler, period time.Duration, logger *klog.Logger) string {
			return informerMisuseCall(func() error {
				_, err := inf.AddEventHandlerWithOptions(h, kcache.HandlerOptions{ResyncPeriod: &period, Logger: logger})
				return err
			})
		},
		removeForeign: func() string {
			other := kcache.NewSharedIndexInformer(lw, &v1.Pod{}, 0, kcache.Indexers{})
			reg, _ := other.AddEventHandler(&informerCrashHandler{})
			return informerMisuseCall(func() error { return inf.RemoveEventHandler(reg) })
		},
		addIndexers: func(names ...string) string {
			return informerMisuseCall(func() error { return inf.AddIndexers(indexers(names...)) })
		},
		addNilIndexers:  func() string { return informerMisuseCall(func() error { return inf.AddIndexers(nil) }) },
		setNilTransform: func() string { return informerMisuseCall(func() error { return inf.SetTransform(nil) }) },
		removeNil:       func() string { return informerMisuseCall(func() error { return inf.RemoveEventHandler(nil) }) },
		run:             inf.RunWithContext,
		hasSynced:       inf.HasSynced,
		cacheContents: func() []string {
			var out []string
			for _, obj := range inf.GetStore().List() {
				out = append(out, informerDescribe(obj))
			}
			sort.Strings(out)
			return out
		},
		checkerNames: func() []string {
			reg, _ := inf.AddEventHandler(&informerCrashHandler{})
			_, plain := kcache.NewInformerWithOptions(kcache.InformerOptions{ListerWatcher: lw, ObjectType: &v1.Pod{}, Handler: &informerCrashHandler{}})
			return []string{inf.HasSyncedChecker().Name(), inf.GetController().HasSyncedChecker().Name(), reg.HasSyncedChecker().Name(), plain.HasSyncedChecker().Name()}
		},
		processErrorPlay: func(ctx context.Context, plw *informerScriptedSource) []string {
			var calls []string
			store := kcache.NewStore(kcache.MetaNamespaceKeyFunc)
			ctrl := kcache.New(&kcache.Config{
				Queue:         kcache.NewDeltaFIFOWithOptions(kcache.DeltaFIFOOptions{KnownObjects: store}),
				ListerWatcher: plw,
				ObjectType:    &v1.Pod{},
				Process: func(obj interface{}, _ bool) error {
					calls = append(calls, informerDescribe(obj.(kcache.Deltas).Newest().Object))
					return errors.New("process fails")
				},
			})
			ctrl.RunWithContext(ctx)
			sort.Strings(calls)
			return calls
		},
	}
}
