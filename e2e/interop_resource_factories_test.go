package e2e

import (
	"context"
	"maps"
	"math/rand"
	"runtime"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"

	"github.com/kcache-go/cache/clientgo"
)

// resourceFactory is what dynamic and metadata factories offer.
type resourceFactory interface {
	Start(<-chan struct{})
	ForResource(schema.GroupVersionResource) informers.GenericInformer
	WaitForCacheSync(<-chan struct{}) map[schema.GroupVersionResource]bool
	Shutdown()
}

// configMapsResource is the resource the dynamic and metadata factories
// watch.
var configMapsResource = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

func TestDynamicAndMetadataFactoriesOnKcacheCacheWhatADirectListReturnsAfterChurn(t *testing.T) {
	cfg := cluster.RESTConfig()
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := metadata.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		kcache  bool
		factory func(ns string) resourceFactory
	}{
		{"dynamic/client-go", false, func(ns string) resourceFactory {
			return dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, 0, ns, nil)
		}},
		{"dynamic/kcache", true, func(ns string) resourceFactory {
			return clientgo.NewFilteredDynamicSharedInformerFactory(dyn, 0, ns, nil)
		}},
		{"metadata/client-go", false, func(ns string) resourceFactory {
			return metadatainformer.NewFilteredSharedInformerFactory(meta, 0, ns, nil)
		}},
		{"metadata/kcache", true, func(ns string) resourceFactory {
			return clientgo.NewFilteredMetadataSharedInformerFactory(meta, 0, ns, nil)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			syncTime, perObject, converged := runResourceFactory(t, tc.factory, tc.kcache)
			t.Logf("%-18s initial sync of %d configmaps %s  %.0f bytes/cached object  cache equal to a direct LIST %s after churn",
				tc.name, interopInitialConfigMaps, syncTime.Round(time.Millisecond), perObject, converged.Round(time.Millisecond))
		})
	}
}

// runResourceFactory fills a namespace, syncs the configmaps informer of the
// factory, churns, and waits until the cache (key -> resource version)
// equals a direct LIST.
func runResourceFactory(t *testing.T, newFactory func(ns string) resourceFactory, wantKcache bool) (syncTime time.Duration, bytesPerObject float64, converged time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ns := newNamespace(t, ctx, "interop-resource")
	client, err := newClient()
	if err != nil {
		t.Fatal(err)
	}
	configMaps := client.CoreV1().ConfigMaps(ns)
	rng := rand.New(rand.NewSource(5))
	for i := range interopInitialConfigMaps {
		if _, err := configMaps.Create(ctx, interopConfigMap(i, rng), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	factory := newFactory(ns)
	inf := factory.ForResource(configMapsResource).Informer()
	if _, isKcache := clientgo.KcacheInformer(inf); isKcache != wantKcache {
		t.Fatalf("informer %T: kcache = %v, want %v", inf, isKcache, wantKcache)
	}
	factory.Start(ctx.Done())
	defer func() { cancel(); factory.Shutdown() }()      // Shutdown waits for the stopped informers
	if !cache.WaitFor(ctx, "", inf.HasSyncedChecker()) { // no polling: the sync moment itself
		t.Fatal("the informer did not sync")
	}
	syncTime = time.Since(start)
	if synced := factory.WaitForCacheSync(ctx.Done()); len(synced) != 1 || !synced[configMapsResource] {
		t.Fatalf("WaitForCacheSync = %v", synced)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	bytesPerObject = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / interopInitialConfigMaps

	interopChurn(t, ctx, configMaps, rng, interopChurnOps)
	start = time.Now()
	list, err := configMaps.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, cm := range list.Items {
		want[ns+"/"+cm.Name] = cm.ResourceVersion
	}
	var got map[string]string
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		got = map[string]string{}
		for _, obj := range inf.GetStore().List() {
			m, err := meta.Accessor(obj)
			if err != nil {
				return false, err
			}
			got[m.GetNamespace()+"/"+m.GetName()] = m.GetResourceVersion()
		}
		return maps.Equal(got, want), nil
	})
	if err != nil {
		t.Fatalf("cache (%d objects) never equalled the LIST (%d objects): %v", len(got), len(want), err)
	}
	return syncTime, bytesPerObject, time.Since(start)
}
