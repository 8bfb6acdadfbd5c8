package clientgo

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgocache "k8s.io/client-go/tools/cache"
)

// statusAnswer answers every request with code, contentType and body.
type statusAnswer struct {
	code        int
	contentType string
	body        string
}

func (a statusAnswer) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", a.contentType)
	w.WriteHeader(a.code)
	_, _ = w.Write([]byte(a.body))
}

// TestTheDynamicAndMetadataFactoriesErrorsAreTheirClientsErrors lists and
// watches through the plain ListerWatcher (the client's own List and Watch)
// and the fastlw one for error answers: a 410 with a Status, and answers
// without one (the 404 text a kube-apiserver sends for a group version it
// does not serve, a 500 text): the same error (reflect.DeepEqual), in
// particular one that names no resource, as the clients' requests name
// none.
func TestTheDynamicAndMetadataFactoriesErrorsAreTheirClientsErrors(t *testing.T) {
	expired := `{"kind":"Status","apiVersion":"v1","status":"Failure","code":410,"reason":"Expired","message":"too old"}`
	answers := []struct {
		name string
		statusAnswer
	}{
		{"410 Expired Status", statusAnswer{http.StatusGone, "application/json", expired}},
		{"404 page not found", statusAnswer{http.StatusNotFound, "text/plain; charset=utf-8", "404 page not found\n"}},
		{"500 text", statusAnswer{http.StatusInternalServerError, "text/plain", "oops"}},
		{"503 JSON but no Status", statusAnswer{http.StatusServiceUnavailable, "application/json", `{"kind":"Other"}`}},
	}
	for _, metadata := range []bool{false, true} {
		for _, answer := range answers {
			c := resourceFactoryCase{name: answer.name, metadata: metadata, gvr: schema.GroupVersionResource{Group: "x.io", Version: "v1", Resource: "foos"}, namespace: "ns"}
			t.Run(resourceClientName(metadata)+", "+answer.name, func(t *testing.T) {
				srv := httptest.NewServer(answer.statusAnswer)
				defer srv.Close()
				plain, lw := resourceListerWatchersAt(t, c, srv.URL)
				for _, op := range []func(clientgocache.ListerWatcherWithContext) error{listError, watchError} {
					want, got := op(plain.(clientgocache.ListerWatcherWithContext)), op(lw.(clientgocache.ListerWatcherWithContext))
					if want == nil || !reflect.DeepEqual(want, got) {
						t.Errorf("error:\n plain  %#v\n fastlw %#v", want, got)
					}
				}
			})
		}
	}
}

// resourceClientName names the client of a resourceFactoryCase.
func resourceClientName(metadata bool) string {
	if metadata {
		return "metadata"
	}
	return "dynamic"
}

// listError is the error of one list.
func listError(lw clientgocache.ListerWatcherWithContext) error {
	_, err := lw.ListWithContext(context.Background(), metav1.ListOptions{})
	return err
}

// watchError is the error of opening one watch.
func watchError(lw clientgocache.ListerWatcherWithContext) error {
	w, err := lw.WatchWithContext(context.Background(), metav1.ListOptions{ResourceVersion: "1"})
	if err == nil {
		w.Stop()
	}
	return err
}
