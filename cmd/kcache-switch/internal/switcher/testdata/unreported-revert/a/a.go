// Package a was switched, then edited by hand: OnKcache now takes a
// variable, not the constructor's call the switch wrapped.
package a

import (
	"time"

	"github.com/kcache-go/cache/clientgo"
	corev1informers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// Pods builds a pod informer on kcache.
func Pods(c kubernetes.Interface) cache.SharedIndexInformer {
	inf := corev1informers.NewPodInformer(c, "", time.Minute, cache.Indexers{})
	return clientgo.OnKcache(inf)
}
