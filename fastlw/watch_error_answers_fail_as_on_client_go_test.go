package fastlw_test

import (
	"net/http"
	"testing"
	"testing/synctest"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestAWatchAnsweredWithAnErrorFailsAsOnClientGo answers a watch with each
// error status, media type and body: fastlw (Request.Stream, which turns
// the answer into an error its own way) fails with exactly the error
// client-go's Request.Watch gives (type, text, every field), after as many
// requests.
func TestAWatchAnsweredWithAnErrorFailsAsOnClientGo(t *testing.T) {
	forbidden := string(encode(runtime.ContentTypeJSON, &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusForbidden,
		Reason: metav1.StatusReasonForbidden, Message: `pods is forbidden: User "u" cannot watch resource "pods"`,
		Details: &metav1.StatusDetails{Kind: "pods"}}))
	notFoundProtobuf := string(encode(runtime.ContentTypeProtobuf, &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusNotFound,
		Reason: metav1.StatusReasonNotFound, Message: "the server could not find the requested resource"}))
	tests := []struct {
		name   string
		answer scriptedAnswer
	}{
		{"a 401 with no body", scriptedAnswer{code: http.StatusUnauthorized}},
		{"a 403 Status", scriptedAnswer{code: http.StatusForbidden, contentType: "application/json", body: forbidden}},
		{"a 403 HTML page", scriptedAnswer{code: http.StatusForbidden, contentType: "text/html", body: "<html>denied</html>"}},
		{"a 404 protobuf Status to a JSON client", scriptedAnswer{code: http.StatusNotFound, contentType: runtime.ContentTypeProtobuf, body: notFoundProtobuf}},
		{"a 404 with no Content-Type", scriptedAnswer{code: http.StatusNotFound, body: "404 page not found"}},
		{"a 400 JSON that is no Status", scriptedAnswer{code: http.StatusBadRequest, contentType: "application/json", body: `{"message":"bad"}`}},
		{"a 422 invalid JSON", scriptedAnswer{code: http.StatusUnprocessableEntity, contentType: "application/json", body: `{"kind":`}},
		{"a 500 in plain text", scriptedAnswer{code: http.StatusInternalServerError, contentType: "text/plain", body: "internal error"}},
		{"a 504 Status", scriptedAnswer{code: http.StatusGatewayTimeout, contentType: "application/json", body: goneStatus}},
		{"a 302 with no Location", scriptedAnswer{code: http.StatusFound, contentType: "text/html", body: "<a>moved</a>"}},
		{"a 100 Continue", scriptedAnswer{code: http.StatusContinue}},
		{"a 304 Not Modified", scriptedAnswer{code: http.StatusNotModified}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				script := []scriptedAnswer{tt.answer}
				plain := runScript(t, script, plainSide, nil)
				fast := runScript(t, script, fastSide, nil)
				if plain.out.err == nil {
					t.Fatalf("client-go gave no error but %v", summary(plain.out.events))
				}
				requireSameWatch(t, plain.out, fast.out)
				if plain.requests != fast.requests {
					t.Fatalf("client-go sent %d requests, fastlw %d", plain.requests, fast.requests)
				}
			})
		})
	}
}
