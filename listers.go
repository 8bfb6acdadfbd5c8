package cache

import (
	"k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
)

// AppendFunc is used to add a matching item to whatever list the caller is using
type AppendFunc func(interface{})

// ListAll lists items in the store matching the given selector, calling
// appendFn on each one. An object without metadata is an error unless the
// selector selects everything.
func ListAll(store Store, selector labels.Selector, appendFn AppendFunc) error {
	return appendMatching(store.List(), "", selector, appendFn)
}

// ListAllByNamespace lists items in the given namespace in the store matching
// the given selector, calling appendFn on each one. If a blank namespace
// (NamespaceAll) is specified, this delegates to ListAll(). The namespace
// index is used when the indexer has one; otherwise every object is
// scanned.
func ListAllByNamespace(indexer Indexer, namespace string, selector labels.Selector, appendFn AppendFunc) error {
	if namespace == metav1.NamespaceAll {
		return ListAll(indexer, selector, appendFn)
	}
	items, err := indexer.Index(NamespaceIndex, &metav1.ObjectMeta{Namespace: namespace})
	if err != nil {
		klog.TODO().Info("Listing by namespace without the namespace index; scanning every object", "namespace", namespace, "err", err)
		return appendMatching(indexer.List(), namespace, selector, appendFn)
	}
	return appendMatching(items, "", selector, appendFn)
}

// appendMatching calls appendFn on each object of items that matches
// selector and, when namespace is not empty, lies in namespace.
func appendMatching(items []interface{}, namespace string, selector labels.Selector, appendFn AppendFunc) error {
	everything := selector.Empty() && namespace == ""
	for _, obj := range items {
		if everything {
			appendFn(obj)
			continue
		}
		m, err := meta.Accessor(obj)
		if err != nil {
			return err
		}
		if namespace != "" && m.GetNamespace() != namespace {
			continue
		}
		if selector.Matches(labels.Set(m.GetLabels())) {
			appendFn(obj)
		}
	}
	return nil
}

// GenericLister is a lister skin on a generic Indexer
type GenericLister interface {
	// List will return all objects across namespaces
	List(selector labels.Selector) (ret []runtime.Object, err error)
	// Get will attempt to retrieve assuming that name==key
	Get(name string) (runtime.Object, error)
	// ByNamespace will give you a GenericNamespaceLister for one namespace
	ByNamespace(namespace string) GenericNamespaceLister
}

// GenericNamespaceLister is a lister skin on a generic Indexer
type GenericNamespaceLister interface {
	// List will return all objects in this namespace
	List(selector labels.Selector) (ret []runtime.Object, err error)
	// Get will attempt to retrieve by namespace and name
	Get(name string) (runtime.Object, error)
}

// NewGenericLister creates a new instance for the genericLister.
func NewGenericLister(indexer Indexer, resource schema.GroupResource) GenericLister {
	return &genericLister{indexer: indexer, resource: resource}
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
		return nil, errors.NewNotFound(resource, name)
	}
	return obj.(runtime.Object), nil
}
