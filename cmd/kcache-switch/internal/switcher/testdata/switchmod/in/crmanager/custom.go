package crmanager

import (
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
)

// NewLoggingManager passes an informer constructor of its own, which
// keeps its place; the client-go constructor inside it switches through
// clientgo.
func NewLoggingManager(cfg *rest.Config) (ctrl.Manager, error) {
	return ctrl.NewManager(cfg, ctrl.Options{Cache: crcache.Options{NewInformer: newInformer}})
}

func newInformer(lw cache.ListerWatcher, obj runtime.Object, resync time.Duration, ix cache.Indexers) cache.SharedIndexInformer {
	return cache.NewSharedIndexInformer(lw, obj, resync, ix)
}
