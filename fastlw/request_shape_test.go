package fastlw_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	cache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/fastlw"
)

// sentRequest is what a recordingTransport saw of one request.
type sentRequest struct {
	method, url, accept string
}

// recordingTransport records every request and fails it (no server).
// Used from one goroutine at a time; not safe for concurrent use.
type recordingTransport struct {
	sent []sentRequest
}

func (r *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r.sent = append(r.sent, sentRequest{req.Method, req.URL.String(), req.Header.Get("Accept")})
	return nil, errors.New("recorded")
}

// listAndWatch sends one list and one watch with options through lw.
func listAndWatch(lw cache.ListerWatcherWithContext, options metav1.ListOptions) {
	_, _ = lw.ListWithContext(context.Background(), options)
	if w, err := lw.WatchWithContext(context.Background(), options); err == nil {
		w.Stop()
	}
}

// TestFastlwSendsTheRequestsOfTheListerWatcherItReplaces pins the drop-in
// contracts: NewFromClient and NewFilteredFromClient send what
// NewListWatchFromClient and NewFilteredListWatchFromClient send, and with
// PreferProtobuf and TimeoutFromOptions a fastlw ListerWatcher sends what a
// typed clientset's List and Watch send (protobuf preferred, the timeout
// parameter), for namespaced and cluster-wide requests.
func TestFastlwSendsTheRequestsOfTheListerWatcherItReplaces(t *testing.T) {
	timeout := int64(7)
	options := metav1.ListOptions{ResourceVersion: "5", TimeoutSeconds: &timeout, LabelSelector: "a=b"}
	tweak := func(o *metav1.ListOptions) { o.LabelSelector += ",c=d" }
	tests := []struct {
		name        string
		plain, fast func(rest.Interface, kubernetes.Interface) cache.ListerWatcherWithContext
	}{
		{name: "NewFromClient as NewListWatchFromClient",
			plain: func(c rest.Interface, _ kubernetes.Interface) cache.ListerWatcherWithContext {
				return cache.NewListWatchFromClient(c, "pods", "ns", fields.OneTermEqualSelector("x", "y"))
			},
			fast: func(c rest.Interface, _ kubernetes.Interface) cache.ListerWatcherWithContext {
				return fastlw.NewFromClient(c, "pods", "ns", fields.OneTermEqualSelector("x", "y"), nil)
			}},
		{name: "NewFilteredFromClient as NewFilteredListWatchFromClient",
			plain: func(c rest.Interface, _ kubernetes.Interface) cache.ListerWatcherWithContext {
				return cache.NewFilteredListWatchFromClient(c, "pods", "", tweak)
			},
			fast: func(c rest.Interface, _ kubernetes.Interface) cache.ListerWatcherWithContext {
				return fastlw.NewFilteredFromClient(c, "pods", "", tweak, nil)
			}},
		{name: "typed options as the typed clientset, namespaced",
			plain: func(_ rest.Interface, cs kubernetes.Interface) cache.ListerWatcherWithContext {
				return &cache.ListWatch{
					ListWithContextFunc:  adaptList(cs.CoreV1().Pods("ns").List),
					WatchFuncWithContext: cs.CoreV1().Pods("ns").Watch,
				}
			},
			fast: typedFast("pods", "ns")},
		{name: "typed options as the typed clientset, cluster-wide",
			plain: func(_ rest.Interface, cs kubernetes.Interface) cache.ListerWatcherWithContext {
				return &cache.ListWatch{
					ListWithContextFunc:  adaptList(cs.CoreV1().Nodes().List),
					WatchFuncWithContext: cs.CoreV1().Nodes().Watch,
				}
			},
			fast: typedFast("nodes", "")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sent := [][]sentRequest{requestsThrough(t, tc.plain, options), requestsThrough(t, tc.fast, options)}
			if len(sent[0]) != 2 || len(sent[0]) != len(sent[1]) {
				t.Fatalf("requests: plain %v, fastlw %v", sent[0], sent[1])
			}
			for i := range sent[0] {
				if sent[0][i] != sent[1][i] {
					t.Errorf("request %d: plain %+v, fastlw %+v", i, sent[0][i], sent[1][i])
				}
			}
		})
	}
}

// requestsThrough lists and watches once with options through the
// ListerWatcher build makes on a recording clientset, and returns what was
// sent.
func requestsThrough(t *testing.T, build func(rest.Interface, kubernetes.Interface) cache.ListerWatcherWithContext, options metav1.ListOptions) []sentRequest {
	t.Helper()
	rt := &recordingTransport{}
	cs, err := kubernetes.NewForConfigAndClient(&rest.Config{Host: "http://kcache.invalid"}, &http.Client{Transport: rt})
	if err != nil {
		t.Fatal(err)
	}
	listAndWatch(build(cs.CoreV1().RESTClient(), cs), options)
	return rt.sent
}

// typedFast is a fastlw ListerWatcher configured as a typed client.
func typedFast(resource, namespace string) func(rest.Interface, kubernetes.Interface) cache.ListerWatcherWithContext {
	return func(c rest.Interface, _ kubernetes.Interface) cache.ListerWatcherWithContext {
		return fastlw.New(fastlw.Config{Client: c, Resource: resource, Namespace: namespace,
			PreferProtobuf: true, TimeoutFromOptions: true})
	}
}

// adaptList turns a typed List into a ListWatch's list function.
func adaptList[L runtime.Object](list func(context.Context, metav1.ListOptions) (L, error)) func(context.Context, metav1.ListOptions) (runtime.Object, error) {
	return func(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
		return list(ctx, options)
	}
}
