package controller

import (
	"context"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// inspectInformer is called with the manager's ConfigMap informer at the
// end of the test.
var inspectInformer = func(t *testing.T, informer any) {
	t.Logf("configmap informer: %T", informer)
}

// TestConfigMapReconcilerCountsTheKeysOfEveryConfigMap runs the reconciler
// in a manager against the cluster of $KUBECONFIG, in the namespace
// $CRPROJECT_NAMESPACE.
func TestConfigMapReconcilerCountsTheKeysOfEveryConfigMap(t *testing.T) {
	ns := os.Getenv("CRPROJECT_NAMESPACE")
	if os.Getenv("KUBECONFIG") == "" || ns == "" {
		t.Skip("needs a cluster: KUBECONFIG and CRPROJECT_NAMESPACE")
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:  scheme.Scheme,
		Metrics: metricsserver.Options{BindAddress: "0"},
		Cache:   cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := (&ConfigMapReconciler{Client: mgr.GetClient()}).SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	informer, err := mgr.GetCache().GetInformer(ctx, &corev1.ConfigMap{})
	if err != nil {
		t.Fatal(err)
	}
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		t.Fatal("the cache did not sync")
	}

	direct, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "counted"}, Data: map[string]string{"a": "1", "b": "2"}}
	if err := direct.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	waitForKeys(t, ctx, direct, types.NamespacedName{Namespace: ns, Name: "counted"}, "2")
	if err := direct.Get(ctx, client.ObjectKeyFromObject(cm), cm); err != nil {
		t.Fatal(err)
	}
	cm.Data["c"] = "3"
	if err := direct.Update(ctx, cm); err != nil {
		t.Fatal(err)
	}
	waitForKeys(t, ctx, direct, types.NamespacedName{Namespace: ns, Name: "counted"}, "3")
	inspectInformer(t, informer)
}

// waitForKeys waits until the server's ConfigMap carries the count want.
func waitForKeys(t *testing.T, ctx context.Context, c client.Client, key types.NamespacedName, want string) {
	t.Helper()
	var got string
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		var cm corev1.ConfigMap
		if err := c.Get(ctx, key, &cm); err != nil {
			return false, err
		}
		got = cm.Annotations[KeysAnnotation]
		return got == want, nil
	})
	if err != nil {
		t.Fatalf("%s: annotation %q = %q, want %q: %v", key, KeysAnnotation, got, want, err)
	}
	t.Logf("%s: the reconciler wrote %s=%s", key, KeysAnnotation, want)
}
