package clientgo

import (
	"net/http"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/metadata"
	metadatafake "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/rest"
	clientgocache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/watchlist"

	kcache "github.com/kcache-go/cache"

	"github.com/kcache-go/cache/fastlw"
	"github.com/kcache-go/cache/internal/privatefield"
)

// TestTheDynamicAndMetadataFactoriesServeAPlainClientByThePlainPath builds
// an informer of each factory constructor and reads the ListerWatcher it
// runs: fastlw on the real clients, the plain path on the same clients
// behind PlainDynamicClient / PlainMetadataClient, and those wrappers keep
// a fake's refusal of WatchList semantics.
func TestTheDynamicAndMetadataFactoriesServeAPlainClientByThePlainPath(t *testing.T) {
	dc, mc := unreachableClients(t)
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	for _, tc := range []struct {
		name     string
		factory  func() byResource
		wantFast bool
	}{
		{"dynamic", func() byResource { return NewDynamicSharedInformerFactory(dc, time.Minute) }, true},
		{"dynamic, filtered", func() byResource {
			return NewFilteredDynamicSharedInformerFactory(dc, time.Minute, "ns", nil)
		}, true},
		{"dynamic, PlainDynamicClient", func() byResource {
			return NewDynamicSharedInformerFactory(PlainDynamicClient(dc), time.Minute)
		}, false},
		{"metadata", func() byResource { return NewMetadataSharedInformerFactory(mc, time.Minute) }, true},
		{"metadata, with options", func() byResource { return NewMetadataSharedInformerFactoryWithOptions(mc, time.Minute) }, true},
		{"metadata, PlainMetadataClient", func() byResource {
			return NewMetadataSharedInformerFactoryWithOptions(PlainMetadataClient(mc), time.Minute)
		}, false},
		{"metadata, filtered, PlainMetadataClient", func() byResource {
			return NewFilteredMetadataSharedInformerFactory(PlainMetadataClient(mc), time.Minute, "ns", nil)
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inf := tc.factory().ForResource(pods).Informer()
			_, isFast := informerListerWatcher(t, inf).(*fastlw.ListerWatcher)
			if isFast != tc.wantFast {
				t.Errorf("fastlw: %v, want %v", isFast, tc.wantFast)
			}
		})
	}
}

// TestThePlainClientWrappersKeepTheClientsAnswerOnWatchListSemantics: a
// fake refuses WatchList semantics, a real client does not; the wrappers
// answer as the client they wrap.
func TestThePlainClientWrappersKeepTheClientsAnswerOnWatchListSemantics(t *testing.T) {
	dc, mc := unreachableClients(t)
	for _, tc := range []struct {
		name   string
		client any
		want   bool
	}{
		{"real dynamic", PlainDynamicClient(dc), false},
		{"fake dynamic", PlainDynamicClient(dynamicfake.NewSimpleDynamicClient(runtime.NewScheme())), true},
		{"real metadata", PlainMetadataClient(mc), false},
		{"fake metadata", PlainMetadataClient(metadatafake.NewSimpleMetadataClient(metadatafake.NewTestScheme())), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := watchlist.DoesClientNotSupportWatchListSemantics(tc.client); got != tc.want {
				t.Errorf("DoesClientNotSupportWatchListSemantics = %v, want %v", got, tc.want)
			}
		})
	}
}

// byResource is the method the dynamic and metadata factories share.
type byResource interface {
	ForResource(schema.GroupVersionResource) informers.GenericInformer
}

// informerListerWatcher returns the ListerWatcher of the kcache informer
// behind inf.
func informerListerWatcher(t *testing.T, inf clientgocache.SharedIndexInformer) kcache.ListerWatcher {
	t.Helper()
	kinf, ok := KcacheInformer(inf)
	lw, readOK := privatefield.Read[kcache.ListerWatcher](kinf, "listerWatcher")
	if !ok || !readOK {
		t.Fatal("cannot read the informer's ListerWatcher")
	}
	return lw
}

// unreachableClients are a real dynamic and a real metadata client of a
// server they never reach (the tests only build informers).
func unreachableClients(t *testing.T) (dynamic.Interface, metadata.Interface) {
	t.Helper()
	config := &rest.Config{Host: "http://kcache.invalid"}
	dc, err := dynamic.NewForConfigAndClient(config, http.DefaultClient)
	if err != nil {
		t.Fatal(err)
	}
	mc, err := metadata.NewForConfigAndClient(config, http.DefaultClient)
	if err != nil {
		t.Fatal(err)
	}
	return dc, mc
}
