package clientgo

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/cbor"

	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"

	"github.com/kcache-go/cache/fastlw"
)

// cborFoos is a FooList of one Foo and the ADDED watch event of that Foo,
// in CBOR.
func cborFoos(t *testing.T) (list, event []byte) {
	t.Helper()
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	ser := cbor.NewSerializer(s, s)
	foo := unstructured.Unstructured{Object: map[string]interface{}{"kind": "Foo", "apiVersion": "x.io/v1",
		"metadata": map[string]interface{}{"name": "a", "namespace": "ns", "resourceVersion": "4"}, "spec": map[string]interface{}{"n": int64(3), "f": 1.5}}}
	foos := &unstructured.UnstructuredList{Object: map[string]interface{}{"kind": "FooList", "apiVersion": "x.io/v1",
		"metadata": map[string]interface{}{"resourceVersion": "5"}}, Items: []unstructured.Unstructured{foo}}
	var lb, ob, eb bytes.Buffer
	for _, step := range []struct {
		obj runtime.Object
		out *bytes.Buffer
	}{{foos, &lb}, {&foo, &ob}} {
		if err := ser.Encode(step.obj, step.out); err != nil {
			t.Fatal(err)
		}
	}
	if err := ser.Encode(&metav1.WatchEvent{Type: "ADDED", Object: runtime.RawExtension{Raw: ob.Bytes()}}, &eb); err != nil {
		t.Fatal(err)
	}
	return lb.Bytes(), eb.Bytes()
}

// TestTheDynamicFactoryKeepsThePlainPathWhenTheClientAcceptsCBOR turns
// client-go's ClientsAllowCBOR gate on, by which the dynamic client asks
// for CBOR first, and serves CBOR: the factory's ListerWatcher is the plain
// one (fastlw reads no CBOR), so the list and the watch are those of the
// dynamic client and the watch is requested once; with the gate off it is
// fastlw.
func TestTheDynamicFactoryKeepsThePlainPathWhenTheClientAcceptsCBOR(t *testing.T) {
	for _, allowCBOR := range []bool{false, true} {
		clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.ClientsAllowCBOR, allowCBOR)
		c := resourceFactoryCase{gvr: schema.GroupVersionResource{Group: "x.io", Version: "v1", Resource: "foos"}, namespace: "ns"}
		plain, lw := resourceListerWatchers(t, c, http.DefaultClient)
		if _, isFast := lw.(*fastlw.ListerWatcher); isFast == allowCBOR {
			t.Fatalf("ClientsAllowCBOR=%v: fastlw chosen %v", allowCBOR, isFast)
		}
		if allowCBOR && lw != plain {
			t.Fatalf("got %T, want the plain ListerWatcher", lw)
		}
	}
	// The gate stays on from here (the last iteration).
	list, event := cborFoos(t)
	var watches atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") == "true" {
			watches.Add(1)
			w.Header().Set("Content-Type", "application/cbor-seq")
			_, _ = w.Write(event)
			return
		}
		w.Header().Set("Content-Type", "application/cbor")
		_, _ = w.Write(list)
	}))
	defer srv.Close()
	c := resourceFactoryCase{gvr: schema.GroupVersionResource{Group: "x.io", Version: "v1", Resource: "foos"}, namespace: "ns"}
	_, lw := resourceListerWatchersAt(t, c, srv.URL)
	gotList, gotEvents := listAndWatchAll(t, lw)
	if items := gotList.(*unstructured.UnstructuredList).Items; len(items) != 1 || items[0].GetName() != "a" {
		t.Errorf("list items %v, want Foo a", items)
	}
	if len(gotEvents) != 1 || !reflect.DeepEqual(gotEvents[0].Object.(*unstructured.Unstructured).GetName(), "a") {
		t.Errorf("events %v, want ADDED a", gotEvents)
	}
	if n := watches.Load(); n != 1 {
		t.Errorf("%d watch requests, want 1", n)
	}
}
