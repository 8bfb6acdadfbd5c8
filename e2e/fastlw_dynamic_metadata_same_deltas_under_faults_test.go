package e2e

import (
	"context"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"

	"github.com/kcache-go/cache/clientgo"
)

// The differential of issue 27 item 2 for the dynamic and metadata
// factories: each on fastlw (its default for a real client) against itself
// on the plain path, under every fault kind on both list paths, as
// TestTheTypedFactoryOnFastlwDeliversThePlainPathsDeltasInTheSameOrderUnderEveryFault
// runs the typed factory.

func TestTheDynamicAndMetadataFactoriesOnFastlwDeliverThePlainPathsDeltasInTheSameOrderUnderEveryFault(t *testing.T) {
	for _, factory := range []struct {
		name  string
		start factorySide
	}{{"dynamic", dynamicFactorySide}, {"metadata", metadataFactorySide}} {
		for _, tc := range fastlwCases() {
			t.Run(fmt.Sprintf("%s/%s/%v on %v", factory.name, tc.mode.name, tc.fault, tc.class), func(t *testing.T) {
				t.Cleanup(setWatchListClientGate(tc.mode.watchList))
				if factory.name == "metadata" {
					tc.kind = metadataOnly(tc.kind)
				} else {
					tc.kind = readingUnstructured(tc.kind)
				}
				runFastlwCase(t, tc, factory.start)
			})
		}
	}
}

// dynamicFactorySide is kcache's dynamic factory on a dynamic client of
// px's configuration, scoped to px's namespace; the plain side's client is
// behind clientgo.PlainDynamicClient.
func dynamicFactorySide(ctx context.Context, px proxied, name string, plain bool) *watcher {
	client := sideClient[dynamic.Interface](dynamic.NewForConfig(px.cfg))
	if plain {
		client = clientgo.PlainDynamicClient(client)
	}
	return resourceFactoryWatcher(ctx, px, name, clientgo.NewFilteredDynamicSharedInformerFactory(client, 0, px.o.ns, nil))
}

// metadataFactorySide is kcache's metadata factory on a metadata client of
// px's configuration, scoped to px's namespace; the plain side's client is
// behind clientgo.PlainMetadataClient.
func metadataFactorySide(ctx context.Context, px proxied, name string, plain bool) *watcher {
	client := sideClient(metadata.NewForConfig(px.cfg))
	if plain {
		client = clientgo.PlainMetadataClient(client)
	}
	return resourceFactoryWatcher(ctx, px, name, clientgo.NewFilteredMetadataSharedInformerFactory(client, 0, px.o.ns, nil))
}

// sideClient is client, or a panic with err (the sides run on goroutines
// of the harness, not the test's).
func sideClient[C any](client C, err error) C {
	if err != nil {
		panic(err)
	}
	return client
}

// resourceFactoryWatcher starts the informer of px's resource of factory
// (see interop_resource_factories_test.go), shut down when ctx ends.
func resourceFactoryWatcher(ctx context.Context, px proxied, name string, factory resourceFactory) *watcher {
	inf := factory.ForResource(schema.GroupVersionResource{Version: "v1", Resource: px.o.kind.resource}).Informer()
	return startedWatcher(px, name, inf, func() { factory.Start(ctx.Done()); <-ctx.Done(); factory.Shutdown() })
}

// readingUnstructured is k with objects read from *unstructured.Unstructured
// too (converted to k's type first).
func readingUnstructured(k kind) kind {
	typed := k.data
	k.data = func(obj runtime.Object) string {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return typed(obj)
		}
		out := k.newObject()
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out); err != nil {
			panic(err)
		}
		return typed(out)
	}
	return k
}

// metadataOnly is k with no data: what a metadata informer holds
// (*metav1.PartialObjectMetadata) has none, so objects compare by
// resourceVersion alone.
func metadataOnly(k kind) kind {
	k.data = func(runtime.Object) string { return "" }
	return k
}
