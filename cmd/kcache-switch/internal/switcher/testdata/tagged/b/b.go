//go:build extra

package b

import (
	corelisters "k8s.io/client-go/listers/core/v1"

	"example.com/switchtest/a"
)

// NewLister lists the pods of the informer a.New builds over nil.
func NewLister() corelisters.PodLister {
	return corelisters.NewPodLister(a.New(nil).GetIndexer())
}
