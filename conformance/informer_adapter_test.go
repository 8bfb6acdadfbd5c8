package conformance

import (
	"context"
	"time"
)

// informerAdapter is either library's SharedIndexInformer as an
// informerUnderTest.
type informerAdapter struct{ inf informerShared }

// informerBuildClientGo builds client-go's informer for a scenario.
func informerBuildClientGo(lw *informerScriptedSource, resync time.Duration, indexers []string) informerUnderTest {
	return informerAdapter{informerClientGo.shared(lw, resync, informerIndexFuncsOf(indexers))}
}

// informerBuildKcache builds kcache's informer for a scenario.
func informerBuildKcache(lw *informerScriptedSource, resync time.Duration, indexers []string) informerUnderTest {
	return informerAdapter{informerKCache.shared(lw, resync, informerIndexFuncsOf(indexers))}
}

func (a informerAdapter) addHandler(r *informerRecorder, filter func(interface{}) bool, resync *time.Duration) (informerRegistration, error) {
	if resync == nil {
		return a.inf.add(r, filter, nil)
	}
	return a.inf.add(r, filter, &informerHandlerOptions{resync: resync})
}

func (a informerAdapter) remove(reg informerRegistration) error { return a.inf.remove(reg) }
func (a informerAdapter) run(ctx context.Context)               { a.inf.RunWithContext(ctx) }
func (a informerAdapter) hasSynced() bool                       { return a.inf.HasSynced() }
func (a informerAdapter) isStopped() bool                       { return a.inf.isStopped() }
func (a informerAdapter) lastSyncResourceVersion() string       { return a.inf.LastSyncResourceVersion() }
func (a informerAdapter) storeResourceVersion() string          { return a.inf.storeRV() }
func (a informerAdapter) cacheContents() []string               { return informerSorted(a.inf.list()) }

func (a informerAdapter) byIndex(index, value string) []string {
	objs, err := a.inf.byIndex(index, value)
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	return informerSorted(objs)
}

func (a informerAdapter) addIndexers(names []string) error {
	return a.inf.addIndexers(informerIndexFuncsOf(names))
}

func (a informerAdapter) setTransform(fn func(interface{}) (interface{}, error)) error {
	return a.inf.setTransform(fn)
}
