// Package single builds single informers with client-go's
// single-informer constructors (issue 31): typed, dynamic, metadata and
// cache.NewSharedInformer, one of them already on kcache.
package single

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	corev1informers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
)

// Single builds one informer with each constructor.
func Single(client kubernetes.Interface, dyn dynamic.Interface, meta metadata.Interface, gvr schema.GroupVersionResource, lw cache.ListerWatcher) []cache.SharedInformer {
	return []cache.SharedInformer{
		dynamicinformer.NewFilteredDynamicInformer(dyn, gvr, "", time.Minute, cache.Indexers{}, nil).Informer(),
		metadatainformer.NewFilteredMetadataInformer(meta, gvr, "", time.Minute, cache.Indexers{}, nil).Informer(),
		corev1informers.NewPodInformer(client, "", time.Minute, cache.Indexers{}),
		corev1informers.NewFilteredConfigMapInformer(client, "", time.Minute, cache.Indexers{}, nil),
		cache.NewSharedInformer(lw, &corev1.Pod{}, time.Minute),
		corev1informers.NewServiceInformer(client, "", time.Minute, cache.Indexers{}),
	}
}
