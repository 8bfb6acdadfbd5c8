package fastlw_test

import (
	"net/http"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kcache-go/cache/fastlw"
)

// TestAListAnswerIsDecodedByItsContentTypeAsOnClientGo answers one LIST,
// on one server, to client-go's ListWatch (Request.Do(ctx).Get()) and to
// fastlw's, with each status, Content-Type and body pair: both return the
// same list or the same error, and fastlw decodes the page itself exactly
// when client-go's Result names a media type it cuts (a Content-Type
// absent from the answer is the client's own, as in Result); any other
// answer is the plain path's Result.Get.
func TestAListAnswerIsDecodedByItsContentTypeAsOnClientGo(t *testing.T) {
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "100"}, Items: newPods(3)}
	jsonList := encode(runtime.ContentTypeJSON, list)
	yamlList := []byte("apiVersion: v1\nkind: PodList\nmetadata:\n  resourceVersion: \"100\"\nitems:\n- metadata:\n    name: a\n    namespace: ns\n")
	html := []byte("<html>sign in</html>\n")
	tests := []struct {
		name     string
		answer   answer
		fastlwed bool // fastlw decodes the page itself
	}{
		{"JSON", answer{contentType: "application/json", body: jsonList}, true},
		{"JSON with a charset", answer{contentType: "application/json; charset=utf-8", body: jsonList}, true},
		{"no Content-Type at all: the client's JSON", answer{noType: true, body: jsonList}, true},
		{"201 Created", answer{code: http.StatusCreated, contentType: "application/json", body: jsonList}, true},
		{"protobuf to a JSON client", answer{contentType: runtime.ContentTypeProtobuf, body: encode(runtime.ContentTypeProtobuf, list)}, true},
		{"JSON named protobuf", answer{contentType: runtime.ContentTypeProtobuf, body: jsonList}, false},
		{"an HTML page named JSON", answer{contentType: "application/json", body: html}, false},
		{"an HTML page", answer{contentType: "text/html", body: html}, false},
		{"sniffed text/plain", answer{body: jsonList}, false},
		{"a Content-Type that does not parse", answer{contentType: "json", body: jsonList}, false},
		{"YAML", answer{contentType: "application/yaml", body: yamlList}, false},
		{"JSON in UTF-16", answer{contentType: "application/json; charset=utf-16", body: jsonList}, false},
		{"204 No Content", answer{code: http.StatusNoContent, contentType: "application/json"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := answerServer(t, tt.answer)
			client := coreClientOf(t, srv)
			options := metav1.ListOptions{ResourceVersion: "0"}
			plain := listOnce(t.Context(), clientGoPlain(client), options)
			serializer := newObservedSerializer(nil)
			fast := listOnce(t.Context(), fastlw.NewFromClient(client, "pods", "ns", fields.Everything(), serializer), options)
			requireSameOutcomes(t, plain, fast)
			if decoded := serializer.decodes.Load() > 0; decoded != tt.fastlwed {
				t.Errorf("fastlw decoded the page itself: %v, want %v (client-go: %T %v)", decoded, tt.fastlwed, plain[0].obj, plain[0].err)
			}
		})
	}
}
