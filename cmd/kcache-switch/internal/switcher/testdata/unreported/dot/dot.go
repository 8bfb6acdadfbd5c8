// Package dot refers to client-go's constructors through dot imports; it
// keeps client-go's tools/cache (its indexer feeds a lister).
package dot

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	. "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	. "k8s.io/client-go/tools/cache"
)

// Start builds a factory and a hand-made informer.
func Start(c kubernetes.Interface, lw ListerWatcher) (SharedInformerFactory, corelisters.PodLister) {
	f := NewSharedInformerFactory(c, time.Minute)
	inf := NewSharedIndexInformer(lw, &corev1.Pod{}, time.Minute, Indexers{})
	return f, corelisters.NewPodLister(inf.GetIndexer())
}
