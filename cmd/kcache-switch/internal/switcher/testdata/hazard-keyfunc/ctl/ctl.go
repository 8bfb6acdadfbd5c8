// Package ctl builds a hand-made informer (every use of tools/cache
// type-checks against kcache's) and registers the handler of package
// handlers on it.
package ctl

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"example.com/switchtest/handlers"
)

// New builds the informer and registers the handler.
func New(lw cache.ListerWatcher, deleted func(string)) (cache.SharedIndexInformer, error) {
	inf := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, time.Minute, cache.Indexers{})
	_, err := inf.AddEventHandler(handlers.Handler{Deleted: deleted})
	return inf, err
}
