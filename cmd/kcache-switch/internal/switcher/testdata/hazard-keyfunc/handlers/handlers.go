// Package handlers keeps client-go's tools/cache (its indexers feed
// client-go listers) and keys deletes with client-go's
// DeletionHandlingMetaNamespaceKeyFunc, which unwraps client-go's
// DeletedFinalStateUnknown only, as sample-controller's handlers do.
package handlers

import (
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// Handler reports the keys of deleted objects, tombstones included.
type Handler struct{ Deleted func(string) }

// OnAdd does nothing.
func (h Handler) OnAdd(obj any, initial bool) {}

// OnUpdate does nothing.
func (h Handler) OnUpdate(old, obj any) {}

// OnDelete reports the key of obj; a key error drops the delete.
func (h Handler) OnDelete(obj any) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return
	}
	h.Deleted(key)
}

// Lister lists the pods of an indexer.
func Lister(ix cache.Indexer) corelisters.PodLister { return corelisters.NewPodLister(ix) }
