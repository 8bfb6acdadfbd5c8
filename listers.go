package cache

import (
	"k8s.io/klog/v2"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// appendMatching calls appendFn on each object of items that matches
// selector and, when namespace is not empty, lies in namespace. Objects are
// only inspected when there is something to filter on.
func appendMatching(items []interface{}, namespace string, selector labels.Selector, appendFn AppendFunc) error {
	if namespace == "" && selector.Empty() {
		for _, obj := range items {
			appendFn(obj)
		}
		return nil
	}
	for _, obj := range items {
		matched, err := matches(obj, namespace, selector)
		if err != nil {
			return err
		}
		if matched {
			appendFn(obj)
		}
	}
	return nil
}

// matches reports whether obj's labels match selector and, when namespace is
// not empty, obj lies in namespace. An object without metadata is an error.
func matches(obj interface{}, namespace string, selector labels.Selector) (bool, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return false, err
	}
	inNamespace := namespace == "" || m.GetNamespace() == namespace
	return inNamespace && selector.Matches(labels.Set(m.GetLabels())), nil
}

// NewGenericLister returns a lister of the objects of resource held in
// indexer; resource only names the resource in NotFound errors.
func NewGenericLister(indexer Indexer, resource schema.GroupResource) GenericLister {
	return &genericLister{indexer: indexer, resource: resource}
}

// GenericLister reads runtime.Objects of one resource out of an Indexer.
type GenericLister interface {
	// ByNamespace narrows the lister to one namespace.
	ByNamespace(namespace string) GenericNamespaceLister
	// Get looks name up as a storage key.
	Get(name string) (runtime.Object, error)
	// List returns the objects of every namespace that match selector.
	List(selector labels.Selector) (ret []runtime.Object, err error)
}

// GenericNamespaceLister reads runtime.Objects of one resource and one
// namespace out of an Indexer.
type GenericNamespaceLister interface {
	// Get looks up the object of that namespace with the given name.
	Get(name string) (runtime.Object, error)
	// List returns the objects of the namespace that match selector.
	List(selector labels.Selector) (ret []runtime.Object, err error)
}

// AppendFunc receives each object a listing selects.
type AppendFunc func(interface{})

// ListAll lists items in the store matching the given selector, calling
// appendFn on each one. With labels.Nothing() it returns nil at once,
// reading nothing. An object without metadata is an error unless the
// selector selects everything.
func ListAll(store Store, selector labels.Selector, appendFn AppendFunc) error {
	if selectsNothing(selector) {
		return nil
	}
	return appendMatching(store.List(), "", selector, appendFn)
}

// selectsNothing reports whether selector is labels.Nothing(), for which
// the listing functions return at once without reading the store.
func selectsNothing(selector labels.Selector) bool {
	// NB: the dynamic types differ for every other selector, so the
	// comparison never panics on a selector of a non-comparable type.
	return selector == labels.Nothing()
}

// ListAllByNamespace lists items in the given namespace in the store matching
// the given selector, calling appendFn on each one. If a blank namespace
// (NamespaceAll) is specified, this delegates to ListAll(). With
// labels.Nothing() it returns nil at once, reading nothing. The namespace
// index is used when the indexer has one; otherwise a warning is logged
// (klog, level zero) and every object is scanned.
func ListAllByNamespace(indexer Indexer, namespace string, selector labels.Selector, appendFn AppendFunc) error {
	switch {
	case selectsNothing(selector):
		return nil
	case namespace == metav1.NamespaceAll:
		return ListAll(indexer, selector, appendFn)
	}
	inNamespace, indexErr := indexer.Index(NamespaceIndex, &metav1.ObjectMeta{Namespace: namespace})
	if indexErr == nil {
		return appendMatching(inNamespace, "", selector, appendFn)
	}
	klog.TODO().Info("Warning: can not retrieve list of objects using index", "err", indexErr)
	return appendMatching(indexer.List(), namespace, selector, appendFn)
}

// genericLister lists runtime.Objects of one resource from an Indexer.
type genericLister struct {
	// indexer is the cache read from.
	indexer Indexer
	// resource names the resource in NotFound errors.
	resource schema.GroupResource
}

// List returns every object matching selector.
func (l *genericLister) List(selector labels.Selector) ([]runtime.Object, error) {
	var objects []runtime.Object
	err := ListAll(l.indexer, selector, func(obj interface{}) {
		objects = append(objects, obj.(runtime.Object))
	})
	return objects, err
}

// ByNamespace returns a lister restricted to namespace.
func (l *genericLister) ByNamespace(namespace string) GenericNamespaceLister {
	return &genericNamespaceLister{indexer: l.indexer, namespace: namespace, resource: l.resource}
}

// Get returns the object stored under the key name, or a NotFound error.
func (l *genericLister) Get(name string) (runtime.Object, error) {
	return getRuntimeObject(l.indexer, name, name, l.resource)
}

// genericNamespaceLister lists runtime.Objects of one resource in one
// namespace from an Indexer.
type genericNamespaceLister struct {
	// indexer is the cache read from.
	indexer Indexer
	// namespace restricts every answer.
	namespace string
	// resource names the resource in NotFound errors.
	resource schema.GroupResource
}

// List returns every object of the namespace matching selector.
func (l *genericNamespaceLister) List(selector labels.Selector) ([]runtime.Object, error) {
	var objects []runtime.Object
	err := ListAllByNamespace(l.indexer, l.namespace, selector, func(obj interface{}) {
		objects = append(objects, obj.(runtime.Object))
	})
	return objects, err
}

// Get returns the named object of the namespace, or a NotFound error. The
// key is always "namespace/name", so with an empty namespace it finds no
// cluster-scoped object (as in client-go).
func (l *genericNamespaceLister) Get(name string) (runtime.Object, error) {
	return getRuntimeObject(l.indexer, l.namespace+"/"+name, name, l.resource)
}

// getRuntimeObject looks key up in indexer; a missing object is a NotFound
// error for name of resource.
func getRuntimeObject(indexer Indexer, key, name string, resource schema.GroupResource) (runtime.Object, error) {
	obj, exists, err := indexer.GetByKey(key)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, apierrors.NewNotFound(resource, name)
	}
	return obj.(runtime.Object), nil
}
