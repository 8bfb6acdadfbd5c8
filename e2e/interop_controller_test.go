package e2e

import (
	"context"
	"fmt"
	"maps"
	"math/rand"
	"net/http"
	"reflect"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/kcache-go/cache/clientgo"
)

// Sizes of the interop controller scenario.
const (
	interopInitialConfigMaps = 2000 // present before the controller starts
	interopChurnOps          = 2000 // creates, updates and deletes while it runs
	interopDeletedWhileCut   = 100  // deleted while its watches are cut
)

// factoryConstructor is informers.NewSharedInformerFactoryWithOptions or
// kcache's drop-in for it.
type factoryConstructor func(kubernetes.Interface, time.Duration, ...informers.SharedInformerOption) informers.SharedInformerFactory

// derivingController is a controller in the style of sample-controller: a
// typed informer factory, listers, a rate-limited workqueue, and handlers
// that unwrap tombstones. For every configmap it keeps a secret
// "derived-<name>" holding the configmap's data; a secret whose configmap is
// gone is deleted.
type derivingController struct {
	client     kubernetes.Interface
	ns         string
	configMaps corelisters.ConfigMapLister
	secrets    corelisters.SecretLister
	queue      workqueue.TypedRateLimitingInterface[string]
	tombstones atomic.Int64
	synced     []cache.InformerSynced
}

func newDerivingController(client kubernetes.Interface, factory informers.SharedInformerFactory, ns string) (*derivingController, error) {
	cmInformer := factory.Core().V1().ConfigMaps()
	secretInformer := factory.Core().V1().Secrets()
	c := &derivingController{
		client: client, ns: ns,
		configMaps: cmInformer.Lister(), secrets: secretInformer.Lister(),
		queue:  workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]()),
		synced: []cache.InformerSynced{cmInformer.Informer().HasSynced, secretInformer.Informer().HasSynced},
	}
	_, err := cmInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueue,
		UpdateFunc: func(_, obj interface{}) { c.enqueue(obj) },
		DeleteFunc: c.enqueueDeleted,
	})
	return c, err
}

func (c *derivingController) enqueue(obj interface{}) {
	key, err := cache.MetaNamespaceKeyFunc(obj)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	c.queue.Add(key)
}

// enqueueDeleted unwraps a tombstone the way sample-controller does.
func (c *derivingController) enqueueDeleted(obj interface{}) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		c.tombstones.Add(1)
		obj = tombstone.Obj
	}
	if _, ok := obj.(*v1.ConfigMap); !ok {
		utilruntime.HandleError(fmt.Errorf("unexpected object %T in a delete notification", obj))
		return
	}
	c.enqueue(obj)
}

func (c *derivingController) run(ctx context.Context, workers int) {
	defer c.queue.ShutDown()
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		return
	}
	for range workers {
		go wait.UntilWithContext(ctx, func(ctx context.Context) {
			for c.processNext(ctx) {
			}
		}, time.Second)
	}
	<-ctx.Done()
}

func (c *derivingController) processNext(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	if err := c.sync(ctx, key); err != nil {
		c.queue.AddRateLimited(key)
		return true
	}
	c.queue.Forget(key)
	return true
}

// sync makes the derived secret of key match its configmap.
func (c *derivingController) sync(ctx context.Context, key string) error {
	_, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	secrets := c.client.CoreV1().Secrets(c.ns)
	cm, err := c.configMaps.ConfigMaps(c.ns).Get(name)
	if apierrors.IsNotFound(err) {
		err = secrets.Delete(ctx, "derived-"+name, metav1.DeleteOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}
	if err != nil {
		return err
	}
	want := derivedData(cm.Data)
	existing, err := c.secrets.Secrets(c.ns).Get("derived-" + name)
	switch {
	case apierrors.IsNotFound(err):
		_, err = secrets.Create(ctx, &v1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "derived-" + name}, Data: want}, metav1.CreateOptions{})
		return err
	case err != nil:
		return err
	case reflect.DeepEqual(existing.Data, want):
		return nil
	}
	updated := existing.DeepCopy()
	updated.Data = want
	_, err = secrets.Update(ctx, updated, metav1.UpdateOptions{})
	return err
}

