// Package factory gets its informers from client-go's factories.
package factory

import (
	"time"

	"github.com/kcache-go/cache/clientgo"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
)

// Factories builds one factory of each kind; the informers package stays
// imported (its options and interface are used).
func Factories(client kubernetes.Interface, dyn dynamic.Interface, meta metadata.Interface) (informers.SharedInformerFactory, dynamicinformer.DynamicSharedInformerFactory, metadatainformer.SharedInformerFactory) {
	typed := clientgo.NewSharedInformerFactoryWithOptions(client, time.Minute, informers.WithNamespace("apps"))
	dynamic := clientgo.NewFilteredDynamicSharedInformerFactory(dyn, time.Minute, "apps", nil)
	md := clientgo.NewMetadataSharedInformerFactory(meta, time.Minute)
	return typed, dynamic, md
}
