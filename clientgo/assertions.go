package clientgo

import (
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/informers/internalinterfaces"
	"k8s.io/client-go/metadata/metadatainformer"
	clientgocache "k8s.io/client-go/tools/cache"

	kcache "github.com/kcache-go/cache"
)

// Compile-time proof that each view implements the client-go interface it
// is returned as, and that the interfaces passed through unconverted have
// the same method sets in both libraries.
var (
	_ clientgocache.SharedInformer                   = (*informerView)(nil)
	_ clientgocache.SharedIndexInformer              = (*informerView)(nil)
	_ clientgocache.ResourceEventHandlerRegistration = registrationView{}
	_ clientgocache.Controller                       = controllerView{}
	_ clientgocache.Indexer                          = indexerView{}
	_ clientgocache.Store                            = indexerView{}
	_ clientgocache.KeyListerGetter                  = indexerView{}

	_ informers.SharedInformerFactory              = (*kcacheTypedFactory)(nil)
	_ internalinterfaces.SharedInformerFactory     = (*kcacheTypedFactory)(nil)
	_ informers.GenericInformer                    = genericInformer{}
	_ dynamicinformer.DynamicSharedInformerFactory = (*resourceInformerFactory)(nil)
	_ metadatainformer.SharedInformerFactory       = (*metadataInformerFactory)(nil)

	// Used as is in both directions.
	_ clientgocache.Store             = kcache.Store(nil)
	_ clientgocache.DoneChecker       = kcache.DoneChecker(nil)
	_ kcache.ListerWatcher            = clientgocache.ListerWatcher(nil)
	_ kcache.ListerWatcherWithContext = clientgocache.ListerWatcherWithContext(nil)
	_ kcache.ResourceEventHandler     = handlerAdapter{}
)
