package clientgo

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/informers/apps"
	"k8s.io/client-go/informers/core"
	"k8s.io/client-go/informers/flowcontrol"
	"k8s.io/client-go/informers/internalinterfaces"
	"k8s.io/client-go/informers/rbac"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	clientgocache "k8s.io/client-go/tools/cache"

	"github.com/kcache-go/cache/fastlw"
	"github.com/kcache-go/cache/internal/privatefield"
)

// recordedRequest is what a failingTransport saw of one request.
type recordedRequest struct{ url, accept string }

// failingTransport records every request and fails it. Used from one
// goroutine at a time.
type failingTransport struct{ sent []recordedRequest }

func (r *failingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r.sent = append(r.sent, recordedRequest{req.URL.String(), req.Header.Get("Accept")})
	return nil, errors.New("recorded")
}

// newFuncRecorder is the factory a generated group package is handed: it
// keeps the constructor an accessor's Informer() passes to InformerFor.
// namespace and tweak are what the group packages are built with.
type newFuncRecorder struct {
	newFunc   internalinterfaces.NewInformerFunc
	namespace string
	tweak     internalinterfaces.TweakListOptionsFunc
}

// args are the arguments of a group package's New: the recorder as the
// factory, its namespace and tweak.
func (r *newFuncRecorder) args() (internalinterfaces.SharedInformerFactory, string, internalinterfaces.TweakListOptionsFunc) {
	return r, r.namespace, r.tweak
}

func (r *newFuncRecorder) Start(<-chan struct{})                     {}
func (r *newFuncRecorder) InformerName() *clientgocache.InformerName { return nil }
func (r *newFuncRecorder) InformerFor(_ runtime.Object, newFunc internalinterfaces.NewInformerFunc) clientgocache.SharedIndexInformer {
	r.newFunc = newFunc
	return nil
}

// accessorConstructor calls one typed accessor's Informer() on a group
// package built with r.args().
type accessorConstructor func(r *newFuncRecorder)

// requestsOf lists and watches once through lw and returns the requests.
func requestsOf(lw clientgocache.ListerWatcher, rt *failingTransport) []recordedRequest {
	rt.sent = nil
	timeout := int64(9)
	options := metav1.ListOptions{ResourceVersion: "3", TimeoutSeconds: &timeout}
	withCtx := lw.(clientgocache.ListerWatcherWithContext)
	_, _ = withCtx.ListWithContext(context.Background(), options)
	if w, err := withCtx.WatchWithContext(context.Background(), options); err == nil {
		w.Stop()
	}
	return rt.sent
}

// TestTheTypedFactoryListsThroughFastlwWithTheTypedClientsRequests builds
// the ListerWatcher the typed factory runs for a typed accessor's informer:
// fastlw for a *kubernetes.Clientset, sending the very requests (path,
// query, Accept) of the typed client's ListWatch client-go's constructor
// built, for namespaced and cluster-scoped resources of several groups with
// the factory's namespace and tweak; the plain ListWatch for a fake
// clientset, with WithPlainListWatch, and for a constructor that is not a
// generated accessor's.
func TestTheTypedFactoryListsThroughFastlwWithTheTypedClientsRequests(t *testing.T) {
	for _, tc := range typedFactoryListerWatcherCases() {
		t.Run(tc.name, func(t *testing.T) {
			rt := &failingTransport{}
			var client kubernetes.Interface = fake.NewClientset()
			if !tc.fake {
				cs, err := kubernetes.NewForConfigAndClient(&rest.Config{Host: "http://kcache.invalid"}, &http.Client{Transport: rt})
				if err != nil {
					t.Fatal(err)
				}
				client = cs
			}
			tweak := func(o *metav1.ListOptions) { o.LabelSelector = "app=web" }
			options := append([]informers.SharedInformerOption{informers.WithNamespace("ns"), informers.WithTweakListOptions(tweak)}, tc.options...)
			f := NewSharedInformerFactoryWithOptions(client, time.Minute, options...).(*kcacheTypedFactory)
			rec := &newFuncRecorder{namespace: "ns", tweak: tweak}
			tc.accessor(rec)
			newFunc := rec.newFunc
			if tc.ownFunc {
				newFunc = func(c kubernetes.Interface, resync time.Duration) clientgocache.SharedIndexInformer {
					return rec.newFunc(c, resync)
				}
			}
			built := newFunc(client, time.Minute)
			plain, ok := privatefield.Read[clientgocache.ListerWatcher](built, "listerWatcher")
			if !ok {
				t.Fatal("cannot read the ListerWatcher client-go built")
			}
			lw, isFast := f.fastListerWatcher(newFunc, built, plain, nil)
			if isFast != tc.wantFast {
				t.Fatalf("fastlw chosen: %v, want %v", isFast, tc.wantFast)
			}
			if !isFast {
				return
			}
			if _, ok := lw.(*fastlw.ListerWatcher); !ok {
				t.Fatalf("got %T, want a *fastlw.ListerWatcher", lw)
			}
			want, got := requestsOf(plain, rt), requestsOf(lw, rt)
			if len(want) != 2 || len(got) != len(want) || want[0] != got[0] || want[1] != got[1] {
				t.Errorf("requests:\n plain  %v\n fastlw %v", want, got)
			}
		})
	}
}

// typedFactoryListerWatcherCase is one informer the typed factory builds.
type typedFactoryListerWatcherCase struct {
	name     string
	fake     bool
	options  []informers.SharedInformerOption
	accessor accessorConstructor
	ownFunc  bool // InformerFor with a constructor of the caller's own
	wantFast bool
}

// typedFactoryListerWatcherCases are the cases of
// TestTheTypedFactoryListsThroughFastlwWithTheTypedClientsRequests.
func typedFactoryListerWatcherCases() []typedFactoryListerWatcherCase {
	pods := func(r *newFuncRecorder) { core.New(r.args()).V1().Pods().Informer() }
	return []typedFactoryListerWatcherCase{
		{name: "pods, namespaced", accessor: pods, wantFast: true},
		{name: "nodes, cluster-scoped: no namespace", wantFast: true, accessor: func(r *newFuncRecorder) { core.New(r.args()).V1().Nodes().Informer() }},
		{name: "apps deployments", wantFast: true, accessor: func(r *newFuncRecorder) { apps.New(r.args()).V1().Deployments().Informer() }},
		{name: "rbac roles", wantFast: true, accessor: func(r *newFuncRecorder) { rbac.New(r.args()).V1().Roles().Informer() }},
		{name: "flowcontrol priority levels", wantFast: true,
			accessor: func(r *newFuncRecorder) { flowcontrol.New(r.args()).V1().PriorityLevelConfigurations().Informer() }},
		{name: "WithPlainListWatch: plain", accessor: pods, options: []informers.SharedInformerOption{WithPlainListWatch()}},
		{name: "a fake clientset: plain", accessor: pods, fake: true},
		{name: "a constructor of the caller's own: plain", accessor: pods, ownFunc: true},
	}
}
