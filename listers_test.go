package cache

import (
	"sort"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func labelledPod(ns, name string, lbls map[string]string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls}}
}

func names(objs []interface{}) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.(*v1.Pod).Name)
	}
	sort.Strings(out)
	return out
}

func TestListAllByNamespaceFiltersByNamespaceAndSelector(t *testing.T) {
	pods := []*v1.Pod{
		labelledPod("a", "p1", map[string]string{"app": "web"}),
		labelledPod("a", "p2", map[string]string{"app": "db"}),
		labelledPod("b", "p3", map[string]string{"app": "web"}),
	}
	withIndex := NewIndexer(MetaNamespaceKeyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc})
	withoutIndex := NewIndexer(MetaNamespaceKeyFunc, Indexers{})
	for _, p := range pods {
		mustNoErr(t, withIndex.Add(p))
		mustNoErr(t, withoutIndex.Add(p))
	}
	web := labels.SelectorFromSet(labels.Set{"app": "web"})
	tests := []struct {
		name      string
		namespace string
		selector  labels.Selector
		want      []string
	}{
		{name: "all namespaces, everything", selector: labels.Everything(), want: []string{"p1", "p2", "p3"}},
		{name: "all namespaces, by label", selector: web, want: []string{"p1", "p3"}},
		{name: "one namespace, everything", namespace: "a", selector: labels.Everything(), want: []string{"p1", "p2"}},
		{name: "one namespace, by label", namespace: "a", selector: web, want: []string{"p1"}},
		{name: "empty namespace", namespace: "zz", selector: labels.Everything(), want: nil},
	}
	for _, tt := range tests {
		for _, store := range []struct {
			name    string
			indexer Indexer
		}{{"with namespace index", withIndex}, {"without namespace index", withoutIndex}} {
			t.Run(tt.name+"/"+store.name, func(t *testing.T) {
				var got []interface{}
				err := ListAllByNamespace(store.indexer, tt.namespace, tt.selector, func(o interface{}) { got = append(got, o) })
				mustNoErr(t, err)
				if g, w := names(got), tt.want; len(g) != len(w) || (len(g) > 0 && !equalStrings(g, w)) {
					t.Fatalf("got %v, want %v", g, w)
				}
			})
		}
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestListAllNeedsMetadataOnlyToFilter(t *testing.T) {
	store := NewStore(func(o interface{}) (string, error) { return "k", nil })
	mustNoErr(t, store.Add(5))
	if err := ListAll(store, labels.Everything(), func(interface{}) {}); err != nil {
		t.Fatalf("selecting everything needs no metadata: %v", err)
	}
	if err := ListAll(store, labels.SelectorFromSet(labels.Set{"a": "b"}), func(interface{}) {}); err == nil {
		t.Fatalf("filtering an object without metadata must fail")
	}
}

func TestGenericListerGetsByKeyAndReportsNotFound(t *testing.T) {
	indexer := NewIndexer(MetaNamespaceKeyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc})
	mustNoErr(t, indexer.Add(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}))
	mustNoErr(t, indexer.Add(labelledPod("a", "p", nil)))
	lister := NewGenericLister(indexer, schema.GroupResource{Resource: "pods"})
	tests := []struct {
		name      string
		get       func() error
		wantFound bool
	}{
		{name: "cluster-scoped by name", get: func() error { _, err := lister.Get("n1"); return err }, wantFound: true},
		{name: "namespaced by key", get: func() error { _, err := lister.Get("a/p"); return err }, wantFound: true},
		{name: "namespaced through ByNamespace", get: func() error { _, err := lister.ByNamespace("a").Get("p"); return err }, wantFound: true},
		{name: "missing object", get: func() error { _, err := lister.ByNamespace("a").Get("zz"); return err }},
		{name: "empty namespace never finds cluster-scoped objects", get: func() error { _, err := lister.ByNamespace("").Get("n1"); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.get()
			if tt.wantFound && err != nil {
				t.Fatalf("err = %v", err)
			}
			if !tt.wantFound && !apierrors.IsNotFound(err) {
				t.Fatalf("err = %v, want NotFound", err)
			}
		})
	}
	all, err := lister.List(labels.Everything())
	if err != nil || len(all) != 2 {
		t.Fatalf("List = %d objects, %v", len(all), err)
	}
	inA, err := lister.ByNamespace("a").List(labels.Everything())
	if err != nil || len(inA) != 1 {
		t.Fatalf("ByNamespace(a).List = %d objects, %v", len(inA), err)
	}
}
