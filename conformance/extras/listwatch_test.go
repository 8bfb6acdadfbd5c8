package extras

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	kcache "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	restclient "k8s.io/client-go/rest"
	restfake "k8s.io/client-go/rest/fake"
	cgcache "k8s.io/client-go/tools/cache"
)

// listWatchLike is ListWatch of either implementation.
type listWatchLike interface {
	List(options metav1.ListOptions) (runtime.Object, error)
	Watch(options metav1.ListOptions) (watch.Interface, error)
}

// getter is the Getter both constructors take.
type getter interface {
	Get() *restclient.Request
}

// listWatchKit builds one implementation's client-backed ListWatches.
type listWatchKit struct {
	fromClient func(c getter, resource, namespace string, sel fields.Selector) listWatchLike
	filtered   func(c getter, resource, namespace string, modify func(*metav1.ListOptions)) listWatchLike
}

// withContext calls the context flavours of lw, a ListWatch of either
// library as fromClient or filtered built it.
func withContext(lw listWatchLike) listWatchLike {
	l := lw.(interface {
		ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error)
		WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error)
	})
	return contextListWatch{list: l.ListWithContext, watch: l.WatchWithContext}
}

// contextListWatch calls a ListWatch's context flavours.
type contextListWatch struct {
	list  func(ctx context.Context, options metav1.ListOptions) (runtime.Object, error)
	watch func(ctx context.Context, options metav1.ListOptions) (watch.Interface, error)
}

func (c contextListWatch) List(o metav1.ListOptions) (runtime.Object, error) {
	return c.list(context.Background(), o)
}

func (c contextListWatch) Watch(o metav1.ListOptions) (watch.Interface, error) {
	return c.watch(context.Background(), o)
}

var clientGoListWatch = listWatchKit{
	fromClient: func(c getter, resource, namespace string, sel fields.Selector) listWatchLike {
		return cgcache.NewListWatchFromClient(c, resource, namespace, sel)
	},
	filtered: func(c getter, resource, namespace string, modify func(*metav1.ListOptions)) listWatchLike {
		return cgcache.NewFilteredListWatchFromClient(c, resource, namespace, modify)
	},
}

var kcacheListWatch = listWatchKit{
	fromClient: func(c getter, resource, namespace string, sel fields.Selector) listWatchLike {
		return kcache.NewListWatchFromClient(c, resource, namespace, sel)
	},
	filtered: func(c getter, resource, namespace string, modify func(*metav1.ListOptions)) listWatchLike {
		return kcache.NewFilteredListWatchFromClient(c, resource, namespace, modify)
	},
}

// recordingClient is a fake REST client that records the URL of every
// request and answers each with an empty pod list (a list) or an empty
// watch stream (a watch).
type recordingClient struct {
	*restfake.RESTClient
	mu   sync.Mutex
	urls []string
}

func newRecordingClient() *recordingClient {
	rc := &recordingClient{}
	rc.RESTClient = &restfake.RESTClient{
		NegotiatedSerializer: scheme.Codecs.WithoutConversion(),
		GroupVersion:         v1.SchemeGroupVersion,
		VersionedAPIPath:     "/api/v1",
		Client: restfake.CreateHTTPClient(func(req *http.Request) (*http.Response, error) {
			rc.mu.Lock()
			rc.urls = append(rc.urls, req.URL.String())
			rc.mu.Unlock()
			body := `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[]}`
			if req.URL.Query().Get("watch") == "true" {
				body = ""
			}
			header := http.Header{"Content-Type": []string{"application/json"}}
			return &http.Response{StatusCode: http.StatusOK, Header: header, Body: io.NopCloser(bytes.NewBufferString(body))}, nil
		}),
	}
	return rc
}

func (rc *recordingClient) take() []string { return takeRecorded(&rc.mu, &rc.urls) }

// listWatchCase is one construction of a client-backed ListWatch and the
// calls made on it.
type listWatchCase struct {
	name string
	// build constructs the ListWatch (nil client when noClient).
	build    func(kit listWatchKit, c getter) listWatchLike
	noClient bool
	// context calls the context flavours.
	context bool
	options metav1.ListOptions
}

