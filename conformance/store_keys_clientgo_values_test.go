package conformance

import (
	"fmt"
	"testing"

	kc "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cg "k8s.io/client-go/tools/cache"
)

// clientGoExplicitKeyAlias is a defined type over client-go's ExplicitKey:
// declared here, so neither library may take it for client-go's own.
type clientGoExplicitKeyAlias cg.ExplicitKey

// TestKeyAndNameFunctionsTakeClientGosValuesAsClientGoDoes pins kcache's key
// and name functions on client-go's own ExplicitKey and
// DeletedFinalStateUnknown, as a program that mixes client-go code with
// kcache's stores and queues hands them over: each answers what client-go's
// same function answers for them (MetaNamespaceKeyFunc and
// DeletionHandlingMetaNamespaceKeyFunc take the ExplicitKey as its own key;
// the name functions and MetaNamespaceIndexFunc do not).
func TestKeyAndNameFunctionsTakeClientGosValuesAsClientGoDoes(t *testing.T) {
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}
	explicit := cg.ExplicitKey("ns/a")
	inputs := []struct {
		name string
		obj  any
	}{
		{"a namespaced ExplicitKey", cg.ExplicitKey("ns/a")},
		{"a cluster-scoped ExplicitKey", cg.ExplicitKey("a")},
		{"an empty ExplicitKey", cg.ExplicitKey("")},
		{"an ExplicitKey with two slashes", cg.ExplicitKey("a/b/c")},
		{"a pointer to an ExplicitKey", &explicit},
		{"a defined type over client-go's ExplicitKey", clientGoExplicitKeyAlias("ns/a")},
		{"a tombstone of an ExplicitKey", cg.DeletedFinalStateUnknown{Key: "ns/t", Obj: cg.ExplicitKey("x")}},
		{"a tombstone of a pod", cg.DeletedFinalStateUnknown{Key: "ns/p", Obj: pod}},
		{"a plain string", "ns/a"},
	}
	type pair struct {
		name   string
		cg, kc func(any) string
	}
	show := func(v any, err error) string { return fmt.Sprintf("%v err=%v", v, err) }
	funcs := []pair{
		{"MetaNamespaceKeyFunc",
			func(o any) string { return show(cg.MetaNamespaceKeyFunc(o)) },
			func(o any) string { return show(kc.MetaNamespaceKeyFunc(o)) }},
		{"DeletionHandlingMetaNamespaceKeyFunc",
			func(o any) string { return show(cg.DeletionHandlingMetaNamespaceKeyFunc(o)) },
			func(o any) string { return show(kc.DeletionHandlingMetaNamespaceKeyFunc(o)) }},
		{"ObjectToName",
			func(o any) string { return show(cg.ObjectToName(o)) },
			func(o any) string { return show(kc.ObjectToName(o)) }},
		{"DeletionHandlingObjectToName",
			func(o any) string { return show(cg.DeletionHandlingObjectToName(o)) },
			func(o any) string { return show(kc.DeletionHandlingObjectToName(o)) }},
		{"MetaNamespaceIndexFunc",
			func(o any) string { return show(cg.MetaNamespaceIndexFunc(o)) },
			func(o any) string { return show(kc.MetaNamespaceIndexFunc(o)) }},
		{"IndexFuncToKeyFuncAdapter(MetaNamespaceIndexFunc)",
			func(o any) string { return show(cg.IndexFuncToKeyFuncAdapter(cg.MetaNamespaceIndexFunc)(o)) },
			func(o any) string { return show(kc.IndexFuncToKeyFuncAdapter(kc.MetaNamespaceIndexFunc)(o)) }},
	}
	for _, in := range inputs {
		for _, f := range funcs {
			t.Run(in.name+"/"+f.name, func(t *testing.T) {
				if got, want := f.kc(in.obj), f.cg(in.obj); got != want {
					t.Errorf("%s(%#v) = %s, client-go %s", f.name, in.obj, got, want)
				}
			})
		}
	}
}

// TestStoresFindAndDeleteByClientGosExplicitKeyAsClientGoDoes pins a store
// keyed by MetaNamespaceKeyFunc or DeletionHandlingMetaNamespaceKeyFunc
// given client-go's ExplicitKey: Get finds, and Delete removes, the object
// of that key, as client-go's store does with it.
func TestStoresFindAndDeleteByClientGosExplicitKeyAsClientGoDoes(t *testing.T) {
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}
	key := cg.ExplicitKey("ns/p")
	for _, keyFunc := range []string{"MetaNamespaceKeyFunc", "DeletionHandlingMetaNamespaceKeyFunc"} {
		t.Run(keyFunc, func(t *testing.T) {
			cgFunc, kcFunc := cg.MetaNamespaceKeyFunc, kc.MetaNamespaceKeyFunc
			if keyFunc != "MetaNamespaceKeyFunc" {
				cgFunc, kcFunc = cg.DeletionHandlingMetaNamespaceKeyFunc, kc.DeletionHandlingMetaNamespaceKeyFunc
			}
			trace := func(s interface {
				Add(any) error
				Get(any) (any, bool, error)
				Delete(any) error
				ListKeys() []string
			}) string {
				s.Add(pod)
				_, exists, err := s.Get(key)
				out := fmt.Sprintf("Get: exists=%v err=%v; ", exists, err)
				err = s.Delete(key)
				return out + fmt.Sprintf("Delete: err=%v keys=%v", err, s.ListKeys())
			}
			if got, want := trace(kc.NewStore(kcFunc)), trace(cg.NewStore(cgFunc)); got != want {
				t.Errorf("kcache: %s\nclient-go: %s", got, want)
			}
		})
	}
}
