package clientgo

import (
	"net/http"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	clientgocache "k8s.io/client-go/tools/cache"

	kcache "github.com/kcache-go/cache"

	"github.com/kcache-go/cache/fastlw"
)

// TestTheDynamicAndMetadataFactoriesTakeTheirPlainListWatchOptions builds
// an informer of each factory and reads the ListerWatcher its informer
// runs: fastlw by default, the plain path with WithPlainListWatch
// (dynamic) or WithPlainMetadataListWatch (metadata), and the option
// applied to one factory leaves the next one on fastlw.
func TestTheDynamicAndMetadataFactoriesTakeTheirPlainListWatchOptions(t *testing.T) {
	config := &rest.Config{Host: "http://kcache.invalid"}
	dc, err := dynamic.NewForConfigAndClient(config, http.DefaultClient)
	if err != nil {
		t.Fatal(err)
	}
	mc, err := metadata.NewForConfigAndClient(config, http.DefaultClient)
	if err != nil {
		t.Fatal(err)
	}
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	for _, tc := range []struct {
		name     string
		factory  func() byResource
		wantFast bool
	}{
		{"dynamic", func() byResource { return NewDynamicSharedInformerFactory(dc, time.Minute) }, true},
		{"dynamic WithPlainListWatch", func() byResource {
			return NewDynamicSharedInformerFactoryWithOptions(dc, time.Minute, WithPlainListWatch())
		}, false},
		{"dynamic with options but not WithPlainListWatch", func() byResource {
			return NewDynamicSharedInformerFactoryWithOptions(dc, time.Minute, informers.WithNamespace("ns"))
		}, true},
		{"metadata WithPlainMetadataListWatch", func() byResource {
			return NewMetadataSharedInformerFactoryWithOptions(mc, time.Minute, WithPlainMetadataListWatch())
		}, false},
		{"metadata with options, after one WithPlainMetadataListWatch", func() byResource { return NewMetadataSharedInformerFactoryWithOptions(mc, time.Minute) }, true},
		{"metadata", func() byResource { return NewMetadataSharedInformerFactory(mc, time.Minute) }, true},
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

// byResource is the method the dynamic and metadata factories share.
type byResource interface {
	ForResource(schema.GroupVersionResource) informers.GenericInformer
}

// informerListerWatcher returns the ListerWatcher of the kcache informer
// behind inf.
func informerListerWatcher(t *testing.T, inf clientgocache.SharedIndexInformer) kcache.ListerWatcher {
	t.Helper()
	kinf, ok := KcacheInformer(inf)
	var lw kcache.ListerWatcher
	if !ok || !readPrivateField(kinf, "listerWatcher", &lw) {
		t.Fatal("cannot read the informer's ListerWatcher")
	}
	return lw
}
