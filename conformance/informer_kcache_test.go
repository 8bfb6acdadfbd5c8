package conformance

import (
	"context"
	"sort"
	"time"

	cache "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
)

func init() {
	informerTombstoneDecoders = append(informerTombstoneDecoders, func(obj interface{}) (string, interface{}, bool) {
		d, ok := obj.(cache.DeletedFinalStateUnknown)
		return d.Key, d.Obj, ok
	})
}

// informerKcache adapts kcache's SharedIndexInformer.
type informerKcache struct{ inf cache.SharedIndexInformer }

func informerBuildKcache(lw *informerScriptedSource, resync time.Duration, indexers []string) informerUnderTest {
	idx := cache.Indexers{}
	for _, n := range indexers {
		idx[n] = informerIndexFuncs[n]
	}
	return informerKcache{cache.NewSharedIndexInformer(lw, &v1.Pod{}, resync, idx)}
}

func (a informerKcache) addHandler(r *informerRecorder, filter func(interface{}) bool, resync *time.Duration) (informerRegistration, error) {
	var h cache.ResourceEventHandler = r
	if filter != nil {
		h = cache.FilteringResourceEventHandler{FilterFunc: filter, Handler: r}
	}
	if resync == nil {
		return a.inf.AddEventHandler(h)
	}
	return a.inf.AddEventHandlerWithOptions(h, cache.HandlerOptions{ResyncPeriod: resync})
}

func (a informerKcache) remove(reg informerRegistration) error {
	h, _ := reg.(cache.ResourceEventHandlerRegistration)
	return a.inf.RemoveEventHandler(h)
}

func (a informerKcache) run(ctx context.Context) { a.inf.RunWithContext(ctx) }
func (a informerKcache) hasSynced() bool         { return a.inf.HasSynced() }
func (a informerKcache) isStopped() bool         { return a.inf.IsStopped() }
func (a informerKcache) lastSyncResourceVersion() string {
	return a.inf.LastSyncResourceVersion()
}

func (a informerKcache) storeResourceVersion() string {
	return a.inf.GetStore().LastStoreSyncResourceVersion()
}

func (a informerKcache) cacheContents() []string {
	var out []string
	for _, obj := range a.inf.GetStore().List() {
		out = append(out, informerDescribe(obj))
	}
	sort.Strings(out)
	return out
}

func (a informerKcache) byIndex(index, value string) []string {
	objs, err := a.inf.GetIndexer().ByIndex(index, value)
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	var out []string
	for _, obj := range objs {
		out = append(out, informerDescribe(obj))
	}
	sort.Strings(out)
	return out
}

func (a informerKcache) addIndexers(names []string) error {
	idx := cache.Indexers{}
	for _, n := range names {
		idx[n] = informerIndexFuncs[n]
	}
	return a.inf.AddIndexers(idx)
}

func (a informerKcache) setTransform(fn func(interface{}) (interface{}, error)) error {
	return a.inf.SetTransform(fn)
}
