package clientgo

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	clientgocache "k8s.io/client-go/tools/cache"
)

func typedTestObjects() []runtime.Object {
	var objs []runtime.Object
	for _, ns := range []string{"a", "b"} {
		for _, name := range []string{"web-1", "web-2", "db-1"} {
			app, _, _ := strings.Cut(name, "-")
			objs = append(objs,
				&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": app}}},
				&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": app}}})
		}
	}
	return append(objs, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}})
}

// typedFactoryView is what a test reads from a factory after sync.
type typedFactoryView struct {
	Pods, ConfigMaps, Nodes, ListerPods, GenericPods, ByApp []string
	TransformedPods                                         int
}

func readTypedFactory(t *testing.T, newFactory func(kubernetes.Interface, time.Duration, ...informers.SharedInformerOption) informers.SharedInformerFactory, wantKcache bool) typedFactoryView {
	t.Helper()
	transformed := 0
	factory := newFactory(fake.NewClientset(typedTestObjects()...), 0,
		informers.WithNamespace("a"),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = "app=web" }),
		informers.WithTransform(func(obj interface{}) (interface{}, error) {
			if p, ok := obj.(*corev1.Pod); ok {
				transformed++
				p.Annotations = map[string]string{"transformed": "yes"}
			}
			return obj, nil
		}),
		informers.WithCustomResyncConfig(map[metav1.Object]time.Duration{&corev1.Pod{}: time.Hour}))
	pods := factory.Core().V1().Pods()
	// As descheduler does: indexers added to a factory informer before start.
	if err := pods.Informer().AddIndexers(clientgocache.Indexers{"app": func(obj interface{}) ([]string, error) {
		return []string{obj.(*corev1.Pod).Labels["app"]}, nil
	}}); err != nil {
		t.Fatal(err)
	}
	cms := factory.Core().V1().ConfigMaps().Informer()
	nodes := factory.Core().V1().Nodes().Informer()
	generic, err := factory.ForResource(corev1.SchemeGroupVersion.WithResource("pods"))
	if err != nil {
		t.Fatal(err)
	}
	for _, inf := range []clientgocache.SharedIndexInformer{pods.Informer(), cms, nodes, generic.Informer()} {
		if _, isKcache := KcacheInformer(inf); isKcache != wantKcache {
			t.Fatalf("informer %T: kcache = %v, want %v", inf, isKcache, wantKcache)
		}
	}
	if generic.Informer() != pods.Informer() {
		t.Error("ForResource(pods) and Core().V1().Pods() gave different informers")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer factory.Shutdown()
	defer cancel()
	factory.Start(ctx.Done())
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			t.Fatalf("%v did not sync", typ)
		}
	}
	if res := factory.WaitForCacheSyncWithContext(ctx); res.AsError() != nil || len(res.Synced) != 3 {
		t.Fatalf("WaitForCacheSyncWithContext = %+v", res)
	}
	listed, _ := pods.Lister().Pods("a").List(labels.Everything())
	genericListed, _ := generic.Lister().ByNamespace("a").List(labels.Everything())
	byApp, err := pods.Informer().GetIndexer().ByIndex("app", "web")
	if err != nil {
		t.Fatal(err)
	}
	return typedFactoryView{
		Pods: keysOf(pods.Informer().GetStore().List()), ConfigMaps: keysOf(cms.GetStore().List()),
		Nodes: keysOf(nodes.GetStore().List()), ListerPods: keysOf(podsAsObjects(listed)),
		GenericPods: keysOf(runtimeAsObjects(genericListed)), ByApp: keysOf(byApp), TransformedPods: transformed,
	}
}

func TestTheTypedFactoryHandsOutKcacheInformersWithTheCachesOfClientGosFactory(t *testing.T) {
	want := readTypedFactory(t, informers.NewSharedInformerFactoryWithOptions, false)
	got := readTypedFactory(t, NewSharedInformerFactoryWithOptions, true)
	if !reflect.DeepEqual(want, got) {
		t.Errorf("kcache factory:\n %+v\nclient-go factory:\n %+v", got, want)
	}
	if len(want.Pods) != 2 || want.TransformedPods == 0 {
		t.Errorf("the scenario does not exercise namespace, tweak and transform: %+v", want)
	}
}

