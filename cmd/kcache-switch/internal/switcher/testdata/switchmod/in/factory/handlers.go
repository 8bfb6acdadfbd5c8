package factory

import (
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

// Register reports the deletes of the factory's pods. Its handler runs on
// a client-go-typed informer, so it keeps client-go's tools/cache: with
// kcache's, the tombstone assertion would stop matching.
func Register(f informers.SharedInformerFactory, deleted func(string)) error {
	_, err := f.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		DeleteFunc: func(obj any) {
			if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				deleted(tombstone.Key)
			}
		},
	})
	return err
}
