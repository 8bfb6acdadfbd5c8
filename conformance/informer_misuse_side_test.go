package conformance

import (
	"context"
	"time"

	"k8s.io/klog/v2"
)

// informerMisuseOn builds the misuse calls of the informerMisuse cases on
// lib's informer over lw.
func informerMisuseOn(lib informerLib) func(lw *informerScriptedSource) informerMisuse {
	return func(lw *informerScriptedSource) informerMisuse {
		inf := lib.shared(lw, time.Minute, storeIndexFuncs{})
		indexers := func(names ...string) storeIndexFuncs {
			idx := storeIndexFuncs{}
			for _, n := range names {
				idx[n] = informerIndexFuncs["by-app"]
			}
			return idx
		}
		call := func(fn func() error) func() string { return func() string { return informerMisuseCall(fn) } }
		return informerMisuse{
			addNilHandler: call(func() error { _, err := inf.add(nil, nil, nil); return err }),
			addHandler: func(h *informerCrashHandler) string {
				return informerMisuseCall(func() error { _, err := inf.add(h, nil, nil); return err })
			},
			addNegative: func(h *informerCrashHandler, period time.Duration, logger *klog.Logger) string {
				return informerMisuseCall(func() error {
					_, err := inf.add(h, nil, &informerHandlerOptions{resync: &period, logger: logger})
					return err
				})
			},
			removeForeign: func() string {
				other := lib.shared(lw, 0, storeIndexFuncs{})
				reg, _ := other.add(&informerCrashHandler{}, nil, nil)
				return informerMisuseCall(func() error { return inf.remove(reg) })
			},
			addIndexers: func(names ...string) string {
				return informerMisuseCall(func() error { return inf.addIndexers(indexers(names...)) })
			},
			addNilIndexers:  call(func() error { return inf.addIndexers(nil) }),
			setNilTransform: call(func() error { return inf.setTransform(nil) }),
			removeNil:       call(func() error { return inf.remove(nil) }),
			run:             inf.RunWithContext,
			hasSynced:       inf.HasSynced,
			cacheContents:   func() []string { return informerSorted(inf.list()) },
			checkerNames: func() []string {
				reg, _ := inf.add(&informerCrashHandler{}, nil, nil)
				plain := lib.plain(lw, &informerCrashHandler{}, informerPlainOptions{})
				return append(inf.checkerNames(reg), plain.checkerName())
			},
			processErrorPlay: func(ctx context.Context, plw *informerScriptedSource) []string {
				return lib.processErrorPlay(ctx, plw)
			},
		}
	}
}
