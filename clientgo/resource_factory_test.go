package clientgo

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/dynamicinformer"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	metadatafake "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/metadata/metadatainformer"
)

var podsResource = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// resourceFactory is what both dynamic and metadata factories offer.
type resourceFactory interface {
	Start(<-chan struct{})
	ForResource(schema.GroupVersionResource) informers.GenericInformer
	WaitForCacheSync(<-chan struct{}) map[schema.GroupVersionResource]bool
	Shutdown()
}

// readResourceFactory syncs the pods informer of f and renders its cache
// and its lister's view of namespace "a".
func readResourceFactory(t *testing.T, f resourceFactory, wantKcache bool) string {
	t.Helper()
	g := f.ForResource(podsResource)
	if _, isKcache := KcacheInformer(g.Informer()); isKcache != wantKcache {
		t.Fatalf("informer %T: kcache = %v, want %v", g.Informer(), isKcache, wantKcache)
	}
	if f.ForResource(podsResource).Informer() != g.Informer() {
		t.Error("ForResource gave two informers for one resource")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer f.Shutdown()
	defer cancel()
	f.Start(ctx.Done())
	if synced := f.WaitForCacheSync(ctx.Done()); !synced[podsResource] || len(synced) != 1 {
		t.Fatalf("WaitForCacheSync = %v", synced)
	}
	listed, err := g.Lister().ByNamespace("a").List(labels.Everything())
	one, getErr := g.Lister().ByNamespace("a").Get("web")
	var labelled []string
	for _, obj := range g.Informer().GetStore().List() {
		m, _ := meta.Accessor(obj)
		labelled = append(labelled, fmt.Sprint(m.GetLabels()))
	}
	sort.Strings(labelled)
	return fmt.Sprintf("cache %v %v, lister %v %v, get %T %v, indexers %d", keysOf(g.Informer().GetStore().List()), labelled,
		keysOf(runtimeAsObjects(listed)), err, one, getErr, len(g.Informer().GetIndexer().GetIndexers()))
}

func resourceTestPods() []runtime.Object {
	var out []runtime.Object
	for _, key := range [][2]string{{"a", "web"}, {"a", "db"}, {"b", "web"}} {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("v1")
		u.SetKind("Pod")
		u.SetNamespace(key[0])
		u.SetName(key[1])
		out = append(out, u)
	}
	return out
}

func TestTheDynamicFactoryCachesWhatClientGosDynamicFactoryCaches(t *testing.T) {
	newClient := func() *dynamicfake.FakeDynamicClient {
		return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
			map[schema.GroupVersionResource]string{podsResource: "PodList"}, resourceTestPods()...)
	}
	tweak := func(o *metav1.ListOptions) { o.FieldSelector = "" }
	cases := []struct{ name, namespace string }{{"all namespaces", metav1.NamespaceAll}, {"one namespace", "a"}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := readResourceFactory(t, dynamicinformer.NewFilteredDynamicSharedInformerFactory(newClient(), 0, tc.namespace, tweak), false)
			got := readResourceFactory(t, NewFilteredDynamicSharedInformerFactory(newClient(), 0, tc.namespace, tweak), true)
			if got != want {
				t.Errorf("kcache:    %s\nclient-go: %s", got, want)
			}
		})
	}
}

func TestTheMetadataFactoryCachesWhatClientGosMetadataFactoryCaches(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	newClient := func() *metadatafake.FakeMetadataClient {
		var objs []runtime.Object
		for _, u := range resourceTestPods() {
			u := u.(*unstructured.Unstructured)
			objs = append(objs, &metav1.PartialObjectMetadata{
				TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
				ObjectMeta: metav1.ObjectMeta{Namespace: u.GetNamespace(), Name: u.GetName()},
			})
		}
		return metadatafake.NewSimpleMetadataClient(scheme, objs...)
	}
	marked := func(obj interface{}) (interface{}, error) {
		if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
			m.Labels = map[string]string{"transformed": "yes"}
		}
		return obj, nil
	}
	cases := []struct {
		name      string
		clientgo  func() resourceFactory
		kcacheOne func() resourceFactory
	}{
		{"one namespace", func() resourceFactory {
			return metadatainformer.NewFilteredSharedInformerFactory(newClient(), 0, "a", nil)
		}, func() resourceFactory { return NewFilteredMetadataSharedInformerFactory(newClient(), 0, "a", nil) }},
		{"with a transform", func() resourceFactory {
			return metadatainformer.NewSharedInformerFactoryWithOptions(newClient(), 0, metadatainformer.WithTransform(marked))
		}, func() resourceFactory {
			return NewMetadataSharedInformerFactoryWithOptions(newClient(), 0, metadatainformer.WithTransform(marked))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := readResourceFactory(t, tc.clientgo(), false)
			got := readResourceFactory(t, tc.kcacheOne(), true)
			if got != want {
				t.Errorf("kcache:    %s\nclient-go: %s", got, want)
			}
		})
	}
}
