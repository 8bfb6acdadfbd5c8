// Package a vendors kcache's root package only (vendor/ holds what the
// module imports), and builds a typed factory.
package a

import (
	"time"

	"github.com/kcache-go/cache"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
)

// Keys keys obj as kcache does.
var Keys = cache.MetaNamespaceKeyFunc

// NewFactory builds a factory.
func NewFactory(c kubernetes.Interface) informers.SharedInformerFactory {
	return informers.NewSharedInformerFactory(c, time.Minute)
}
