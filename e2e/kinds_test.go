package e2e

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// kind adapts one namespaced core/v1 resource for the scenarios, so that
// every scenario runs unchanged on configmaps (served through the API
// server's watch cache) and on secrets (watch cache off: straight from etcd).
type kind struct {
	// resource is the plural resource name, e.g. "configmaps".
	resource string
	// newObject returns an empty object of the kind, to decode into and to
	// give informers as their example object.
	newObject func() runtime.Object
	// newList returns an empty list of the kind.
	newList func() runtime.Object
	// build returns an object called name carrying data.
	build func(name string, data map[string]string) runtime.Object
	// data renders an object's data canonically (sorted keys), so that two
	// objects compare by one string.
	data func(obj runtime.Object) string
}

// configMaps are served through the watch cache.
var configMaps = kind{
	resource:  "configmaps",
	newObject: func() runtime.Object { return &v1.ConfigMap{} },
	newList:   func() runtime.Object { return &v1.ConfigMapList{} },
	build: func(name string, data map[string]string) runtime.Object {
		return &v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: data}
	},
	data: func(obj runtime.Object) string { return fmt.Sprint(obj.(*v1.ConfigMap).Data) },
}

// secrets bypass the watch cache (--watch-cache-sizes=secrets#0), so their
// lists and watches go to etcd.
var secrets = kind{
	resource:  "secrets",
	newObject: func() runtime.Object { return &v1.Secret{} },
	newList:   func() runtime.Object { return &v1.SecretList{} },
	build: func(name string, data map[string]string) runtime.Object {
		s := &v1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string][]byte{}}
		for k, v := range data {
			s.Data[k] = []byte(v)
		}
		return s
	},
	data: func(obj runtime.Object) string {
		rendered := map[string]string{}
		for k, v := range obj.(*v1.Secret).Data {
			rendered[k] = string(v)
		}
		return fmt.Sprint(rendered)
	},
}

// bothKinds are the kinds every recovery scenario runs on.
var bothKinds = []kind{configMaps, secrets}

// newClient returns a clientset speaking protobuf, as controllers do, with the
// harness's raised QPS.
func newClient() (*kubernetes.Clientset, error) {
	cfg := cluster.RESTConfig()
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	return kubernetes.NewForConfig(cfg)
}

// objects reads and writes objects of one kind in one namespace through the
// core/v1 REST client, the way the generated typed clients do.
type objects struct {
	// kind is what is read and written.
	kind kind
	// rc is the core/v1 REST client.
	rc rest.Interface
	// ns is the namespace.
	ns string
}

func (o objects) create(ctx context.Context, obj runtime.Object) (runtime.Object, error) {
	out := o.kind.newObject()
	err := o.rc.Post().Namespace(o.ns).Resource(o.kind.resource).Body(obj).Do(ctx).Into(out)
	return out, err
}

func (o objects) update(ctx context.Context, obj runtime.Object) (runtime.Object, error) {
	out := o.kind.newObject()
	name := mustMeta(obj).GetName()
	err := o.rc.Put().Namespace(o.ns).Resource(o.kind.resource).Name(name).Body(obj).Do(ctx).Into(out)
	return out, err
}

func (o objects) delete(ctx context.Context, name string) error {
	return o.rc.Delete().Namespace(o.ns).Resource(o.kind.resource).Name(name).Do(ctx).Error()
}

// list lists the namespace with opts and returns the items and the list's
// resourceVersion.
func (o objects) list(ctx context.Context, opts metav1.ListOptions) ([]runtime.Object, string, error) {
	list, err := o.listObject(ctx, opts)
	if err != nil {
		return nil, "", err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, "", err
	}
	lm, err := meta.ListAccessor(list)
	if err != nil {
		return nil, "", err
	}
	return items, lm.GetResourceVersion(), nil
}

func (o objects) listObject(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	out := o.kind.newList()
	err := o.rc.Get().Namespace(o.ns).Resource(o.kind.resource).
		VersionedParams(&opts, scheme.ParameterCodec).Do(ctx).Into(out)
	return out, err
}

func (o objects) watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	opts.Watch = true
	return o.rc.Get().Namespace(o.ns).Resource(o.kind.resource).
		VersionedParams(&opts, scheme.ParameterCodec).Watch(ctx)
}

// state is what the tests compare of one object: its resourceVersion and
// its data.
type state struct {
	// rv is metadata.resourceVersion.
	rv string
	// data is the kind's canonical rendering of the object's data.
	data string
}

// snapshot maps namespace/name keys to object states.
type snapshot map[string]state

// snapshotOf renders objects (typed objects of k) into a snapshot.
func snapshotOf(k kind, items []interface{}) snapshot {
	s := make(snapshot, len(items))
	for _, item := range items {
		obj := item.(runtime.Object)
		m := mustMeta(obj)
		s[m.GetNamespace()+"/"+m.GetName()] = state{rv: m.GetResourceVersion(), data: k.data(obj)}
	}
	return s
}

// serverSnapshot lists the namespace (a consistent read) and returns its
// snapshot and the list's resourceVersion.
func (o objects) serverSnapshot(ctx context.Context) (snapshot, string, error) {
	items, rv, err := o.list(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, "", err
	}
	all := make([]interface{}, len(items))
	for i := range items {
		all[i] = items[i]
	}
	return snapshotOf(o.kind, all), rv, nil
}

// diff describes how got differs from want, or returns "" when they are
// equal. At most a few differences are listed.
func (want snapshot) diff(got snapshot) string {
	var out []string
	for key, w := range want {
		g, ok := got[key]
		switch {
		case !ok:
			out = append(out, "missing "+key)
		case g != w:
			out = append(out, fmt.Sprintf("%s: got rv %s data %.40q, want rv %s data %.40q", key, g.rv, g.data, w.rv, w.data))
		}
	}
	for key := range got {
		if _, ok := want[key]; !ok {
			out = append(out, "unexpected "+key)
		}
	}
	if len(out) == 0 {
		return ""
	}
	n := len(out)
	if n > 5 {
		out = out[:5]
	}
	return fmt.Sprintf("%d differences (of %d wanted keys), e.g. %s", n, len(want), strings.Join(out, "; "))
}

// mustMeta returns obj's metadata; every object here has it.
func mustMeta(obj runtime.Object) metav1.Object {
	m, err := meta.Accessor(obj)
	if err != nil {
		panic(err)
	}
	return m
}

// rvAtLeast reports whether resourceVersion have is at or past want. Both are
// etcd revisions, which the tests may compare.
func rvAtLeast(have, want string) bool {
	h, err1 := strconv.ParseUint(have, 10, 64)
	w, err2 := strconv.ParseUint(want, 10, 64)
	return err1 == nil && err2 == nil && h >= w
}
