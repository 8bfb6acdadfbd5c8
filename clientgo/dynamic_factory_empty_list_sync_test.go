package clientgo

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/rest"
)

// emptyListServer answers every list with an empty PodList and holds every
// watch open until its request ends, silent but for the bookmark that ends
// the initial events of a WatchList (sendInitialEvents).
type emptyListServer struct{}

func (emptyListServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Query().Get("watch") == "true" {
		w.WriteHeader(http.StatusOK)
		if r.URL.Query().Get("sendInitialEvents") == "true" {
			_, _ = w.Write([]byte(`{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"5","annotations":{"k8s.io/initial-events-end":"true"}}}}` + "\n"))
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		return
	}
	_, _ = w.Write([]byte(podListJSON(`[]`)))
}

// TestTheDynamicFactorysInformerSyncsAnEmptyResourceAsClientGosDoes runs an
// informer of a resource with no objects from client-go's dynamicinformer
// factory and from this package's (on fastlw) against the same server,
// with the WatchListClient gate off (a list) and on (a WatchList): both
// sync, with an empty cache. (The fastlw list once answered an empty list
// with an Unstructured, not an UnstructuredList, which the Reflector cannot
// read: the informer never synced.)
func TestTheDynamicFactorysInformerSyncsAnEmptyResourceAsClientGosDoes(t *testing.T) {
	for _, watchList := range []bool{false, true} {
		t.Run(fmt.Sprintf("WatchListClient=%v", watchList), func(t *testing.T) {
			clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, watchList)
			checkEmptyResourceSyncs(t)
		})
	}
}

// checkEmptyResourceSyncs is one run of
// TestTheDynamicFactorysInformerSyncsAnEmptyResourceAsClientGosDoes.
func checkEmptyResourceSyncs(t *testing.T) {
	srv := httptest.NewServer(emptyListServer{})
	defer srv.Close()
	defer srv.CloseClientConnections()
	client, err := dynamic.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	for _, tc := range []struct {
		name    string
		factory dynamicinformer.DynamicSharedInformerFactory
	}{
		{"client-go", dynamicinformer.NewDynamicSharedInformerFactory(client, 0)},
		{"kcache on fastlw", NewDynamicSharedInformerFactory(client, 0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inf := tc.factory.ForResource(pods).Informer()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			tc.factory.Start(ctx.Done())
			defer tc.factory.Shutdown()
			defer cancel()
			for gvr, synced := range tc.factory.WaitForCacheSync(ctx.Done()) {
				if !synced {
					t.Fatalf("%v did not sync", gvr)
				}
			}
			if keys := inf.GetStore().ListKeys(); len(keys) != 0 {
				t.Errorf("cache holds %v, want nothing", keys)
			}
		})
	}
}
