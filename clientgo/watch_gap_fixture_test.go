package clientgo

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	clienttesting "k8s.io/client-go/testing"
	clientgocache "k8s.io/client-go/tools/cache"
)

// gapFixture holds fresh fake clients (typed, dynamic, metadata) with the
// same pods, and for the typed client namespaces and deployments too. No
// client's watch reports anything: every watch request gets a FakeWatcher
// sent on watchers, so a test decides when a watch ends; objects it
// deletes from the trackers (deleteSilently) are deletes the informer
// misses, seen only when it relists.
type gapFixture struct {
	typed    *fake.Clientset
	dynamic  *dynamicfake.FakeDynamicClient
	metadata *metadatafake.FakeMetadataClient
	watchers chan *watch.FakeWatcher
}

var (
	deploymentsResource = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	namespacesResource  = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
)

// gapPods are the fixture's pods: namespace, name, app label.
var gapPods = [][3]string{{"a", "web-1", "web"}, {"a", "web-2", "web"}, {"a", "db-1", "db"}, {"b", "web-1", "web"}}

func newGapFixture(t *testing.T) *gapFixture {
	t.Helper()
	var typed, metadataObjs, dynamicObjs []runtime.Object
	for _, p := range gapPods {
		om := metav1.ObjectMeta{Namespace: p[0], Name: p[1], Labels: map[string]string{"app": p[2]}}
		typed = append(typed, &corev1.Pod{ObjectMeta: om}, &appsv1.Deployment{ObjectMeta: om})
		metadataObjs = append(metadataObjs, &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: om})
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("v1")
		u.SetKind("Pod")
		u.SetNamespace(p[0])
		u.SetName(p[1])
		u.SetLabels(om.Labels)
		dynamicObjs = append(dynamicObjs, u)
	}
	typed = append(typed, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "b"}})
	scheme := runtime.NewScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	f := &gapFixture{
		typed:    fake.NewClientset(typed...),
		dynamic:  dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{podsResource: "PodList"}, dynamicObjs...),
		metadata: metadatafake.NewSimpleMetadataClient(scheme, metadataObjs...),
		watchers: make(chan *watch.FakeWatcher, 8), // more than any test's watches
	}
	react := func(clienttesting.Action) (bool, watch.Interface, error) {
		w := watch.NewFakeWithChanSize(1, false)
		f.watchers <- w
		return true, w, nil
	}
	f.typed.PrependWatchReactor("*", react)
	f.dynamic.PrependWatchReactor("*", react)
	f.metadata.PrependWatchReactor("*", react)
	return f
}

// deleteSilently deletes namespace/name of gvr from every client's tracker
// without any watch reporting it.
func (f *gapFixture) deleteSilently(gvr schema.GroupVersionResource, namespace, name string) {
	for _, tracker := range []clienttesting.ObjectTracker{f.typed.Tracker(), f.dynamic.Tracker(), f.metadata.Tracker()} {
		_ = tracker.Delete(gvr, namespace, name) // NB: absent from some trackers
	}
}

// actions renders the list and watch requests every client received.
func (f *gapFixture) actions() []string {
	var out []string
	for _, client := range []*clienttesting.Fake{&f.typed.Fake, &f.dynamic.Fake, &f.metadata.Fake} {
		for _, a := range client.Actions() {
			switch a := a.(type) {
			case clienttesting.ListAction:
				r := a.GetListRestrictions()
				out = append(out, fmt.Sprintf("list %s ns=%q labels=%q fields=%q", a.GetResource().Resource, a.GetNamespace(), r.Labels, r.Fields))
			case clienttesting.WatchAction:
				r := a.GetWatchRestrictions()
				out = append(out, fmt.Sprintf("watch %s ns=%q labels=%q fields=%q rv=%q", a.GetResource().Resource, a.GetNamespace(), r.Labels, r.Fields, r.ResourceVersion))
			}
		}
	}
	return out
}

// expire ends w as an apiserver ends a watch whose resource version is
// too old: the informer relists.
func expire(w *watch.FakeWatcher) {
	w.Error(&metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old"})
}

// describeNotified renders what a handler received: client-go's tombstone
// by key and object type, an object by namespace/name, anything else
// (kcache's tombstone, say) by type.
func describeNotified(obj interface{}) string {
	if d, ok := obj.(clientgocache.DeletedFinalStateUnknown); ok {
		return fmt.Sprintf("client-go tombstone %s of %T", d.Key, d.Obj)
	}
	if m, err := meta.Accessor(obj); err == nil {
		return fmt.Sprintf("%T %s", obj, clientgocache.NewObjectName(m.GetNamespace(), m.GetName()))
	}
	return fmt.Sprintf("%T", obj)
}

// notifications records what a handler receives and signals each delete.
// mu guards events.
type notifications struct {
	mu      sync.Mutex
	events  []string
	deleted chan struct{}
}

func newNotifications() *notifications { return &notifications{deleted: make(chan struct{}, 16)} }

func (n *notifications) record(event string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.events = append(n.events, event)
}

// handler is a client-go handler recording adds (with isInInitialList) and
// deletes.
func (n *notifications) handler() clientgocache.ResourceEventHandler {
	return clientgocache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj interface{}, initial bool) {
			n.record(fmt.Sprintf("add %s initial=%v", describeNotified(obj), initial))
		},
		DeleteFunc: func(obj interface{}) {
			n.record("delete " + describeNotified(obj))
			n.deleted <- struct{}{}
		},
	}
}

// sorted returns the events recorded so far, sorted (initial-list order is
// the fake tracker's map order in both libraries).
func (n *notifications) sorted() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := append([]string(nil), n.events...)
	sort.Strings(out)
	return out
}

// runUntilStopped runs inf until the returned stop function is called;
// stop returns once Run has returned.
func runUntilStopped(inf clientgocache.SharedIndexInformer) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); inf.RunWithContext(ctx) }()
	return func() { cancel(); <-done }
}
