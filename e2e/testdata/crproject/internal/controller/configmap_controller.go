// Package controller holds the project's reconcilers.
package controller

import (
	"context"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// KeysAnnotation is where the reconciler writes the number of keys of a
// ConfigMap's data.
const KeysAnnotation = "crproject.example.com/keys"

// ConfigMapReconciler keeps every ConfigMap's KeysAnnotation equal to the
// number of keys in its data.
type ConfigMapReconciler struct {
	client.Client
}

// Reconcile reads the ConfigMap from the manager's cache and updates its
// annotation when it is not the count of its keys.
func (r *ConfigMapReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var cm corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &cm); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	want := strconv.Itoa(len(cm.Data))
	if cm.Annotations[KeysAnnotation] == want {
		return ctrl.Result{}, nil
	}
	log.FromContext(ctx).Info("counting keys", "keys", want)
	cm = *cm.DeepCopy()
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[KeysAnnotation] = want
	return ctrl.Result{}, r.Update(ctx, &cm)
}

// SetupWithManager registers the reconciler for ConfigMaps.
func (r *ConfigMapReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Named("configmap").Complete(r)
}
