package clientgo

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/metadata/metadatalister"
	clientgocache "k8s.io/client-go/tools/cache"

	kcache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/internal/privatefield"
)

// NewMetadataSharedInformerFactory is metadatainformer.NewSharedInformerFactory
// on kcache: all namespaces, no tweak.
func NewMetadataSharedInformerFactory(client metadata.Interface, defaultResync time.Duration) metadatainformer.SharedInformerFactory {
	return NewFilteredMetadataSharedInformerFactory(client, defaultResync, metav1.NamespaceAll, nil)
}

// NewFilteredMetadataSharedInformerFactory is client-go's
// metadatainformer.NewFilteredSharedInformerFactory, same arguments, but
// ForResource(gvr).Informer() is a kcache informer of
// *metav1.PartialObjectMetadata (behind client-go's interface) with the
// namespace index, and Lister() a metadatalister on its kcache storage.
// When client is a *metadata.Client the informer lists and watches through
// fastlw, with the metadata client's requests and decoder (see
// metadataListerWatcher); PlainMetadataClient(client) turns that off.
func NewFilteredMetadataSharedInformerFactory(client metadata.Interface, defaultResync time.Duration, namespace string, tweakListOptions metadatainformer.TweakListOptionsFunc) metadatainformer.SharedInformerFactory {
	return newMetadataFactory(client, defaultResync, namespace, tweakListOptions, nil)
}

// NewMetadataSharedInformerFactoryWithOptions is client-go's
// metadatainformer.NewSharedInformerFactoryWithOptions on kcache; the
// options (WithTransform) are read from a client-go factory they are
// applied to (see internal/privatefield).
func NewMetadataSharedInformerFactoryWithOptions(client metadata.Interface, defaultResync time.Duration, options ...metadatainformer.SharedInformerOption) metadatainformer.SharedInformerFactory {
	settings := metadatainformer.NewSharedInformerFactoryWithOptions(client, defaultResync, options...)
	transform, ok := privatefield.Read[clientgocache.TransformFunc](settings, "transform")
	if !ok {
		panic("clientgo: cannot read the transform of client-go's metadata informer factory; this client-go version is not supported")
	}
	return newMetadataFactory(client, defaultResync, metav1.NamespaceAll, nil, transform)
}

// newMetadataFactory builds the factory; tweak and transform may be nil.
func newMetadataFactory(client metadata.Interface, defaultResync time.Duration, namespace string, tweak metadatainformer.TweakListOptionsFunc, transform clientgocache.TransformFunc) metadatainformer.SharedInformerFactory {
	return &metadataInformerFactory{resourceInformerFactory{
		resync: defaultResync,
		build: func(gvr schema.GroupVersionResource, resync time.Duration) informers.GenericInformer {
			resourceClient := client.Resource(gvr).Namespace(namespace)
			lw := resourceListWatch(tweak,
				func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
					return resourceClient.List(ctx, opts)
				}, resourceClient.Watch)
			scope := resourceScope{gvr: gvr, namespace: namespace, tweak: tweak}
			source := metadataListerWatcher(client, scope, kcache.ToListWatcherWithWatchListSemantics(lw, client))
			inf := newResourceInformer(source, &metav1.PartialObjectMetadata{}, "", resync, transform)
			return genericInformer{inf, metadatalister.NewRuntimeObjectShim(metadatalister.New(inf.GetIndexer(), gvr))}
		},
	}}
}

// metadataInformerFactory is the factory the metadata constructors return:
// the factory of informers by resource, plus the StartWithContext that
// client-go's metadata factory has beside its interface (its dynamic one
// has none, so resourceInformerFactory has none either).
type metadataInformerFactory struct {
	resourceInformerFactory
}

// StartWithContext starts every informer requested so far, each running
// until ctx is done; informers requested later start with the next Start
// or StartWithContext, and none once Shutdown was called.
func (f *metadataInformerFactory) StartWithContext(ctx context.Context) {
	f.set.start(func(inf clientgocache.SharedIndexInformer) { inf.RunWithContext(ctx) })
}
