package clientgo

import (
	"context"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/dynamic/dynamiclister"
	"k8s.io/client-go/informers"
	clientgocache "k8s.io/client-go/tools/cache"

	kcache "github.com/kcache-go/cache"
)

// NewDynamicSharedInformerFactory is dynamicinformer.NewDynamicSharedInformerFactory
// on kcache: all namespaces, no tweak.
func NewDynamicSharedInformerFactory(client dynamic.Interface, defaultResync time.Duration) dynamicinformer.DynamicSharedInformerFactory {
	return NewFilteredDynamicSharedInformerFactory(client, defaultResync, metav1.NamespaceAll, nil)
}

// NewFilteredDynamicSharedInformerFactory is client-go's
// dynamicinformer.NewFilteredDynamicSharedInformerFactory, same arguments,
// but ForResource(gvr).Informer() is a kcache informer of
// *unstructured.Unstructured objects (behind client-go's interface) with the
// namespace index, and Lister() a dynamiclister on its kcache storage. The
// informer lists and watches client.Resource(gvr) in namespace, options
// tweaked by tweakListOptions, and the client's WatchList capability is
// kept (see kcache.ToListWatcherWithWatchListSemantics). When client is a
// *dynamic.DynamicClient it does so through fastlw, with the dynamic
// client's requests and decoder (see dynamicListerWatcher);
// PlainDynamicClient(client) turns that off.
func NewFilteredDynamicSharedInformerFactory(client dynamic.Interface, defaultResync time.Duration, namespace string, tweakListOptions dynamicinformer.TweakListOptionsFunc) dynamicinformer.DynamicSharedInformerFactory {
	return newDynamicFactory(client, defaultResync, namespace, tweakListOptions)
}

// newDynamicFactory builds the dynamic factory; tweak may be nil.
func newDynamicFactory(client dynamic.Interface, defaultResync time.Duration, namespace string, tweak dynamicinformer.TweakListOptionsFunc) dynamicinformer.DynamicSharedInformerFactory {
	return &resourceInformerFactory{
		resync: defaultResync,
		build: func(gvr schema.GroupVersionResource, resync time.Duration) informers.GenericInformer {
			resourceClient := client.Resource(gvr).Namespace(namespace)
			lw := resourceListWatch(tweak,
				func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
					return resourceClient.List(ctx, opts)
				}, resourceClient.Watch)
			scope := resourceScope{gvr: gvr, namespace: namespace, tweak: tweak}
			source := dynamicListerWatcher(client, scope, kcache.ToListWatcherWithWatchListSemantics(lw, client))
			// NB: client-go's dynamic informers describe their objects by
			// resource (reflector names, logs); its metadata informers do not.
			inf := newResourceInformer(source, &unstructured.Unstructured{}, gvr.String(), resync, nil)
			return genericInformer{inf, dynamiclister.NewRuntimeObjectShim(dynamiclister.New(inf.GetIndexer(), gvr))}
		},
	}
}

// resourceListWatch builds the ListWatch of one resource: tweak (if any)
// edits every request's options before list or watch sees them.
func resourceListWatch(tweak func(*metav1.ListOptions),
	list func(context.Context, metav1.ListOptions) (runtime.Object, error),
	watchFn func(context.Context, metav1.ListOptions) (watch.Interface, error)) *kcache.ListWatch {
	return &kcache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			if tweak != nil {
				tweak(&opts)
			}
			return list(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			if tweak != nil {
				tweak(&opts)
			}
			return watchFn(ctx, opts)
		},
	}
}

// newResourceInformer is the kcache informer of a dynamic or metadata
// factory: namespace index, resync, object description (empty: derived from
// example, as kcache does), optional transform.
func newResourceInformer(lw kcache.ListerWatcher, example runtime.Object, description string, resync time.Duration, transform clientgocache.TransformFunc) clientgocache.SharedIndexInformer {
	inf := InformerView(kcache.NewSharedIndexInformerWithOptions(lw, example, kcache.SharedIndexInformerOptions{
		ResyncPeriod:      resync,
		Indexers:          kcache.Indexers{kcache.NamespaceIndex: kcache.MetaNamespaceIndexFunc},
		ObjectDescription: description,
	}))
	if transform != nil {
		_ = inf.SetTransform(transform)
	}
	return inf
}

// resourceInformerFactory is the factory of informers by resource that the
// dynamic constructors return, and the metadata ones inside a
// metadataInformerFactory (both client-go interfaces have the same method
// set; the concrete metadata factory adds StartWithContext). build makes the informer of a resource; set starts
// and stops them. mu guards generic.
type resourceInformerFactory struct {
	resync time.Duration
	build  func(gvr schema.GroupVersionResource, resync time.Duration) informers.GenericInformer
	mu     sync.Mutex
	// generic maps resources to their GenericInformer.
	generic map[schema.GroupVersionResource]informers.GenericInformer
	set     informerSet[schema.GroupVersionResource]
}

// ForResource returns the informer of gvr, building it on first request.
func (f *resourceInformerFactory) ForResource(gvr schema.GroupVersionResource) informers.GenericInformer {
	f.mu.Lock()
	defer f.mu.Unlock()
	if g, ok := f.generic[gvr]; ok {
		return g
	}
	if f.generic == nil {
		f.generic = map[schema.GroupVersionResource]informers.GenericInformer{}
	}
	g := f.build(gvr, f.resync)
	f.generic[gvr] = g
	f.set.getOrAdd(gvr, g.Informer)
	return g
}

// Start starts every informer requested so far.
func (f *resourceInformerFactory) Start(stopCh <-chan struct{}) {
	f.set.start(func(inf clientgocache.SharedIndexInformer) { inf.Run(stopCh) })
}

// WaitForCacheSync waits for every started informer to sync or stopCh to
// close, and tells per resource which synced.
func (f *resourceInformerFactory) WaitForCacheSync(stopCh <-chan struct{}) map[schema.GroupVersionResource]bool {
	return f.set.waitForCacheSync(stopCh)
}

// Shutdown waits until every started informer returned.
func (f *resourceInformerFactory) Shutdown() { f.set.shutdown() }
