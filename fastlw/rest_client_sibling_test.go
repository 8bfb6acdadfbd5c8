package fastlw

import (
	"context"
	"net/http"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// nopWarnings is a warning handler that ignores warnings.
type nopWarnings struct{}

func (nopWarnings) HandleWarningHeaderWithContext(context.Context, int, string, string) {}

// TestTheSiblingOfEveryClientGoRESTClientIsBuiltFromItsParts pins the
// unexported parts of *rest.RESTClient the sibling reads: for the REST
// clients of each of client-go's constructors a sibling is built, its
// requests have the caller's URL (base, path prefix, API path), it has the
// caller's API version and rate limiter, keeps the caller's warning
// handler, and sends through its recorder; a zero client (no base URL) has
// none. (TestAWatchIsTheCallersRequestThroughItsOwnTransport pins the
// headers.)
func TestTheSiblingOfEveryClientGoRESTClientIsBuiltFromItsParts(t *testing.T) {
	config := func() *rest.Config {
		return &rest.Config{Host: "https://kcache.invalid:6443/prefix", APIPath: "/api",
			ContentConfig: rest.ContentConfig{GroupVersion: &corev1.SchemeGroupVersion, NegotiatedSerializer: scheme.Codecs.WithoutConversion(),
				AcceptContentTypes: "application/vnd.kubernetes.protobuf,application/json"},
			WarningHandlerWithContext: nopWarnings{}}
	}
	clients := map[string]func() (*rest.RESTClient, error){
		"RESTClientFor":            func() (*rest.RESTClient, error) { return rest.RESTClientFor(config()) },
		"UnversionedRESTClientFor": func() (*rest.RESTClient, error) { return rest.UnversionedRESTClientFor(config()) },
		"a clientset's group client": func() (*rest.RESTClient, error) {
			cs, err := kubernetes.NewForConfig(config())
			if err != nil {
				return nil, err
			}
			return cs.AppsV1().RESTClient().(*rest.RESTClient), nil
		},
	}
	for name, build := range clients {
		t.Run(name, func(t *testing.T) {
			rc, err := build()
			if err != nil {
				t.Fatal(err)
			}
			sibling, ok := newSiblingSource(rc).sibling(nil, time.Time{})
			if !ok {
				t.Fatal("no sibling built")
			}
			want, got := rc.Get().Resource("pods").URL().String(), sibling.client.Get().Resource("pods").URL().String()
			if want != got {
				t.Errorf("sibling URL %s, want %s", got, want)
			}
			if sibling.client.APIVersion() != rc.APIVersion() {
				t.Errorf("sibling API version %v, want %v", sibling.client.APIVersion(), rc.APIVersion())
			}
			if sibling.client.GetRateLimiter() != rc.GetRateLimiter() {
				t.Error("the sibling has another rate limiter")
			}
			if _, ok := sibling.warnings.(nopWarnings); !ok {
				t.Errorf("sibling warning handler %T, want the caller's", sibling.warnings)
			}
			if sibling.client.Client.Transport != sibling.recorder {
				t.Error("the sibling's transport is not its recorder")
			}
		})
	}
	t.Run("a zero client", func(t *testing.T) {
		if _, ok := newSiblingSource(&rest.RESTClient{Client: http.DefaultClient}).sibling(nil, time.Time{}); ok {
			t.Fatal("a sibling built for a client without a base URL")
		}
	})
}
