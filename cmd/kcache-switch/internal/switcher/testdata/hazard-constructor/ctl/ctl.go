// Package ctl keeps client-go's tools/cache (its indexers feed client-go
// listers) and hands the handlers of package handlers to client-go's
// informer constructors, never through AddEventHandler.
package ctl

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"example.com/switchtest/handlers"
)

// Pods builds a pod informer whose handler is given to the constructor.
func Pods(lw cache.ListerWatcher, deleted func(string)) (cache.Controller, corelisters.PodLister) {
	indexer, ctrl := cache.NewIndexerInformer(lw, &corev1.Pod{}, time.Minute, handlers.Funcs(deleted), cache.Indexers{})
	return ctrl, corelisters.NewPodLister(indexer)
}

// Nodes builds a node informer whose handler is an option.
func Nodes(lw cache.ListerWatcher, deleted func(string)) (cache.Controller, corelisters.NodeLister) {
	store, ctrl := cache.NewInformerWithOptions(cache.InformerOptions{
		ListerWatcher: lw,
		ObjectType:    &corev1.Node{},
		Handler:       handlers.Funcs(deleted),
	})
	return ctrl, corelisters.NewNodeLister(store.(cache.Indexer))
}
