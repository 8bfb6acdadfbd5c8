// Package funcval keeps a typed single-informer constructor as a func
// value, which no call wraps.
package funcval

import (
	"time"

	corev1informers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

var newPods = corev1informers.NewPodInformer

// Pods builds the pod informer.
func Pods(c kubernetes.Interface) cache.SharedIndexInformer {
	return newPods(c, "", time.Minute, cache.Indexers{})
}
