// Package a builds a hand-made informer; every use of tools/cache in
// this file type-checks against kcache's.
package a

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
)

// New builds a pod informer.
func New(lw cache.ListerWatcher) cache.SharedIndexInformer {
	return cache.NewSharedIndexInformer(lw, &corev1.Pod{}, time.Minute, cache.Indexers{})
}
