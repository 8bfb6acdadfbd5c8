// Package clientgo presents kcache informers and caches through client-go's
// tools/cache interfaces, so that code whose signatures carry client-go's
// types (generated informer factories and listers, controller-runtime,
// functions taking a cache.SharedIndexInformer) runs on kcache.
//
// It is the one non-test package of the module that imports
// k8s.io/client-go/tools/cache. Four ways in, one line each:
//
//   - wrap an informer you built with kcache: InformerView(kcacheInformer);
//   - build informers through a factory: NewSharedInformerFactoryWithOptions,
//     NewFilteredDynamicSharedInformerFactory or
//     NewFilteredMetadataSharedInformerFactory instead of client-go's
//     constructor of the same name;
//   - build one informer: NewFilteredDynamicInformer or
//     NewFilteredMetadataInformer instead of client-go's constructor of the
//     same name, or OnKcache(coreinformers.NewFilteredPodInformer(...))
//     around any typed package's constructor;
//   - controller-runtime: cache.Options{NewInformer: clientgo.NewSharedIndexInformer}.
//
// The typed, dynamic and metadata factories list and watch through fastlw
// (github.com/kcache-go/cache/fastlw: decoding off the critical path) when
// their client is the real one (*kubernetes.Clientset, *dynamic.DynamicClient,
// *metadata.Client), sending that client's very requests and decoding as it
// does; a fake or any other implementation keeps the plain path, and so do
// the typed factory given WithPlainListWatch and the dynamic and metadata
// factories given a client behind PlainDynamicClient or PlainMetadataClient.
//
// Handlers registered through a view receive client-go's
// DeletedFinalStateUnknown, so existing `obj.(cache.DeletedFinalStateUnknown)`
// code keeps working; everything else they receive is passed unchanged.
// Their registrations have the ShutdownChan that client-go v0.37's
// ShutDownEventHandler waits on.
package clientgo
