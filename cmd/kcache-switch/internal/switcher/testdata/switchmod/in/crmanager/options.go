package crmanager

import (
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// Start takes its options from its caller: the report prints the line to
// add.
func Start(cfg *rest.Config, opts manager.Options) (manager.Manager, error) {
	return manager.New(cfg, opts)
}

// Defaults builds its options from a literal, which the switch completes:
// the call needs no line.
func Defaults(cfg *rest.Config) (manager.Manager, error) {
	opts := manager.Options{LeaderElection: false}
	return manager.New(cfg, opts)
}

// NewCluster passes no options: the report prints the option to pass.
func NewCluster(cfg *rest.Config) (cluster.Cluster, error) {
	return cluster.New(cfg)
}
