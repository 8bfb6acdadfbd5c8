// Command controller-runtime runs a controller-runtime manager whose cache
// builds kcache informers. The one kcache line is the NewInformer option:
//
//	Cache: cache.Options{NewInformer: clientgo.NewSharedIndexInformer},
//
// Reconcilers, the cached client, handlers and predicates are unchanged: the
// informers are client-go's interface, implemented by kcache.
//
// It reconciles configmaps labelled example=kcache into "<name>-copy"
// configmaps holding the same data. Run it against a cluster with
// -kubeconfig (or $KUBECONFIG).
//
// This example is its own Go module so that the kcache module does not
// require controller-runtime; `make vet` and `make unit` cover it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/kcache-go/cache/clientgo"
)

func main() {
	flag.Parse()
	cfg, err := ctrl.GetConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := run(ctrl.SetupSignalHandler(), cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// managerOptions are the manager's options; the Cache line is the only
// kcache-specific one.
func managerOptions() ctrl.Options {
	return ctrl.Options{
		Cache: cache.Options{NewInformer: clientgo.NewSharedIndexInformer},
	}
}

// run starts the manager with the copying reconciler until ctx ends.
func run(ctx context.Context, cfg *rest.Config) error {
	mgr, err := ctrl.NewManager(cfg, managerOptions())
	if err != nil {
		return err
	}
	labelled := predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetLabels()["example"] == "kcache" })
	err = ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).WithEventFilter(labelled).
		Complete(copier{mgr.GetClient()})
	if err != nil {
		return err
	}
	return mgr.Start(ctx)
}

// copier keeps "<name>-copy" in step with each labelled configmap, reading
// through the manager's cached client.
type copier struct{ client client.Client }

func (c copier) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var source corev1.ConfigMap
	if err := c.client.Get(ctx, req.NamespacedName, &source); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	var copied corev1.ConfigMap
	name := types.NamespacedName{Namespace: req.Namespace, Name: req.Name + "-copy"}
	err := c.client.Get(ctx, name, &copied)
	if apierrors.IsNotFound(err) {
		copied = corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: name.Namespace, Name: name.Name}, Data: source.Data}
		return ctrl.Result{}, c.client.Create(ctx, &copied)
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	copied.Data = source.Data
	return ctrl.Result{}, c.client.Update(ctx, &copied)
}
