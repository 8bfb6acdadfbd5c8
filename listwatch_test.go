package cache

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	restfake "k8s.io/client-go/rest/fake"
	"k8s.io/client-go/util/watchlist"
)

// listWatchCalls records which function of a ListWatch was called.
type listWatchCalls struct{ calls []string }

func (c *listWatchCalls) listWatch(list, listCtx, watchFn, watchCtx bool) *ListWatch {
	lw := &ListWatch{}
	if list {
		lw.ListFunc = func(metav1.ListOptions) (runtime.Object, error) {
			c.calls = append(c.calls, "ListFunc")
			return nil, nil
		}
	}
	if listCtx {
		lw.ListWithContextFunc = func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			c.calls = append(c.calls, "ListWithContextFunc")
			return nil, nil
		}
	}
	if watchFn {
		lw.WatchFunc = func(metav1.ListOptions) (watch.Interface, error) {
			c.calls = append(c.calls, "WatchFunc")
			return nil, nil
		}
	}
	if watchCtx {
		lw.WatchFuncWithContext = func(context.Context, metav1.ListOptions) (watch.Interface, error) {
			c.calls = append(c.calls, "WatchFuncWithContext")
			return nil, nil
		}
	}
	return lw
}

func TestListWatchPrefersTheFunctionOfEachMethodsOwnFlavour(t *testing.T) {
	cases := []struct {
		name                           string
		list, listCtx, watch, watchCtx bool
		want                           string
	}{
		{"only context-free functions", true, false, true, false, "ListFunc ListFunc WatchFunc WatchFunc"},
		{"only context functions", false, true, false, true, "ListWithContextFunc ListWithContextFunc WatchFuncWithContext WatchFuncWithContext"},
		{"both flavours", true, true, true, true, "ListFunc ListWithContextFunc WatchFunc WatchFuncWithContext"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var rec listWatchCalls
			lw := rec.listWatch(tc.list, tc.listCtx, tc.watch, tc.watchCtx)
			ctx := context.Background()
			_, _ = lw.List(metav1.ListOptions{})
			_, _ = lw.ListWithContext(ctx, metav1.ListOptions{})
			_, _ = lw.Watch(metav1.ListOptions{})
			_, _ = lw.WatchWithContext(ctx, metav1.ListOptions{})
			if got := strings.Join(rec.calls, " "); got != tc.want {
				t.Fatalf("calls = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestEmptyListWatchPanicsLikeANilFunctionCall(t *testing.T) {
	for name, call := range map[string]func(lw *ListWatch){
		"List":             func(lw *ListWatch) { _, _ = lw.List(metav1.ListOptions{}) },
		"ListWithContext":  func(lw *ListWatch) { _, _ = lw.ListWithContext(context.Background(), metav1.ListOptions{}) },
		"Watch":            func(lw *ListWatch) { _, _ = lw.Watch(metav1.ListOptions{}) },
		"WatchWithContext": func(lw *ListWatch) { _, _ = lw.WatchWithContext(context.Background(), metav1.ListOptions{}) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			call(&ListWatch{})
		})
	}
}

// contextFreeOnly implements only the deprecated interfaces.
type contextFreeOnly struct{ calls *[]string }

func (c contextFreeOnly) List(metav1.ListOptions) (runtime.Object, error) {
	*c.calls = append(*c.calls, "List")
	return nil, nil
}

func (c contextFreeOnly) Watch(metav1.ListOptions) (watch.Interface, error) {
	*c.calls = append(*c.calls, "Watch")
	return nil, nil
}

func TestContextAdaptersPassThroughOrDropTheContext(t *testing.T) {
	lw := &ListWatch{}
	if ToListerWatcherWithContext(lw) != ListerWatcherWithContext(lw) {
		t.Fatal("a ListWatch must be returned as it is")
	}
	if ToListerWithContext(lw) != ListerWithContext(lw) || ToWatcherWithContext(lw) != WatcherWithContext(lw) {
		t.Fatal("a ListWatch must be returned as it is by the single adapters")
	}
	var calls []string
	plain := contextFreeOnly{calls: &calls}
	ctx := context.Background()
	_, _ = ToListerWatcherWithContext(plain).ListWithContext(ctx, metav1.ListOptions{})
	_, _ = ToListerWatcherWithContext(plain).WatchWithContext(ctx, metav1.ListOptions{})
	_, _ = ToListerWithContext(plain).ListWithContext(ctx, metav1.ListOptions{})
	_, _ = ToWatcherWithContext(plain).WatchWithContext(ctx, metav1.ListOptions{})
	if got := strings.Join(calls, " "); got != "List Watch List Watch" {
		t.Fatalf("calls = %q", got)
	}
}

// unsupportingClient says it does not support WatchList semantics.
type unsupportingClient struct{}

func (unsupportingClient) IsWatchListSemanticsUnSupported() bool { return true }

func TestWatchListSemanticsWrapperReportsWhatTheClientSays(t *testing.T) {
	lw := &ListWatch{}
	cases := []struct {
		name   string
		client any
		want   bool
	}{
		{"a client that refuses", unsupportingClient{}, true},
		{"the fake clientset refuses", fake.NewSimpleClientset(), true},
		{"a client that says nothing", struct{}{}, false},
		{"no client", nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wrapped := ToListWatcherWithWatchListSemantics(lw, tc.client)
			if got := watchlist.DoesClientNotSupportWatchListSemantics(wrapped); got != tc.want {
				t.Fatalf("not supported = %v, want %v", got, tc.want)
			}
			if _, ok := wrapped.(ListerWatcherWithContext); !ok {
				t.Fatal("the wrapper must keep the context methods")
			}
		})
	}
}

func TestListWatchFromClientSendsTheSelectorAndWatchParameters(t *testing.T) {
	var urls []string
	client := &restfake.RESTClient{
		NegotiatedSerializer: scheme.Codecs.WithoutConversion(),
		GroupVersion:         v1.SchemeGroupVersion,
		Client: restfake.CreateHTTPClient(func(req *http.Request) (*http.Response, error) {
			urls = append(urls, req.Method+" "+req.URL.String())
			body := `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"3"},"items":[]}`
			return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": []string{"application/json"}}, Body: io.NopCloser(bytes.NewBufferString(body))}, nil
		}),
	}
	lw := NewListWatchFromClient(client, "pods", "ns1", fields.OneTermEqualSelector("spec.nodeName", "n1"))
	if lw.ListFunc == nil || lw.WatchFunc == nil || lw.ListWithContextFunc == nil || lw.WatchFuncWithContext == nil || lw.DisableChunking {
		t.Fatalf("every function must be set and chunking left on: %+v", lw)
	}
	obj, err := lw.List(metav1.ListOptions{ResourceVersion: "0", Limit: 500, FieldSelector: "replaced=1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := obj.(*v1.PodList); !ok {
		t.Fatalf("list returned %T", obj)
	}
	w, err := lw.WatchWithContext(context.Background(), metav1.ListOptions{ResourceVersion: "3", AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	w.Stop()
	all := NewFilteredListWatchFromClient(client, "pods", metav1.NamespaceAll, func(o *metav1.ListOptions) { o.LabelSelector = "a=b" })
	w, err = all.Watch(metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Stop()
	want := []string{
		"GET https://localhost/namespaces/ns1/pods?fieldSelector=spec.nodeName%3Dn1&limit=500&resourceVersion=0",
		"GET https://localhost/namespaces/ns1/pods?allowWatchBookmarks=true&fieldSelector=spec.nodeName%3Dn1&resourceVersion=3&watch=true",
		"GET https://localhost/pods?labelSelector=a%3Db&watch=true",
	}
	if strings.Join(urls, "\n") != strings.Join(want, "\n") {
		t.Fatalf("requests:\n%s\nwant:\n%s", strings.Join(urls, "\n"), strings.Join(want, "\n"))
	}
}