func TestTheTypedFactoryTakesResyncPeriodsFromTheOptionsAsClientGo(t *testing.T) {
	cases := []struct {
		name string
		obj  runtime.Object
		want time.Duration
	}{
		{"a type with a custom resync", &corev1.Pod{}, time.Hour},
		{"a type with the default resync", &corev1.ConfigMap{}, time.Minute},
	}
	f := NewSharedInformerFactoryWithOptions(fake.NewClientset(), time.Minute,
		informers.WithCustomResyncConfig(map[metav1.Object]time.Duration{&corev1.Pod{}: time.Hour})).(*kcacheTypedFactory)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got time.Duration
			f.InformerFor(tc.obj, func(_ kubernetes.Interface, resync time.Duration) clientgocache.SharedIndexInformer {
				got = resync
				return nil
			})
			if got != tc.want {
				t.Errorf("resync = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestForResourceServesEveryTypedInformerClientGoServes(t *testing.T) {
	ours := NewSharedInformerFactory(fake.NewClientset(), 0)
	theirs := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	gvrs := typedAccessorResources(ours.(*kcacheTypedFactory))
	if len(gvrs) < 60 {
		t.Fatalf("found only %d typed accessors", len(gvrs))
	}
	for _, gvr := range gvrs {
		if _, err := theirs.ForResource(gvr); err != nil {
			t.Errorf("our accessor path gave %v, which client-go's ForResource refuses: %v", gvr, err)
			continue
		}
		g, err := ours.ForResource(gvr)
		if err != nil {
			t.Errorf("ForResource(%v) = %v", gvr, err)
			continue
		}
		if _, ok := KcacheInformer(g.Informer()); !ok {
			t.Errorf("ForResource(%v) is not a kcache informer", gvr)
		}
	}
	unknown := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	_, wantErr := theirs.ForResource(unknown)
	_, gotErr := ours.ForResource(unknown)
	if wantErr == nil || gotErr == nil || wantErr.Error() != gotErr.Error() {
		t.Errorf("unknown resource: error %v, client-go gives %v", gotErr, wantErr)
	}
}

// typedAccessorResources lists group/version/resource of every typed
// accessor reachable from the factory's group accessors, by reflection
// (independently of the lookup ForResource does).
func typedAccessorResources(f *kcacheTypedFactory) []schema.GroupVersionResource {
	groups := map[string]string{"Core": "", "Internal": "internal.apiserver.k8s.io"}
	var out []schema.GroupVersionResource
	for _, g := range []string{"Admissionregistration", "Internal", "Apps", "Autoscaling", "Batch", "Certificates", "Coordination", "Core", "Discovery", "Events", "Extensions", "Flowcontrol", "Networking", "Node", "Policy", "Rbac", "Resource", "Scheduling", "Storage", "Storagemigration"} {
		groupValue := reflect.ValueOf(f).MethodByName(g).Call(nil)[0]
		for i := 0; i < groupValue.NumMethod(); i++ {
			version := groupValue.Type().Method(i).Name
			versionValue := groupValue.Method(i).Call(nil)[0]
			for j := 0; j < versionValue.NumMethod(); j++ {
				gvr := schema.GroupVersionResource{Version: strings.ToLower(version), Resource: strings.ToLower(versionValue.Type().Method(j).Name)}
				gvr.Group = apiGroupOf(g, groups)
				out = append(out, gvr)
			}
		}
	}
	return out
}

// apiGroupOf names the API group of a group accessor.
func apiGroupOf(accessor string, special map[string]string) string {
	if g, ok := special[accessor]; ok {
		return g
	}
	g := strings.ToLower(accessor)
	switch g {
	case "apps", "autoscaling", "batch", "extensions", "policy":
		return g
	case "rbac":
		return "rbac.authorization.k8s.io"
	case "flowcontrol":
		return "flowcontrol.apiserver.k8s.io"
	}
	return g + ".k8s.io"
}

func keysOf(objs []interface{}) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		k, _ := clientgocache.MetaNamespaceKeyFunc(o)
		if p, ok := o.(*corev1.Pod); ok && p.Annotations["transformed"] != "" {
			k += "(transformed)"
		}
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func podsAsObjects(pods []*corev1.Pod) []interface{} {
	out := make([]interface{}, len(pods))
	for i, p := range pods {
		out[i] = p
	}
	return out
}

func runtimeAsObjects(objs []runtime.Object) []interface{} {
	out := make([]interface{}, len(objs))
	for i, o := range objs {
		out[i] = o
	}
	return out
}
