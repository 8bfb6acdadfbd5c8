package crmanager

import (
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
)

// NewNamedManager is written where "cache" names tools/cache and
// "clientgo" a variable: the switch imports controller-runtime's cache
// and clientgo under other names.
func NewNamedManager(cfg *rest.Config, h cache.ResourceEventHandler) (ctrl.Manager, error) {
	clientgo := cfg.Host
	_, _ = h, clientgo
	return ctrl.NewManager(cfg, ctrl.Options{LeaderElectionID: "named"})
}
