package e2e

import (
	"context"
	"maps"
	"math/rand"
	"reflect"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/kcache-go/cache/clientgo"
)

// derivingReconciler is the controller-runtime version of derivingController:
// it reads configmaps and secrets through the manager's cached client and
// keeps "derived-<name>" secrets in step.
type derivingReconciler struct{ client client.Client }

func (r derivingReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	derivedName := types.NamespacedName{Namespace: req.Namespace, Name: "derived-" + req.Name}
	var cm v1.ConfigMap
	if err := r.client.Get(ctx, req.NamespacedName, &cm); apierrors.IsNotFound(err) {
		secret := &v1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: derivedName.Namespace, Name: derivedName.Name}}
		return ctrl.Result{}, client.IgnoreNotFound(r.client.Delete(ctx, secret))
	} else if err != nil {
		return ctrl.Result{}, err
	}
	want := derivedData(cm.Data)
	var secret v1.Secret
	err := r.client.Get(ctx, derivedName, &secret)
	switch {
	case apierrors.IsNotFound(err):
		secret = v1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: derivedName.Namespace, Name: derivedName.Name}, Data: want}
		// NB: AlreadyExists means the cached client has not seen the secret
		// yet; retrying (not ignoring) lets the update path fix its data.
		return ctrl.Result{}, r.client.Create(ctx, &secret)
	case err != nil:
		return ctrl.Result{}, err
	case reflect.DeepEqual(secret.Data, want):
		return ctrl.Result{}, nil
	}
	secret.Data = want
	return ctrl.Result{}, r.client.Update(ctx, &secret)
}

func TestAControllerRuntimeManagerWithKcachesNewInformerReconcilesLikeTheDefaultCache(t *testing.T) {
	var runs []interopRun
	for _, lib := range []struct {
		name        string
		newInformer func(cache.ListerWatcher, k8sruntime.Object, time.Duration, cache.Indexers) cache.SharedIndexInformer
	}{
		{"client-go", cache.NewSharedIndexInformer},
		{"kcache", clientgo.NewSharedIndexInformer},
	} {
		runs = append(runs, runManager(t, lib.name, lib.newInformer))
	}
	for _, r := range runs {
		t.Logf("%-9s kcache informers=%v  cache sync of %d configmaps %s  %.0f bytes/cached object  churn %s  converged %s after  derived secrets %d",
			r.library, r.isKcache, interopInitialConfigMaps, r.initialSync.Round(time.Millisecond), r.bytesPerObject,
			r.churn.Round(time.Millisecond), r.converge.Round(time.Millisecond), len(r.derived))
	}
	if runs[0].isKcache || !runs[1].isKcache {
		t.Errorf("informers: default cache kcache=%v, NewInformer cache kcache=%v", runs[0].isKcache, runs[1].isKcache)
	}
	if !maps.Equal(runs[0].derived, runs[1].derived) {
		t.Errorf("the two managers left different derived secrets: %d vs %d", len(runs[0].derived), len(runs[1].derived))
	}
}

// runManager runs the scenario with a manager whose cache builds informers
// with newInformer (cache.NewSharedIndexInformer is controller-runtime's
// default). Every informer the cache builds is recorded, so the run can
// prove which library ran them.
func runManager(t *testing.T, library string, newInformer func(cache.ListerWatcher, k8sruntime.Object, time.Duration, cache.Indexers) cache.SharedIndexInformer) interopRun {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ns := newNamespace(t, ctx, "interop-cr-"+library)
	writer, err := newClient()
	if err != nil {
		t.Fatal(err)
	}
	configMaps := writer.CoreV1().ConfigMaps(ns)
	rng := rand.New(rand.NewSource(13))
	for i := range interopInitialConfigMaps {
		if _, err := configMaps.Create(ctx, interopConfigMap(i, rng), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	run := interopRun{library: library}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	skip := true
	var builtMu sync.Mutex
	var built []cache.SharedIndexInformer
	recording := func(lw cache.ListerWatcher, obj k8sruntime.Object, resync time.Duration, idx cache.Indexers) cache.SharedIndexInformer {
		inf := newInformer(lw, obj, resync, idx)
		builtMu.Lock()
		defer builtMu.Unlock()
		built = append(built, inf)
		return inf
	}
	ctrl.SetLogger(logr.Discard())
	mgr, err := ctrl.NewManager(cluster.RESTConfig(), ctrl.Options{
		Cache:                  crcache.Options{NewInformer: recording, DefaultNamespaces: map[string]crcache.Config{ns: {}}},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		t.Fatal(err)
	}
	err = ctrl.NewControllerManagedBy(mgr).Named("interop-" + library).For(&v1.ConfigMap{}).
		WithOptions(controller.Options{SkipNameValidation: &skip, MaxConcurrentReconciles: 4}).
		Complete(derivingReconciler{mgr.GetClient()})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	informer, err := mgr.GetCache().GetInformer(ctx, &v1.ConfigMap{})
	if err != nil {
		t.Fatal(err)
	}
	if !cache.WaitFor(ctx, "", informer.HasSyncedChecker()) { // no polling: the sync moment itself
		t.Fatal("the configmap informer did not sync")
	}
	builtMu.Lock()
	run.isKcache = len(built) > 0
	for _, inf := range built {
		_, onKcache := clientgo.KcacheInformer(inf)
		run.isKcache = run.isKcache && onKcache
	}
	builtMu.Unlock()
	run.initialSync = time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&after)
	run.bytesPerObject = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / interopInitialConfigMaps

	start = time.Now()
	interopChurn(t, ctx, configMaps, rng, interopChurnOps)
	run.churn = time.Since(start)
	start = time.Now()
	run.derived = waitDerived(t, ctx, writer, ns, 3*time.Minute)
	run.converge = time.Since(start)
	return run
}