// derivedData is what a derived secret holds for configmap data d.
func derivedData(d map[string]string) map[string][]byte {
	out := make(map[string][]byte, len(d))
	for k, v := range d {
		out[k] = []byte(v)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// interopRun is what one run of the controller measured and left behind.
type interopRun struct {
	library                      string
	isKcache                     bool
	initialSync, churn, converge time.Duration
	bytesPerObject               float64
	relists, tombstones          int64
	derived                      map[string]string // secret name -> rendered data
}

func TestASampleControllerOnKcachesTypedFactoryLeavesTheServerStateOfClientGosFactory(t *testing.T) {
	var runs []interopRun
	for _, lib := range []struct {
		name string
		make factoryConstructor
	}{
		{"client-go", informers.NewSharedInformerFactoryWithOptions},
		{"kcache", clientgo.NewSharedInformerFactoryWithOptions},
	} {
		runs = append(runs, runDerivingController(t, lib.name, lib.make))
	}
	for _, r := range runs {
		t.Logf("%-9s kcache informers=%v  initial sync of %d configmaps %s  %.0f bytes/cached object  churn %s  converged %s after  relists %d  tombstones %d  derived secrets %d",
			r.library, r.isKcache, interopInitialConfigMaps, r.initialSync.Round(time.Millisecond), r.bytesPerObject,
			r.churn.Round(time.Millisecond), r.converge.Round(time.Millisecond), r.relists, r.tombstones, len(r.derived))
	}
	if runs[0].isKcache || !runs[1].isKcache {
		t.Errorf("informers: client-go run kcache=%v, kcache run kcache=%v", runs[0].isKcache, runs[1].isKcache)
	}
	if !maps.Equal(runs[0].derived, runs[1].derived) {
		t.Errorf("the two runs left different derived secrets: %d vs %d", len(runs[0].derived), len(runs[1].derived))
	}
	for _, r := range runs {
		if r.relists < 1 || r.tombstones < 1 {
			t.Errorf("%s: %d relists, %d tombstones; the forced relist did not happen as planned", r.library, r.relists, r.tombstones)
		}
	}
}

// runDerivingController runs the whole scenario on one library's factory in
// a fresh namespace and returns what it measured.
func runDerivingController(t *testing.T, library string, newFactory factoryConstructor) interopRun {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ns := newNamespace(t, ctx, "interop-"+library)
	writer, err := newClient()
	if err != nil {
		t.Fatal(err)
	}
	configMaps := writer.CoreV1().ConfigMaps(ns)
	rng := rand.New(rand.NewSource(11))
	for i := range interopInitialConfigMaps {
		if _, err := configMaps.Create(ctx, interopConfigMap(i, rng), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	cutter, client := cutClient(t)
	run := interopRun{library: library}

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	factory := newFactory(client, 0, informers.WithNamespace(ns))
	controller, err := newDerivingController(client, factory, ns)
	if err != nil {
		t.Fatal(err)
	}
	_, run.isKcache = clientgo.KcacheInformer(factory.Core().V1().ConfigMaps().Informer())
	factory.Start(ctx.Done())
	defer func() { cancel(); factory.Shutdown() }()                            // Shutdown waits for the stopped informers
	if err := factory.WaitForCacheSyncWithContext(ctx).AsError(); err != nil { // no polling: the sync moment itself
		t.Fatal(err)
	}
	run.initialSync = time.Since(start)
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	run.bytesPerObject = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / interopInitialConfigMaps
	initialSyncs := cutter.initialSyncs.Load()

	go controller.run(ctx, 4)
	start = time.Now()
	interopChurn(t, ctx, configMaps, rng, interopChurnOps/2)
	cutter.cut()
	for i := range interopDeletedWhileCut {
		if err := configMaps.Delete(ctx, fmt.Sprintf("cm-%04d", i*7), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
	}
	cutter.heal()
	interopChurn(t, ctx, configMaps, rng, interopChurnOps/2)
	run.churn = time.Since(start)
	start = time.Now()
	run.derived = waitDerived(t, ctx, writer, ns, 3*time.Minute)
	run.converge = time.Since(start)
	run.relists = cutter.initialSyncs.Load() - initialSyncs
	run.tombstones = controller.tombstones.Load()
	return run
}

// cutClient returns a clientset whose configmap watches a watchCutter
// controls.
func cutClient(t *testing.T) (*watchCutter, kubernetes.Interface) {
	cfg := cluster.RESTConfig()
	cutter := &watchCutter{resource: "/configmaps"}
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		cutter.base = rt
		return cutter
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cutter, client
}

// interopConfigMap is configmap number i with random data.
func interopConfigMap(i int, rng *rand.Rand) *v1.ConfigMap {
	return &v1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%04d", i), Labels: map[string]string{"app": "interop"}},
		Data: map[string]string{
			"a": fmt.Sprintf("%064d", rng.Int63()), "b": fmt.Sprintf("%064d", rng.Int63()), "c": fmt.Sprintf("%064d", rng.Int63()),
		},
	}
}

// interopChurn makes ops random writes: updates (60%), creates (20%) and
// deletes (20%) of configmaps among 2.5 times the initial number of names.
func interopChurn(t *testing.T, ctx context.Context, configMaps interface {
	Create(context.Context, *v1.ConfigMap, metav1.CreateOptions) (*v1.ConfigMap, error)
	Update(context.Context, *v1.ConfigMap, metav1.UpdateOptions) (*v1.ConfigMap, error)
	Delete(context.Context, string, metav1.DeleteOptions) error
}, rng *rand.Rand, ops int) {
	t.Helper()
	for range ops {
		i := rng.Intn(interopInitialConfigMaps * 5 / 2)
		cm := interopConfigMap(i, rng)
		var err error
		switch p := rng.Intn(10); {
		case p < 6:
			_, err = configMaps.Update(ctx, cm, metav1.UpdateOptions{})
		case p < 8:
			_, err = configMaps.Create(ctx, cm, metav1.CreateOptions{})
		default:
			err = configMaps.Delete(ctx, cm.Name, metav1.DeleteOptions{})
		}
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
}

// waitDerived waits until the derived secrets in ns are exactly those the
// configmaps on the server call for, and returns them keyed by configmap
// name.
func waitDerived(t *testing.T, ctx context.Context, client kubernetes.Interface, ns string, timeout time.Duration) map[string]string {
	t.Helper()
	var got, want map[string]string
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		cms, err := client.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		secrets, err := client.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		want, got = map[string]string{}, map[string]string{}
		for _, cm := range cms.Items {
			want["derived-"+cm.Name] = fmt.Sprint(derivedData(cm.Data))
		}
		for _, s := range secrets.Items {
			if s.Type == v1.SecretTypeOpaque && len(s.Name) > 8 && s.Name[:8] == "derived-" {
				got[s.Name] = fmt.Sprint(s.Data)
			}
		}
		return maps.Equal(got, want), nil
	})
	if err != nil {
		t.Fatalf("derived secrets in %s did not converge: %d secrets, %d configmaps: %v", ns, len(got), len(want), err)
	}
	return got
}
