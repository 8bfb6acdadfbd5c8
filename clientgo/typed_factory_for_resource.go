package clientgo

import (
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	clientgocache "k8s.io/client-go/tools/cache"
)

// ForResource returns the generic informer of resource: the same kcache
// informer the typed accessor (factory.<Group>().<Version>().<Resource>())
// gives, with a cache.GenericLister on its indexer. A resource this factory
// does not serve is handed to client-go's factory, which gives its own
// answer (its "no informer found" error, or a client-go informer for a
// group added after this package).
func (f *kcacheTypedFactory) ForResource(resource schema.GroupVersionResource) (informers.GenericInformer, error) {
	// NB: the accessor walk below is lenient (case, first DNS label only),
	// so client-go decides first which resources exist: a factory of its
	// own, thrown away (the informer it builds is never run), refuses
	// "apps.example.com/v1 deployments" or "core/v1 pods" with its error
	// and without this factory building an informer.
	if _, err := informers.NewSharedInformerFactory(f.client, 0).ForResource(resource); err != nil {
		return nil, err
	}
	if typed, ok := f.typedInformer(resource); ok {
		inf := typed.Informer()
		return genericInformer{inf, clientgocache.NewGenericLister(inf.GetIndexer(), resource.GroupResource())}, nil
	}
	return f.SharedInformerFactory.ForResource(resource)
}

// typedInformer finds the typed informer accessor of resource by walking
// this factory's accessors: the group accessor named after the group's first
// DNS label ("Core" for the core group), the version accessor named after
// the version, the resource accessor named after the resource, all compared
// case-insensitively.
func (f *kcacheTypedFactory) typedInformer(resource schema.GroupVersionResource) (interface {
	Informer() clientgocache.SharedIndexInformer
}, bool) {
	group, _, _ := strings.Cut(resource.Group, ".")
	if group == "" {
		group = "core"
	}
	v := reflect.ValueOf(f)
	for _, name := range []string{group, resource.Version, resource.Resource} {
		var ok bool
		if v, ok = callAccessor(v, name); !ok {
			return nil, false
		}
	}
	typed, ok := v.Interface().(interface {
		Informer() clientgocache.SharedIndexInformer
	})
	return typed, ok
}

// callAccessor calls the method of v whose name equals name ignoring case,
// takes no arguments and returns one non-nil value.
func callAccessor(v reflect.Value, name string) (reflect.Value, bool) {
	if v.Kind() == reflect.Interface {
		v = v.Elem() // NB: a concrete type's method types include the receiver
	}
	t := v.Type()
	for i := 0; i < t.NumMethod(); i++ {
		m := t.Method(i)
		if !strings.EqualFold(m.Name, name) {
			continue
		}
		if m.Type.NumIn() != 1 || m.Type.NumOut() != 1 { // receiver only
			return reflect.Value{}, false
		}
		out := v.Method(i).Call(nil)[0]
		if out.Kind() == reflect.Interface && out.IsNil() {
			return reflect.Value{}, false
		}
		return out, true
	}
	return reflect.Value{}, false
}

// genericInformer pairs an informer with its generic lister. Immutable.
type genericInformer struct {
	informer clientgocache.SharedIndexInformer
	lister   clientgocache.GenericLister
}

func (g genericInformer) Informer() clientgocache.SharedIndexInformer { return g.informer }
func (g genericInformer) Lister() clientgocache.GenericLister         { return g.lister }
