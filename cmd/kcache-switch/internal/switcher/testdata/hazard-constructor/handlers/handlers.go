// Package handlers holds event handlers that unwrap tombstones. Every use
// of tools/cache here type-checks against kcache's, but its handlers run
// on client-go informers (package ctl), which deliver client-go's
// DeletedFinalStateUnknown.
package handlers

import "k8s.io/client-go/tools/cache"

// Funcs reports the keys of deleted objects, tombstones included.
func Funcs(deleted func(string)) cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				deleted(t.Key)
			}
		},
	}
}
