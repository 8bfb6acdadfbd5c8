package clientgo

import (
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/informers/internalinterfaces"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clientgocache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/watchlist"

	"github.com/kcache-go/cache/fastlw"
	"github.com/kcache-go/cache/internal/privatefield"
)

// WithPlainListWatch is a SharedInformerOption for
// NewSharedInformerFactoryWithOptions that turns fastlw off: every informer
// of the factory lists and watches through the typed clients, with the
// ListerWatcher client-go's generated constructor builds (the plain path).
// Without it the factory's informers of the typed accessors
// (factory.Core().V1().Pods(), ForResource) use a fastlw ListerWatcher when
// the client is a *kubernetes.Clientset (see fastListerWatcher). Passed to
// client-go's own factory it changes nothing.
func WithPlainListWatch() informers.SharedInformerOption {
	// NB: client-go's options are functions of an unexported type, so this
	// one is a real client-go option whose only trace is a resync entry for
	// a type no informer has; the factory reads that entry back.
	return informers.WithCustomResyncConfig(map[metav1.Object]time.Duration{&plainListWatchMarker{}: 0})
}

// plainListWatchMarker is the type WithPlainListWatch's resync entry is for.
type plainListWatchMarker struct{ metav1.ObjectMeta }

// WithConcurrentTransform is a SharedInformerOption for
// NewSharedInformerFactoryWithOptions by which the caller declares that the
// factory's transform (informers.WithTransform) is safe for concurrent use,
// idempotent, and returns any error again when applied a second time (as
// the transforms of github.com/kcache-go/cache/transform are). The
// factory's fastlw informers then also run it on fastlw's decode workers
// (fastlw.Config.Transform), in parallel, before the Reflector sees the
// objects, which lowers the peak heap of a sync; the informer keeps it as
// its transform too, so what the cache stores and the errors are as without
// the option; an informer whose own transform is set afterwards
// (SetTransform) ends the early pass, so that its transform alone applies,
// as in client-go. Without it the transform runs only in the informer's queue,
// as in client-go. It changes nothing for informers on the plain path, nor
// passed to client-go's own factory.
func WithConcurrentTransform() informers.SharedInformerOption {
	return informers.WithCustomResyncConfig(map[metav1.Object]time.Duration{&concurrentTransformMarker{}: 0})
}

// concurrentTransformMarker is the type WithConcurrentTransform's resync
// entry is for.
type concurrentTransformMarker struct{ metav1.ObjectMeta }

// earlyFactoryTransform is the early pass (fastlw.Config.Transform) of a
// factory's transform given WithConcurrentTransform: the transform while it
// is the informer's, nothing once the informer's transform was set to
// another (SetTransform after the factory's), so that the cache stores what
// the informer's transform alone makes of each object. replaced guards
// itself; handedOut is set by the factory's InformerFor alone, before the
// informer is handed out.
type earlyFactoryTransform struct {
	transform clientgocache.TransformFunc
	replaced  atomic.Bool
	// handedOut is set when a fastlw ListerWatcher took the early pass.
	handedOut bool
}

// pass returns the early pass; nil for a nil e (no early pass).
func (e *earlyFactoryTransform) pass() clientgocache.TransformFunc {
	if e == nil {
		return nil
	}
	return func(obj interface{}) (interface{}, error) {
		if e.replaced.Load() {
			return obj, nil
		}
		return e.transform(obj)
	}
}

// watch turns the early pass off at the next SetTransform on inf, the view
// the factory built (after it set its own transform); when no fastlw
// ListerWatcher took the early pass (the plain path, client-go's informer,
// a view newFunc returned), and for a nil e, it does nothing.
func (e *earlyFactoryTransform) watch(inf clientgocache.SharedIndexInformer) {
	if e == nil || !e.handedOut {
		return
	}
	if v, ok := viewOf(inf); ok {
		v.transformSet = func() { e.replaced.Store(true) }
	}
}

// wantsPlainListWatch reports whether settings, client-go's factory the
// options were applied to, was given WithPlainListWatch; false when its
// resync table cannot be read.
func wantsPlainListWatch(settings informers.SharedInformerFactory) bool {
	return hasOptionMarker(settings, &plainListWatchMarker{})
}

// hasOptionMarker reports whether settings' resync table has an entry for
// marker's type (an option of this package was given); false when the
// table cannot be read.
func hasOptionMarker(settings informers.SharedInformerFactory, marker metav1.Object) bool {
	custom, ok := privatefield.Read[map[reflect.Type]time.Duration](settings, "customResync")
	if !ok {
		return false
	}
	_, ok = custom[reflect.TypeOf(marker)]
	return ok
}

