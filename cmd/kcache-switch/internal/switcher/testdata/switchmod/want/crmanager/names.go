package crmanager

import (
	"github.com/kcache-go/cache"
	kcacheclientgo "github.com/kcache-go/cache/clientgo"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
)

// NewNamedManager is written where "cache" names tools/cache and
// "clientgo" a variable: the switch imports controller-runtime's cache
// and clientgo under other names.
func NewNamedManager(cfg *rest.Config, h cache.ResourceEventHandler) (ctrl.Manager, error) {
	clientgo := cfg.Host
	_, _ = h, clientgo
	return ctrl.NewManager(cfg, ctrl.Options{LeaderElectionID: "named", Cache: crcache.Options{NewInformer: kcacheclientgo.NewSharedIndexInformer}})
}
