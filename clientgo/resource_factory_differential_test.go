package clientgo

import (
	"context"
	"fmt"
	"testing"

	"go.uber.org/goleak"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/dynamicinformer"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/metadata/metadatainformer"
	clientgocache "k8s.io/client-go/tools/cache"

	"github.com/kcache-go/cache/internal/privatefield"
)

// informerSettings renders what a factory's informer was built with.
func informerSettings(inf clientgocache.SharedIndexInformer) string {
	var target any = inf
	if k, ok := KcacheInformer(inf); ok {
		target = k
	}
	description, _ := privatefield.Read[string](target, "objectDescription")
	indexers := []string{}
	for name := range inf.GetIndexer().GetIndexers() {
		indexers = append(indexers, name)
	}
	return fmt.Sprintf("description %q, indexers %v", description, indexers)
}

func TestResourceFactoriesBuildStartAndStopInformersAsClientGos(t *testing.T) {
	configMaps := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	dynamicClient := func() *dynamicfake.FakeDynamicClient {
		return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
			map[schema.GroupVersionResource]string{podsResource: "PodList", configMaps: "ConfigMapList"}, resourceTestPods()...)
	}
	metadataClient := func() *metadatafake.FakeMetadataClient {
		return metadatafake.NewSimpleMetadataClient(metadatafake.NewTestScheme())
	}
	cases := []struct {
		name         string
		ours, theirs func() resourceFactory
	}{
		{"dynamic",
			func() resourceFactory { return NewDynamicSharedInformerFactory(dynamicClient(), 0) },
			func() resourceFactory { return dynamicinformer.NewDynamicSharedInformerFactory(dynamicClient(), 0) }},
		{"metadata",
			func() resourceFactory { return NewMetadataSharedInformerFactory(metadataClient(), 0) },
			func() resourceFactory { return metadatainformer.NewSharedInformerFactory(metadataClient(), 0) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run := func(f resourceFactory) string {
				defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
				ctx, cancel := context.WithCancel(context.Background())
				before := fmt.Sprint(len(f.WaitForCacheSync(ctx.Done())))
				pods := f.ForResource(podsResource).Informer()
				f.Start(ctx.Done())
				f.Start(ctx.Done())
				first := fmt.Sprint(f.WaitForCacheSync(ctx.Done()))
				cms := f.ForResource(configMaps).Informer() // requested after Start
				unstarted := fmt.Sprint(f.WaitForCacheSync(ctx.Done()))
				f.Start(ctx.Done())
				second := fmt.Sprint(f.WaitForCacheSync(ctx.Done()))
				cancel()
				f.Shutdown()
				return fmt.Sprintf("before %s, first %s, unstarted %s, second %s, pods %s, configmaps %s, stopped %v",
					before, first, unstarted, second, informerSettings(pods), informerSettings(cms), pods.IsStopped())
			}
			if got, want := run(tc.ours()), run(tc.theirs()); got != want {
				t.Errorf("kcache:\n %s\nclient-go:\n %s", got, want)
			}
		})
	}
}
