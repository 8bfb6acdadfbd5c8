package clientgo

import (
	"context"
	"fmt"
	"net/http/httptest"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgocache "k8s.io/client-go/tools/cache"

	"github.com/kcache-go/cache/fastlw"
)

// podListJSON is a JSON PodList holding items (JSON values).
func podListJSON(items string) string {
	return `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":` + items + `}`
}

// TestTheDynamicAndMetadataFactoriesListAnswersAreTheirClientsOwn lists
// through the plain ListerWatcher (the client's own List, which client-go's
// dynamicinformer and metadatainformer run) and through the fastlw one the
// factory chooses, for answers fastlw leaves to the client: the same list
// object (reflect.DeepEqual) or the same error. An empty list is an
// UnstructuredList for the dynamic client, which the Reflector can read; a
// plain JSON PodList (a server that ignored the Accept header) is a
// PartialObjectMetadataList for the metadata client; other types are its
// error. Unusual unstructured content (int64 and float64 numbers, nulls,
// nested lists, items with their own kind or apiVersion) decodes alike.
func TestTheDynamicAndMetadataFactoriesListAnswersAreTheirClientsOwn(t *testing.T) {
	const (
		jsonType     = "application/json"
		tableType    = "application/json;as=Table;v=v1;g=meta.k8s.io"
		v1beta1Type  = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta1"
		failure      = `{"kind":"Status","apiVersion":"v1","status":"Failure","code":500,"message":"boom"}`
		table        = `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"5"},"rows":[]}`
		v1beta1      = `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1beta1","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"a","namespace":"ns"}}]}`
		unusualItems = `[{"metadata":{"name":"a","namespace":"ns"},"spec":{"i":1,"f":1.5,"big":9007199254740993,"e":1e3,"n":null,"l":[[1,2],[{"a":null}],[]]}},` +
			`{"kind":"Bar","metadata":{"name":"b","namespace":"ns"}},{"apiVersion":"y/v2","metadata":{"name":"c","namespace":"ns"}}]`
	)
	for _, tc := range []struct {
		name        string
		metadata    bool
		contentType string
		body        string
	}{
		{"dynamic, an empty list", false, jsonType, podListJSON(`[]`)},
		{"dynamic, a list with null items", false, jsonType, podListJSON(`null`)},
		{"dynamic, unusual content and item kinds", false, jsonType, podListJSON(unusualItems)},
		{"dynamic, a Table", false, tableType, table},
		{"dynamic, a Failure Status with 200", false, jsonType, failure},
		{"dynamic, charset=utf-8", false, jsonType + "; charset=utf-8", podListJSON(`[{"metadata":{"name":"a"}}]`)},
		{"metadata, a plain JSON PodList", true, jsonType, podListJSON(`[{"metadata":{"name":"a","namespace":"ns"},"spec":{}}]`)},
		{"metadata, an empty plain JSON PodList", true, jsonType, podListJSON(`[]`)},
		{"metadata, a v1beta1 PartialObjectMetadataList", true, v1beta1Type, v1beta1},
		{"metadata, a Table", true, tableType, table},
		{"metadata, a Failure Status with 200", true, jsonType, failure},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(&resourceServer{contentType: tc.contentType, list: []byte(tc.body)})
			defer srv.Close()
			c := resourceFactoryCase{metadata: tc.metadata, gvr: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, namespace: "ns"}
			plain, lw := resourceListerWatchersAt(t, c, srv.URL)
			if _, ok := lw.(*fastlw.ListerWatcher); !ok {
				t.Fatalf("got %T, want fastlw", lw)
			}
			want, wantErr := plain.(clientgocache.ListerWatcherWithContext).ListWithContext(context.Background(), metav1.ListOptions{})
			got, gotErr := lw.(clientgocache.ListerWatcherWithContext).ListWithContext(context.Background(), metav1.ListOptions{})
			if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) || (wantErr == nil && !reflect.DeepEqual(want, got)) {
				t.Errorf("list:\n plain  %T %#v, %v\n fastlw %T %#v, %v", want, want, wantErr, got, got, gotErr)
			}
		})
	}
}

// TestTheDynamicFactorysWatchDecodesAStatusAsTheDynamicClientDoes reads a
// watch stream of an ERROR event (the 410 Expired Status a kube-apiserver
// sends) and of an object with unusual content through the plain
// ListerWatcher and the fastlw one: the same events, a *metav1.Status for
// the ERROR event as the dynamic client decodes it.
func TestTheDynamicFactorysWatchDecodesAStatusAsTheDynamicClientDoes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		metadata bool
		frame    string
	}{
		{"dynamic, an ERROR Status", false, `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","code":410,"reason":"Expired","message":"too old"}}`},
		{"dynamic, unusual content", false, `{"type":"ADDED","object":{"kind":"Foo","apiVersion":"x/v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"3"},"spec":{"i":1,"f":1.5,"big":9007199254740993,"n":null,"l":[[1],[null]]}}}`},
		{"dynamic, a bookmark", false, `{"type":"BOOKMARK","object":{"kind":"Foo","apiVersion":"x/v1","metadata":{"resourceVersion":"9","annotations":{"k8s.io/initial-events-end":"true"}}}}`},
		{"metadata, an ERROR Status", true, `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","code":410,"reason":"Expired","message":"too old"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			list := []byte(podListJSON(`[{"metadata":{"name":"a","namespace":"ns"}}]`))
			srv := httptest.NewServer(&resourceServer{contentType: "application/json", list: list, frames: [][]byte{[]byte(tc.frame + "\n")}})
			defer srv.Close()
			c := resourceFactoryCase{metadata: tc.metadata, gvr: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, namespace: "ns"}
			plain, lw := resourceListerWatchersAt(t, c, srv.URL)
			_, want := listAndWatchAll(t, plain)
			_, got := listAndWatchAll(t, lw)
			if !reflect.DeepEqual(want, got) {
				t.Errorf("events:\n plain  %#v\n fastlw %#v", want, got)
			}
		})
	}
}