var listWatchCases = []listWatchCase{
	{name: "a field selector replaces the caller's", build: func(kit listWatchKit, c getter) listWatchLike {
		return kit.fromClient(c, "pods", "ns", fields.OneTermEqualSelector("spec.nodeName", "n1"))
	}, options: metav1.ListOptions{LabelSelector: "a=b", FieldSelector: "x=y", ResourceVersion: "5", Limit: 3}},
	{name: "everything over all namespaces", build: func(kit listWatchKit, c getter) listWatchLike {
		return kit.fromClient(c, "pods", metav1.NamespaceAll, fields.Everything())
	}, options: metav1.ListOptions{ResourceVersion: "0", AllowWatchBookmarks: true, TimeoutSeconds: ptrInt64(30)}},
	{name: "context flavours", context: true, build: func(kit listWatchKit, c getter) listWatchLike {
		return kit.fromClient(c, "pods", "ns", fields.Everything())
	}, options: metav1.ListOptions{ResourceVersion: "9", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}},
	{name: "a nil field selector panics on use, not when constructed", build: func(kit listWatchKit, c getter) listWatchLike {
		return kit.fromClient(c, "pods", "ns", nil)
	}},
	{name: "a nil field selector panics in the context flavours", context: true, build: func(kit listWatchKit, c getter) listWatchLike {
		return kit.fromClient(c, "pods", "ns", nil)
	}},
	{name: "a nil client panics on use", noClient: true, build: func(kit listWatchKit, c getter) listWatchLike {
		return kit.fromClient(c, "pods", "ns", fields.Everything())
	}},
	{name: "a filter sees and rewrites the options", build: func(kit listWatchKit, c getter) listWatchLike {
		return kit.filtered(c, "configmaps", "kube-system", func(o *metav1.ListOptions) {
			o.LabelSelector = fmt.Sprintf("seen=%v", o.Watch)
		})
	}, options: metav1.ListOptions{LabelSelector: "dropped"}},
	{name: "a nil filter panics on use", build: func(kit listWatchKit, c getter) listWatchLike {
		return kit.filtered(c, "pods", "ns", nil)
	}},
	{name: "the caller's watch flag, initial events and continue token pass through", build: func(kit listWatchKit, c getter) listWatchLike {
		return kit.fromClient(c, "pods", "ns", fields.ParseSelectorOrDie("metadata.name!=a,status.phase=Running"))
	}, options: metav1.ListOptions{Watch: true, SendInitialEvents: ptrBool(true), Continue: "tok", ResourceVersion: "3", ResourceVersionMatch: metav1.ResourceVersionMatchExact}},
	{name: "a cluster-scoped resource given a namespace", build: func(kit listWatchKit, c getter) listWatchLike {
		return kit.fromClient(c, "nodes", "ns", fields.Everything())
	}, options: metav1.ListOptions{ResourceVersion: "0"}},
	{name: "odd resource and namespace names", build: func(kit listWatchKit, c getter) listWatchLike {
		return kit.fromClient(c, "pods/status", "a/b", fields.Everything())
	}},
	{name: "a filter that panics", build: func(kit listWatchKit, c getter) listWatchLike {
		return kit.filtered(c, "pods", "ns", func(*metav1.ListOptions) { panic("filter boom") })
	}},
}

func ptrInt64(v int64) *int64 { return &v }

func ptrBool(v bool) *bool { return &v }

// playListWatch builds the case's ListWatch and lists and watches once,
// tracing panics, results and the request URLs.
func playListWatch(kit listWatchKit, tc listWatchCase) []string {
	rc := newRecordingClient()
	var c getter = rc
	if tc.noClient {
		c = nil
	}
	var lw listWatchLike
	trace := []string{"construct -> " + capturePanic(func() string {
		lw = tc.build(kit, c)
		if tc.context {
			lw = withContext(lw)
		}
		return "ok"
	})}
	if lw == nil {
		return trace
	}
	trace = append(trace, "list -> "+capturePanic(func() string {
		obj, err := lw.List(tc.options)
		if err != nil {
			return "error " + err.Error()
		}
		return fmt.Sprintf("%T", obj)
	}))
	trace = append(trace, "watch -> "+capturePanic(func() string {
		w, err := lw.Watch(tc.options)
		if err != nil {
			return "error " + err.Error()
		}
		w.Stop()
		return "watching"
	}))
	for _, u := range rc.take() {
		trace = append(trace, "request "+u)
	}
	return trace
}

func TestListWatchFromClientMatchesClientGo(t *testing.T) {
	for _, tc := range listWatchCases {
		t.Run(tc.name, func(t *testing.T) {
			want := strings.Join(playListWatch(clientGoListWatch, tc), "\n")
			got := strings.Join(playListWatch(kcacheListWatch, tc), "\n")
			if got != want {
				t.Fatalf("traces differ\nclient-go:\n%s\nkcache:\n%s", want, got)
			}
			t.Logf("identical traces:\n%s", got)
		})
	}
}