// fastListerWatcher returns the fastlw ListerWatcher that sends exactly the
// requests of plain, the ListerWatcher of built, which newFunc built with
// the factory's client; ok is false, and plain is to be used, unless all of
// these hold:
//   - fastlw is on (no WithPlainListWatch);
//   - newFunc is a typed accessor's constructor from client-go's generated
//     informers (k8s.io/client-go/informers/...(*xInformer).defaultInformer),
//     which lists client.<Group><Version>().<Resource>(namespace) with the
//     factory's namespace and tweak, and records the resource in built;
//   - the client is a *kubernetes.Clientset (a fake clientset, or any other
//     kubernetes.Interface, keeps its own typed clients), whose group client
//     has a REST client, and whose typed client's protobuf preference can be
//     read;
//   - plain does not refuse WatchList semantics.
//
// The fastlw ListerWatcher goes through the group's REST client with the
// typed client's Accept preference and timeout, the resource's namespace
// (none for a cluster-scoped one) and the factory's tweak, and decodes with
// the clientset's serializer; early, when not nil, is its Config.Transform.
func (f *kcacheTypedFactory) fastListerWatcher(newFunc internalinterfaces.NewInformerFunc, built clientgocache.SharedIndexInformer, plain clientgocache.ListerWatcher, early clientgocache.TransformFunc) (clientgocache.ListerWatcher, bool) {
	cs, isClientset := f.client.(*kubernetes.Clientset)
	if f.plainListWatch || !isClientset || !isGeneratedConstructor(newFunc) ||
		watchlist.DoesClientNotSupportWatchListSemantics(plain) {
		return nil, false
	}
	id, ok := privatefield.Read[clientgocache.InformerNameAndResource](built, "identifier")
	if !ok {
		return nil, false
	}
	gvr := id.GroupVersionResource()
	client, typed, namespaced, ok := clientsetClients(cs, gvr, f.scopeNamespace)
	prefersProtobuf, readOK := privatefield.Read[bool](typed, "prefersProtobuf")
	if !ok || !readOK {
		return nil, false
	}
	namespace := ""
	if namespaced {
		namespace = f.scopeNamespace
	}
	return fastlw.New(fastlw.Config{
		Client:             client,
		Resource:           gvr.Resource,
		Namespace:          namespace,
		OptionsModifier:    f.scopeTweak,
		Serializer:         fastlw.ClientsetSerializer(),
		PreferProtobuf:     prefersProtobuf,
		TimeoutFromOptions: true,
		Transform:          early,
	}), true
}

// isGeneratedConstructor reports whether newFunc is the method value
// (*xInformer).defaultInformer of a package of k8s.io/client-go/informers.
func isGeneratedConstructor(newFunc internalinterfaces.NewInformerFunc) bool {
	if newFunc == nil {
		return false
	}
	fn := runtime.FuncForPC(reflect.ValueOf(newFunc).Pointer())
	if fn == nil {
		return false
	}
	name := fn.Name()
	return strings.HasPrefix(name, "k8s.io/client-go/informers/") && strings.HasSuffix(name, "Informer).defaultInformer-fm")
}

// clientsetClients finds gvr's clients in cs: the REST client of the group
// version (cs.<Group><Version>().RESTClient(), the group named after the
// first DNS label of its name, "core" for the core group) and the typed
// client (.<Resource>(namespace) when namespaced, .<Resource>() when not),
// names compared case-insensitively; typed is a pointer to its struct. ok
// is false when one is missing or the REST client is nil.
func clientsetClients(cs *kubernetes.Clientset, gvr schema.GroupVersionResource, namespace string) (client rest.Interface, typed any, namespaced, ok bool) {
	group, _, _ := strings.Cut(gvr.Group, ".")
	if group == "" {
		group = "core"
	}
	groupClient, ok := callAccessor(reflect.ValueOf(cs), group+gvr.Version)
	if !ok {
		return nil, nil, false, false
	}
	withREST, ok := groupClient.Interface().(interface{ RESTClient() rest.Interface })
	if !ok {
		return nil, nil, false, false
	}
	client = withREST.RESTClient()
	if rv := reflect.ValueOf(client); !rv.IsValid() || (rv.Kind() == reflect.Pointer && rv.IsNil()) {
		return nil, nil, false, false
	}
	typedClient, namespaced, ok := typedResourceClient(groupClient, gvr.Resource, namespace)
	if !ok {
		return nil, nil, false, false
	}
	return client, typedClient.Interface(), namespaced, true
}

// typedResourceClient calls groupClient's method named resource (ignoring
// case): with namespace when it takes a string (namespaced is true then),
// with nothing when it takes nothing. ok is false when there is no such
// method or it returns nil.
func typedResourceClient(groupClient reflect.Value, resource, namespace string) (typed reflect.Value, namespaced, ok bool) {
	if groupClient.Kind() == reflect.Interface {
		groupClient = groupClient.Elem()
	}
	m := groupClient.MethodByName(methodNamed(groupClient.Type(), resource))
	if !m.IsValid() || m.Type().NumOut() != 1 {
		return reflect.Value{}, false, false
	}
	var out reflect.Value
	switch {
	case m.Type().NumIn() == 0:
		out = m.Call(nil)[0]
	case m.Type().NumIn() == 1 && m.Type().In(0).Kind() == reflect.String:
		out = m.Call([]reflect.Value{reflect.ValueOf(namespace)})[0]
		namespaced = true
	default:
		return reflect.Value{}, false, false
	}
	if out.Kind() == reflect.Interface {
		out = out.Elem()
	}
	if !out.IsValid() || out.Kind() != reflect.Pointer || out.IsNil() {
		return reflect.Value{}, false, false
	}
	return out, namespaced, true
}

// methodNamed returns the name of t's method whose name equals name
// ignoring case, or "".
func methodNamed(t reflect.Type, name string) string {
	for i := 0; i < t.NumMethod(); i++ {
		if strings.EqualFold(t.Method(i).Name, name) {
			return t.Method(i).Name
		}
	}
	return ""
}
