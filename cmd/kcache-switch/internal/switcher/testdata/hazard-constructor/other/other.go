// Package other builds a hand-made informer that no handler above runs
// on: its switch is not at stake.
package other

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
)

// New builds a pod informer.
func New(lw cache.ListerWatcher) cache.SharedIndexInformer {
	return cache.NewSharedIndexInformer(lw, &corev1.Pod{}, time.Minute, cache.Indexers{})
}
