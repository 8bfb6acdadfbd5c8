package clientgo

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/dynamic/dynamiclister"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/metadata/metadatalister"
	clientgocache "k8s.io/client-go/tools/cache"
)

// NewFilteredDynamicInformer is client-go's
// dynamicinformer.NewFilteredDynamicInformer, same arguments, on kcache:
// Informer() is a kcache informer of *unstructured.Unstructured objects
// (behind client-go's interface) that lists and watches
// client.Resource(gvr) in namespace, options tweaked by tweakListOptions,
// with exactly the given indexers (unlike the dynamic factory's informers,
// no namespace index is added), resyncPeriod and the resource as object
// description, as client-go's; Lister() is a dynamiclister on its kcache
// storage. Handlers added through it receive client-go's
// DeletedFinalStateUnknown. It is a single informer, not shared: the
// caller runs it.
//
// client-go's own constructor builds the settings (its informer is never
// run; see OnKcache), so every setting is the one client-go chose.
func NewFilteredDynamicInformer(client dynamic.Interface, gvr schema.GroupVersionResource, namespace string, resyncPeriod time.Duration, indexers clientgocache.Indexers, tweakListOptions dynamicinformer.TweakListOptionsFunc) informers.GenericInformer {
	built := dynamicinformer.NewFilteredDynamicInformer(client, gvr, namespace, resyncPeriod, indexers, tweakListOptions)
	inf := mustOnKcache(built.Informer())
	return genericInformer{inf, dynamiclister.NewRuntimeObjectShim(dynamiclister.New(inf.GetIndexer(), gvr))}
}

// NewFilteredMetadataInformer is client-go's
// metadatainformer.NewFilteredMetadataInformer, same arguments, on kcache:
// Informer() is a kcache informer of *metav1.PartialObjectMetadata
// (behind client-go's interface) that lists and watches
// client.Resource(gvr) in namespace, options tweaked by tweakListOptions,
// with exactly the given indexers and resyncPeriod, as client-go's;
// Lister() is a metadatalister on its kcache storage. As
// NewFilteredDynamicInformer, its settings are client-go's constructor's.
func NewFilteredMetadataInformer(client metadata.Interface, gvr schema.GroupVersionResource, namespace string, resyncPeriod time.Duration, indexers clientgocache.Indexers, tweakListOptions metadatainformer.TweakListOptionsFunc) informers.GenericInformer {
	built := metadatainformer.NewFilteredMetadataInformer(client, gvr, namespace, resyncPeriod, indexers, tweakListOptions)
	inf := mustOnKcache(built.Informer())
	return genericInformer{inf, metadatalister.NewRuntimeObjectShim(metadatalister.New(inf.GetIndexer(), gvr))}
}

// mustOnKcache is OnKcache of an informer client-go's dynamic or metadata
// constructor built; it panics when the result is not a kcache informer
// (a client-go version whose constructors build another informer type).
func mustOnKcache(built clientgocache.SharedIndexInformer) clientgocache.SharedIndexInformer {
	inf := OnKcache(built)
	if _, ok := KcacheInformer(inf); !ok {
		panic(fmt.Sprintf("clientgo: client-go's constructor built a %T, not its own informer; this client-go version is not supported", built))
	}
	return inf
}
