package clientgo

import (
	"context"
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/metadata"
	metadatafake "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/rest"

	kcache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/fastlw"
)

// resourceFactoryCase is one informer a dynamic or metadata factory builds.
type resourceFactoryCase struct {
	name      string
	metadata  bool // the metadata factory, else the dynamic one
	fake      bool // a fake client
	plain     bool // the client behind PlainDynamicClient / PlainMetadataClient
	gvr       schema.GroupVersionResource
	namespace string
	wantFast  bool
}

// resourceFactoryCases are the cases of
// TestTheDynamicAndMetadataFactoriesListThroughFastlwWithTheirClientsRequests.
func resourceFactoryCases() []resourceFactoryCase {
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	deployments := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	nodes := schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
	return []resourceFactoryCase{
		{name: "dynamic pods in a namespace", gvr: pods, namespace: "ns", wantFast: true},
		{name: "dynamic deployments in all namespaces", gvr: deployments, wantFast: true},
		{name: "dynamic nodes, cluster-scoped", gvr: nodes, wantFast: true},
		{name: "dynamic, fastlw off: plain", gvr: pods, plain: true},
		{name: "dynamic, a fake client: plain", gvr: pods, fake: true},
		{name: "metadata pods in a namespace", metadata: true, gvr: pods, namespace: "ns", wantFast: true},
		{name: "metadata deployments in all namespaces", metadata: true, gvr: deployments, wantFast: true},
		{name: "metadata, fastlw off: plain", metadata: true, gvr: pods, plain: true},
		{name: "metadata, a fake client: plain", metadata: true, gvr: pods, fake: true},
	}
}

// TestTheDynamicAndMetadataFactoriesListThroughFastlwWithTheirClientsRequests
// builds the ListerWatcher a dynamic or metadata factory runs: fastlw for a
// *dynamic.DynamicClient or a *metadata.Client, sending the very requests
// (path, query, Accept) of the client's own List and Watch with the
// factory's namespace and tweak; the plain ListWatch for a fake client and
// with fastlw off.
func TestTheDynamicAndMetadataFactoriesListThroughFastlwWithTheirClientsRequests(t *testing.T) {
	for _, tc := range resourceFactoryCases() {
		t.Run(tc.name, func(t *testing.T) {
			rt := &failingTransport{}
			plain, lw := resourceListerWatchers(t, tc, &http.Client{Transport: rt})
			_, isFast := lw.(*fastlw.ListerWatcher)
			if isFast != tc.wantFast {
				t.Fatalf("fastlw chosen: %v (%T), want %v", isFast, lw, tc.wantFast)
			}
			if !isFast {
				if lw != plain {
					t.Fatalf("got %T, want the plain ListerWatcher", lw)
				}
				return
			}
			want, got := requestsOf(plain, rt), requestsOf(lw, rt)
			if len(want) != 2 || len(got) != len(want) || want[0] != got[0] || want[1] != got[1] {
				t.Errorf("requests:\n plain  %v\n fastlw %v", want, got)
			}
		})
	}
}

// resourceListerWatchers returns the plain ListerWatcher of tc's informer
// and the one its factory chooses, with clients on httpClient.
func resourceListerWatchers(t *testing.T, tc resourceFactoryCase, httpClient *http.Client) (plain, chosen kcache.ListerWatcher) {
	t.Helper()
	return resourceListerWatchersOn(t, tc, &rest.Config{Host: "http://kcache.invalid"}, httpClient)
}

// resourceListerWatchersAt is resourceListerWatchers with clients of the
// server at host.
func resourceListerWatchersAt(t *testing.T, tc resourceFactoryCase, host string) (plain, chosen kcache.ListerWatcher) {
	t.Helper()
	return resourceListerWatchersOn(t, tc, &rest.Config{Host: host}, http.DefaultClient)
}

// resourceListerWatchersOn is resourceListerWatchers with clients of config
// on httpClient.
func resourceListerWatchersOn(t *testing.T, tc resourceFactoryCase, config *rest.Config, httpClient *http.Client) (plain, chosen kcache.ListerWatcher) {
	t.Helper()
	tweak := func(o *metav1.ListOptions) { o.LabelSelector = "app=web" }
	scope := resourceScope{gvr: tc.gvr, namespace: tc.namespace, tweak: tweak}
	if tc.metadata {
		client := caseClient[metadata.Interface](t, tc, metadatafake.NewSimpleMetadataClient(metadatafake.NewTestScheme()),
			func() (metadata.Interface, error) { return metadata.NewForConfigAndClient(config, httpClient) }, PlainMetadataClient)
		rc := client.Resource(tc.gvr).Namespace(tc.namespace)
		plain = kcache.ToListWatcherWithWatchListSemantics(resourceListWatch(tweak, adaptList(rc.List), rc.Watch), client)
		return plain, metadataListerWatcher(client, scope, plain)
	}
	client := caseClient[dynamic.Interface](t, tc, dynamicfake.NewSimpleDynamicClient(runtime.NewScheme()),
		func() (dynamic.Interface, error) { return dynamic.NewForConfigAndClient(config, httpClient) }, PlainDynamicClient)
	rc := client.Resource(tc.gvr).Namespace(tc.namespace)
	plain = kcache.ToListWatcherWithWatchListSemantics(resourceListWatch(tweak, adaptList(rc.List), rc.Watch), client)
	return plain, dynamicListerWatcher(client, scope, plain)
}

// caseClient returns tc's client: fakeClient when tc.fake, else the client
// real builds; behind plainClient when tc.plain.
func caseClient[C any](t *testing.T, tc resourceFactoryCase, fakeClient C, real func() (C, error), plainClient func(C) C) C {
	t.Helper()
	c := fakeClient
	if !tc.fake {
		var err error
		if c, err = real(); err != nil {
			t.Fatal(err)
		}
	}
	if tc.plain {
		c = plainClient(c)
	}
	return c
}

// adaptList turns a typed List into the ListWatch's list function.
func adaptList[L runtime.Object](list func(context.Context, metav1.ListOptions) (L, error)) func(context.Context, metav1.ListOptions) (runtime.Object, error) {
	return func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) { return list(ctx, opts) }
}
