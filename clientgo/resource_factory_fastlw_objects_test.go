package clientgo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	clientgocache "k8s.io/client-go/tools/cache"

	"github.com/kcache-go/cache/fastlw"
)

// resourceServer answers every list with list (a JSON or protobuf body of
// contentType) and every watch with frames (JSON watch events).
type resourceServer struct {
	contentType string
	list        []byte
	frames      [][]byte
}

func (s *resourceServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("watch") == "true" {
		w.Header().Set("Content-Type", "application/json")
		for _, f := range s.frames {
			_, _ = w.Write(f)
		}
		return
	}
	w.Header().Set("Content-Type", s.contentType)
	_, _ = w.Write(s.list)
}

// metadataPods are the pods the servers serve, as metadata.
func metadataPods(n int) []metav1.PartialObjectMetadata {
	items := make([]metav1.PartialObjectMetadata, n)
	for i := range items {
		items[i].ObjectMeta = metav1.ObjectMeta{Name: fmt.Sprintf("p%d", i), Namespace: "ns", ResourceVersion: fmt.Sprint(10 + i),
			Labels: map[string]string{"app": "web"}, UID: types.UID(fmt.Sprint("u", i))}
	}
	return items
}

// jsonPodList is a JSON PodList of metadata-only pods, as a server sends a
// list (items without kind), or a PartialObjectMetadataList when asMetadata.
func jsonPodList(t *testing.T, asMetadata bool) []byte {
	list := &metav1.PartialObjectMetadataList{ListMeta: metav1.ListMeta{ResourceVersion: "20"}, Items: metadataPods(5)}
	list.Kind, list.APIVersion = "PodList", "v1"
	if asMetadata {
		list.Kind, list.APIVersion = "PartialObjectMetadataList", "meta.k8s.io/v1"
	}
	out, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// protobufMetadataList is a PartialObjectMetadataList in protobuf.
func protobufMetadataList(t *testing.T) []byte {
	s := runtime.NewScheme()
	if err := metav1.AddMetaToScheme(s); err != nil {
		t.Fatal(err)
	}
	metav1.AddToGroupVersion(s, schema.GroupVersion{Group: "meta.k8s.io", Version: "v1"})
	list := &metav1.PartialObjectMetadataList{ListMeta: metav1.ListMeta{ResourceVersion: "20"}, Items: metadataPods(5)}
	list.Kind, list.APIVersion = "PartialObjectMetadataList", "meta.k8s.io/v1"
	var buf bytes.Buffer
	if err := protobuf.NewSerializer(s, s).Encode(list, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// jsonWatchFrames are ADDED and MODIFIED events of pods (metadata only),
// with kind and apiVersion as asMetadata says.
func jsonWatchFrames(asMetadata bool) [][]byte {
	kind, version := "Pod", "v1"
	if asMetadata {
		kind, version = "PartialObjectMetadata", "meta.k8s.io/v1"
	}
	var frames [][]byte
	for i, typ := range []string{"ADDED", "MODIFIED", "DELETED"} {
		frames = append(frames, fmt.Appendf(nil, `{"type":%q,"object":{"kind":%q,"apiVersion":%q,"metadata":{"name":"w%d","namespace":"ns","resourceVersion":"%d"}}}`+"\n", typ, kind, version, i, 30+i))
	}
	return frames
}

// TestTheDynamicAndMetadataFactoriesFastlwDecodesWhatTheirClientsDecode
// serves a list and a watch to the plain ListerWatcher and the fastlw one
// a factory chooses, and compares what they return: the same list object
// (reflect.DeepEqual) and the same watch events in the same order, for the
// dynamic client (JSON, unstructured) and the metadata client (its
// PartialObjectMetadataList in protobuf and JSON, with the media type
// parameters it asked for).
func TestTheDynamicAndMetadataFactoriesFastlwDecodesWhatTheirClientsDecode(t *testing.T) {
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	metaJSON := "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
	metaProto := "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
	for _, tc := range []struct {
		name     string
		metadata bool
		server   func(t *testing.T) *resourceServer
	}{
		{"dynamic, JSON", false, func(t *testing.T) *resourceServer {
			return &resourceServer{"application/json", jsonPodList(t, false), jsonWatchFrames(false)}
		}},
		{"metadata, protobuf PartialObjectMetadataList", true, func(t *testing.T) *resourceServer {
			return &resourceServer{metaProto, protobufMetadataList(t), jsonWatchFrames(true)}
		}},
		{"metadata, JSON PartialObjectMetadataList", true, func(t *testing.T) *resourceServer {
			return &resourceServer{metaJSON, jsonPodList(t, true), jsonWatchFrames(true)}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.server(t))
			defer srv.Close()
			c := resourceFactoryCase{metadata: tc.metadata, gvr: pods, namespace: "ns"}
			plain, lw := resourceListerWatchersAt(t, c, srv.URL)
			if _, ok := lw.(*fastlw.ListerWatcher); !ok {
				t.Fatalf("got %T, want fastlw", lw)
			}
			wantList, wantEvents := listAndWatchAll(t, plain)
			gotList, gotEvents := listAndWatchAll(t, lw)
			if !reflect.DeepEqual(wantList, gotList) {
				t.Errorf("list:\n plain  %#v\n fastlw %#v", wantList, gotList)
			}
			if !reflect.DeepEqual(wantEvents, gotEvents) {
				t.Errorf("events:\n plain  %#v\n fastlw %#v", wantEvents, gotEvents)
				for _, e := range gotEvents {
					t.Logf("%#v", e.Object)
				}
			}
		})
	}
}

// listAndWatchAll lists once and reads a watch to its end.
func listAndWatchAll(t *testing.T, lw clientgocache.ListerWatcher) (runtime.Object, []watch.Event) {
	t.Helper()
	withCtx := lw.(clientgocache.ListerWatcherWithContext)
	list, err := withCtx.ListWithContext(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := withCtx.WatchWithContext(context.Background(), metav1.ListOptions{ResourceVersion: "20"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var events []watch.Event
	for e := range w.ResultChan() {
		events = append(events, e)
	}
	return list, events
}
