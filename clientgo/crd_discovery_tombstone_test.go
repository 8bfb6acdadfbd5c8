package clientgo

import (
	"fmt"
	"sort"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	clienttesting "k8s.io/client-go/testing"
	clientgocache "k8s.io/client-go/tools/cache"
)

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// newCRD is a CustomResourceDefinition as the dynamic client returns it.
func newCRD(group, kind, plural string, versions ...string) *unstructured.Unstructured {
	served := make([]interface{}, 0, len(versions))
	for _, v := range versions {
		served = append(served, map[string]interface{}{"name": v})
	}
	u := &unstructured.Unstructured{Object: map[string]interface{}{
		"spec": map[string]interface{}{
			"group":    group,
			"names":    map[string]interface{}{"kind": kind, "plural": plural},
			"versions": served,
		},
	}}
	u.SetAPIVersion("apiextensions.k8s.io/v1")
	u.SetKind("CustomResourceDefinition")
	u.SetName(plural + "." + group)
	return u
}

// crdDiscovery keeps, as kube-state-metrics' CRD discovery
// (internal/discovery/discovery.go) does, the group/version/kind/plural of
// every CRD its handler was told about, with its add and delete counters;
// its delete handler unwraps a tombstone with
// `obj.(cache.DeletedFinalStateUnknown)` before reading the CRD's spec.
// mu guards every field.
type crdDiscovery struct {
	mu                     sync.Mutex
	known                  map[string]bool
	adds, deletes, unwraps int
	// unreadable lists what a handler got that is not a CRD (where
	// kube-state-metrics' type assertion would panic).
	unreadable []string
	deleted    chan struct{}
}

func (d *crdDiscovery) handler() clientgocache.ResourceEventHandlerFuncs {
	return clientgocache.ResourceEventHandlerFuncs{
		AddFunc: func(obj interface{}) { d.apply(obj, true) },
		DeleteFunc: func(obj interface{}) {
			if tombstone, ok := obj.(clientgocache.DeletedFinalStateUnknown); ok {
				d.mu.Lock()
				d.unwraps++
				d.mu.Unlock()
				obj = tombstone.Obj
			}
			d.apply(obj, false)
			d.deleted <- struct{}{}
		},
	}
}

// apply adds (or removes) every version of the CRD obj.
func (d *crdDiscovery) apply(obj interface{}, add bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	crd, ok := obj.(*unstructured.Unstructured)
	if !ok {
		d.unreadable = append(d.unreadable, fmt.Sprintf("%T", obj))
		return
	}
	group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
	kind, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
	plural, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for _, v := range versions {
		gvkp := fmt.Sprintf("%s/%s, Kind=%s (%s)", group, v.(map[string]interface{})["name"], kind, plural)
		if add {
			d.known[gvkp] = true
		} else {
			delete(d.known, gvkp)
		}
	}
	if add {
		d.adds++
	} else {
		d.deletes++
	}
}

// String renders the discovery's state.
func (d *crdDiscovery) String() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var known []string
	for k := range d.known {
		known = append(known, k)
	}
	sort.Strings(known)
	return fmt.Sprintf("known %v; adds %d, deletes %d, tombstones unwrapped %d, unreadable %v", known, d.adds, d.deletes, d.unwraps, d.unreadable)
}

// discoverCRDs builds the CRD informer with newInformer (which builds it
// as kube-state-metrics does: all namespaces, no resync, no indexers, no
// tweak), syncs it, deletes a CRD while the watch is down and lets the
// informer relist; it returns the discovery's state after the sync and
// after the relist.
func discoverCRDs(t *testing.T, newInformer func(dynamic.Interface) informers.GenericInformer) (synced, relisted string) {
	t.Helper()
	watchers := make(chan *watch.FakeWatcher, 4)
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{crdResource: "CustomResourceDefinitionList"},
		newCRD("example.com", "Widget", "widgets", "v1", "v2"), newCRD("example.com", "Gadget", "gadgets", "v1"))
	client.PrependWatchReactor("*", func(clienttesting.Action) (bool, watch.Interface, error) {
		w := watch.NewFakeWithChanSize(1, false)
		watchers <- w
		return true, w, nil
	})
	informer := newInformer(client).Informer()
	d := &crdDiscovery{known: map[string]bool{}, deleted: make(chan struct{}, 4)}
	reg, err := informer.AddEventHandler(d.handler())
	if err != nil {
		t.Fatal(err)
	}
	stop := runUntilStopped(informer)
	defer stop()
	if !clientgocache.WaitForCacheSync(nil, reg.HasSynced) {
		t.Fatal("no sync")
	}
	synced = d.String()
	if err := client.Tracker().Delete(crdResource, "", "gadgets.example.com"); err != nil {
		t.Fatal(err)
	}
	expire(<-watchers)
	<-d.deleted
	<-watchers // the relist happened before the second watch
	return synced, d.String()
}

func TestACRDDeletedDuringAWatchGapIsUnwrappedByAKubeStateMetricsHandlerAsOnClientGo(t *testing.T) {
	cases := []struct {
		name        string
		newInformer func(dynamic.Interface) informers.GenericInformer
	}{
		{"client-go's dynamicinformer.NewFilteredDynamicInformer", func(c dynamic.Interface) informers.GenericInformer {
			return dynamicinformer.NewFilteredDynamicInformer(c, crdResource, "", 0, nil, nil)
		}},
		{"clientgo.NewFilteredDynamicInformer", func(c dynamic.Interface) informers.GenericInformer {
			return NewFilteredDynamicInformer(c, crdResource, "", 0, nil, nil)
		}},
	}
	const (
		wantSynced   = "known [example.com/v1, Kind=Gadget (gadgets) example.com/v1, Kind=Widget (widgets) example.com/v2, Kind=Widget (widgets)]; adds 2, deletes 0, tombstones unwrapped 0, unreadable []"
		wantRelisted = "known [example.com/v1, Kind=Widget (widgets) example.com/v2, Kind=Widget (widgets)]; adds 2, deletes 1, tombstones unwrapped 1, unreadable []"
	)
	traces := make([]string, len(cases))
	t.Run("each", func(t *testing.T) {
		for i, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel() // NB: each waits out its reflector's backoff before the relist
				synced, relisted := discoverCRDs(t, tc.newInformer)
				if synced != wantSynced || relisted != wantRelisted {
					t.Errorf("after sync:\n  %s\nafter relist:\n  %s\nwant:\n  %s\n  %s", synced, relisted, wantSynced, wantRelisted)
				}
				traces[i] = synced + "\n" + relisted
			})
		}
	})
	if traces[0] != traces[1] {
		t.Errorf("client-go:\n%s\nkcache:\n%s", traces[0], traces[1])
	}
}
