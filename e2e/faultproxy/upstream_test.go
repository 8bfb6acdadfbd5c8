package faultproxy

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// Upstream shape: a LIST of listItems configmaps; a WatchList stream of
// initialEvents ADDED events, the initial-events-end bookmark and laterEvents
// MODIFIED events; a plain watch of watchEvents MODIFIED events.
const (
	listItems     = 40
	initialEvents = 10
	laterEvents   = 10
	watchEvents   = 30
)

// fakeAPIServer serves configmaps in JSON or protobuf (as asked by Accept)
// the way kube-apiserver frames them.
func fakeAPIServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proto := strings.Contains(r.Header.Get("Accept"), runtime.ContentTypeProtobuf)
		q := r.URL.Query()
		if q.Get("watch") != "true" {
			serveFakeList(t, w, proto)
			return
		}
		serveFakeWatch(t, w, proto, q.Get("sendInitialEvents") == "true")
	}))
	t.Cleanup(srv.Close)
	return srv
}

func configMap(i int) *v1.ConfigMap {
	return &v1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%03d", i), Namespace: "ns", ResourceVersion: fmt.Sprint(100 + i)},
		Data:       map[string]string{"filler": strings.Repeat("x", 200)},
	}
}

func serveFakeList(t *testing.T, w http.ResponseWriter, proto bool) {
	list := &v1.ConfigMapList{TypeMeta: metav1.TypeMeta{Kind: "ConfigMapList", APIVersion: "v1"}, ListMeta: metav1.ListMeta{ResourceVersion: "99"}}
	for i := 0; i < listItems; i++ {
		list.Items = append(list.Items, *configMap(i))
	}
	info := mediaType(t, proto)
	w.Header().Set("Content-Type", info.MediaType)
	if err := info.Serializer.Encode(list, w); err != nil {
		t.Error(err)
	}
}

func serveFakeWatch(t *testing.T, w http.ResponseWriter, proto, watchList bool) {
	info := mediaType(t, proto)
	ct := info.MediaType
	if proto {
		ct += ";stream=watch"
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(http.StatusOK)
	fw := info.StreamSerializer.Framer.NewFrameWriter(w)
	send := func(typ string, obj runtime.Object) {
		raw, err := runtime.Encode(info.Serializer, obj)
		if err != nil {
			t.Error(err)
			return
		}
		ev := &metav1.WatchEvent{Type: typ, Object: runtime.RawExtension{Raw: raw}}
		if err := info.StreamSerializer.Serializer.Encode(ev, fw); err != nil {
			return // the proxy hung up
		}
		w.(http.Flusher).Flush()
	}
	if !watchList {
		for i := 0; i < watchEvents; i++ {
			send("MODIFIED", configMap(i))
		}
		return
	}
	for i := 0; i < initialEvents; i++ {
		send("ADDED", configMap(i))
	}
	bm := configMap(0)
	bm.Name, bm.Data = "", nil
	bm.Annotations = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
	send("BOOKMARK", bm)
	for i := 0; i < laterEvents; i++ {
		send("MODIFIED", configMap(i))
	}
}

// mediaType returns client-go's serializers for JSON or protobuf.
func mediaType(t *testing.T, proto bool) runtime.SerializerInfo {
	want := runtime.ContentTypeJSON
	if proto {
		want = runtime.ContentTypeProtobuf
	}
	for _, info := range scheme.Codecs.SupportedMediaTypes() {
		if info.MediaType == want {
			return info
		}
	}
	t.Fatalf("no serializer for %s", want)
	return runtime.SerializerInfo{}
}

// startProxy starts a proxy in front of upstream with cfg (Upstream set
// here) and closes it when the test ends.
func startProxy(t *testing.T, upstream *httptest.Server, cfg Config) (*Proxy, string) {
	t.Helper()
	u, err := url.Parse(upstream.URL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Upstream = u
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	addr := p.Start(false)
	t.Cleanup(p.Close)
	return p, addr
}

// restClient is a client-go REST client for core/v1 through addr.
func restClient(t *testing.T, addr string, proto bool) *rest.RESTClient {
	t.Helper()
	cfg := &rest.Config{Host: addr, APIPath: "/api", ContentConfig: rest.ContentConfig{
		GroupVersion: &v1.SchemeGroupVersion, NegotiatedSerializer: scheme.Codecs.WithoutConversion(),
	}}
	if proto {
		cfg.ContentType = runtime.ContentTypeProtobuf
		cfg.AcceptContentTypes = runtime.ContentTypeProtobuf
	}
	rc, err := rest.RESTClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rc
}

// jsonStatus decodes a Status body.
func jsonStatus(t *testing.T, body []byte) metav1.Status {
	t.Helper()
	var s metav1.Status
	if err := json.Unmarshal(body, &s); err != nil {
		t.Fatalf("status body %q: %v", body, err)
	}
	return s
}
