// Package lister hands an informer it builds to client-go's generated
// lister, so its tools/cache import stays client-go's; the constructor
// switches through clientgo.
package lister

import (
	corev1 "k8s.io/api/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// PodLister builds an informer and its lister.
func PodLister(lw cache.ListerWatcher) (cache.SharedIndexInformer, corelisters.PodLister) {
	inf := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, cache.Indexers{})
	return inf, corelisters.NewPodLister(inf.GetIndexer())
}

// Plain builds a plain informer, which has no clientgo counterpart.
func Plain(lw cache.ListerWatcher) (cache.Store, cache.Controller) {
	return cache.NewInformerWithOptions(cache.InformerOptions{ListerWatcher: lw, ObjectType: &corev1.Pod{}, Handler: cache.ResourceEventHandlerFuncs{}})
}
