package prometheus

import (
	"errors"
	"sync"

	cache "github.com/kcache-go/cache"
	"github.com/prometheus/client_golang/prometheus"
)

// families returns the process's metric families, created on first use.
var families = sync.OnceValue(newCollectors)

// install installs the providers in kcache, once.
var install = sync.OnceFunc(func() {
	cache.SetReflectorMetricsProvider(ReflectorMetricsProvider())
	cache.SetInformerMetricsProvider(InformerMetricsProvider())
})

// Register registers kcache's metric families on reg and installs kcache's
// Reflector and informer metrics providers process-wide. Reflectors and
// informer queues created afterwards report to them.
//
// It may be called for several registries: they share the same families.
// Registering on a registry that already has them is not an error; a
// conflicting collector of the same name is, and then none of the families
// this call registered stay on reg. kcache keeps the first
// provider installed: if another Reflector or informer provider was set
// with cache.SetReflectorMetricsProvider or cache.SetInformerMetricsProvider
// before, that one stays in effect (informers can still be given
// InformerMetricsProvider() in their options).
func Register(reg prometheus.Registerer) error {
	install()
	var added []prometheus.Collector
	for _, c := range families().all() {
		err := reg.Register(c)
		if err == nil {
			added = append(added, c)
			continue
		}
		var already prometheus.AlreadyRegisteredError
		if errors.As(err, &already) && already.ExistingCollector == c {
			continue
		}
		for _, a := range added {
			reg.Unregister(a) // NB: all or nothing, so that a retry or another registry starts clean
		}
		return err
	}
	return nil
}

// InformerMetricsProvider returns kcache's informer metrics provider (queue,
// store and per-handler metrics), for
// cache.SharedIndexInformerOptions.InformerMetricsProvider. Its metrics
// appear on the registries given to Register.
func InformerMetricsProvider() cache.InformerMetricsProvider {
	return informerProvider{families()}
}

// ReflectorMetricsProvider returns kcache's Reflector metrics provider, as
// Register installs it.
func ReflectorMetricsProvider() cache.MetricsProvider {
	return reflectorProvider{families()}
}
