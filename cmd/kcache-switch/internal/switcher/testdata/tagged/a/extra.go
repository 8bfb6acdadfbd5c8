//go:build extra

package a

import (
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// PodLister lists the pods of the informer New builds.
func PodLister(lw cache.ListerWatcher) corelisters.PodLister {
	return corelisters.NewPodLister(New(lw).GetIndexer())
}
