package fastlw_test

import (
	"net/http"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/kcache-go/cache/fastlw"
)

// TestAWatchAnswerFastlwCouldStreamButTheClientCannotFailsAsOnClientGo
// answers a watch with a protobuf stream to a REST client whose own
// serializer knows only JSON, while fastlw's serializer (the clientset's)
// streams protobuf: client-go's Watch refuses the answer, and so does
// fastlw, with the same error after the same one request, decoding
// nothing.
func TestAWatchAnswerFastlwCouldStreamButTheClientCannotFailsAsOnClientGo(t *testing.T) {
	srv, requests := answerServer(t, answer{contentType: "application/vnd.kubernetes.protobuf;stream=watch",
		body: watchStream(runtime.ContentTypeProtobuf, threeEvents()...)})
	jsonOnly := runtime.NewSimpleNegotiatedSerializer(serializerInfo(runtime.ContentTypeJSON))
	client, err := rest.RESTClientForConfigAndClient(&rest.Config{Host: srv.URL, APIPath: "/api", QPS: -1,
		ContentConfig: rest.ContentConfig{GroupVersion: &corev1.SchemeGroupVersion, NegotiatedSerializer: jsonOnly}}, &http.Client{})
	if err != nil {
		t.Fatal(err)
	}
	if info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf); !ok || info.StreamSerializer == nil {
		t.Fatal("the clientset's serializer does not stream protobuf")
	}
	options := metav1.ListOptions{ResourceVersion: "100"}
	plain := watchAll(t, clientGoPlain(client), options)
	plainRequests := requests.Swap(0)
	serializer := newObservedSerializer(nil)
	fast := watchAll(t, fastlw.NewFromClient(client, "pods", "ns", fields.Everything(), serializer), options)
	requireSameWatch(t, plain, fast)
	if plain.err == nil || plainRequests != 1 || requests.Load() != 1 || serializer.decodes.Load() != 0 {
		t.Errorf("client-go: %v after %d requests; fastlw %d requests, %d objects decoded; want an error after 1 each, none decoded",
			plain.err, plainRequests, requests.Load(), serializer.decodes.Load())
	}
}
