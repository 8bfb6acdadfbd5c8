// Package crmanager builds controller-runtime managers and caches.
package crmanager

import (
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// NewManager is a kubebuilder main's manager: its options get a Cache.
func NewManager(cfg *rest.Config, scheme *runtime.Scheme) (ctrl.Manager, error) {
	return ctrl.NewManager(cfg, ctrl.Options{
		Scheme:  scheme,
		Metrics: metricsserver.Options{BindAddress: "0"},
	})
}

// NewCache builds a cache of one namespace: its options get NewInformer.
func NewCache(cfg *rest.Config, scheme *runtime.Scheme) (cache.Cache, error) {
	return cache.New(cfg, cache.Options{Scheme: scheme, DefaultNamespaces: map[string]cache.Config{"apps": {}}})
}

// NewSyncingManager has a cache literal of its own, which gets NewInformer.
func NewSyncingManager(cfg *rest.Config, every time.Duration) (ctrl.Manager, error) {
	return ctrl.NewManager(cfg, ctrl.Options{Cache: cache.Options{SyncPeriod: &every}})
}