// ctxKey marks the caller's context in the ListWatch flavour cases.
type ctxKey struct{}

// flavourFuncs returns list and watch functions of both flavours that
// append which of them ran (and whether they saw the caller's context) to
// calls.
func flavourFuncs(calls *[]string) (
	list func(metav1.ListOptions) (runtime.Object, error),
	listCtx func(context.Context, metav1.ListOptions) (runtime.Object, error),
	watchF func(metav1.ListOptions) (watch.Interface, error),
	watchCtx func(context.Context, metav1.ListOptions) (watch.Interface, error),
) {
	seen := func(ctx context.Context) string { return fmt.Sprintf("caller-ctx=%v", ctx.Value(ctxKey{}) != nil) }
	list = func(metav1.ListOptions) (runtime.Object, error) {
		*calls = append(*calls, "ListFunc")
		return &v1.PodList{}, nil
	}
	listCtx = func(ctx context.Context, _ metav1.ListOptions) (runtime.Object, error) {
		*calls = append(*calls, "ListWithContextFunc "+seen(ctx))
		return &v1.PodList{}, nil
	}
	watchF = func(metav1.ListOptions) (watch.Interface, error) {
		*calls = append(*calls, "WatchFunc")
		return watch.NewEmptyWatch(), nil
	}
	watchCtx = func(ctx context.Context, _ metav1.ListOptions) (watch.Interface, error) {
		*calls = append(*calls, "WatchFuncWithContext "+seen(ctx))
		return watch.NewEmptyWatch(), nil
	}
	return list, listCtx, watchF, watchCtx
}

// playListWatchFlavours sets the function fields named in set (l, L, w, W:
// ListFunc, ListWithContextFunc, WatchFunc, WatchFuncWithContext) on a
// ListWatch of either implementation and calls its four methods.
func playListWatchFlavours(clientGo bool, set string) []string {
	var calls []string
	list, listCtx, watchF, watchCtx := flavourFuncs(&calls)
	ctx := context.WithValue(context.Background(), ctxKey{}, true)
	type methods struct {
		list     func(metav1.ListOptions) (runtime.Object, error)
		listCtx  func(context.Context, metav1.ListOptions) (runtime.Object, error)
		watch    func(metav1.ListOptions) (watch.Interface, error)
		watchCtx func(context.Context, metav1.ListOptions) (watch.Interface, error)
	}
	var m methods
	if !strings.Contains(set, "l") {
		list = nil
	}
	if !strings.Contains(set, "L") {
		listCtx = nil
	}
	if !strings.Contains(set, "w") {
		watchF = nil
	}
	if !strings.Contains(set, "W") {
		watchCtx = nil
	}
	if clientGo {
		lw := &cgcache.ListWatch{ListFunc: list, ListWithContextFunc: listCtx, WatchFunc: watchF, WatchFuncWithContext: watchCtx}
		m = methods{lw.List, lw.ListWithContext, lw.Watch, lw.WatchWithContext}
	} else {
		lw := &kcache.ListWatch{ListFunc: list, ListWithContextFunc: listCtx, WatchFunc: watchF, WatchFuncWithContext: watchCtx}
		m = methods{lw.List, lw.ListWithContext, lw.Watch, lw.WatchWithContext}
	}
	var trace []string
	call := func(name string, f func() error) {
		calls = nil
		res := capturePanic(func() string { return fmt.Sprint(f()) })
		trace = append(trace, fmt.Sprintf("%s -> %s calls=%v", name, res, calls))
	}
	call("List", func() error { _, err := m.list(metav1.ListOptions{}); return err })
	call("ListWithContext", func() error { _, err := m.listCtx(ctx, metav1.ListOptions{}); return err })
	call("Watch", func() error { _, err := m.watch(metav1.ListOptions{}); return err })
	call("WatchWithContext", func() error { _, err := m.watchCtx(ctx, metav1.ListOptions{}); return err })
	return trace
}

func TestListWatchFlavoursMatchClientGo(t *testing.T) {
	for _, set := range []string{"", "lw", "LW", "lLwW", "lW", "Lw"} {
		t.Run("fields "+set, func(t *testing.T) {
			want := strings.Join(playListWatchFlavours(true, set), "\n")
			got := strings.Join(playListWatchFlavours(false, set), "\n")
			if got != want {
				t.Fatalf("traces differ\nclient-go:\n%s\nkcache:\n%s", want, got)
			}
			t.Logf("identical traces:\n%s", got)
		})
	}
}
