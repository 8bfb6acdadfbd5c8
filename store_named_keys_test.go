package cache

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestRewritingAStoredPodWithTheLibrarysKeyAndNamespaceFunctionsDoesNotAllocate(t *testing.T) {
	cases := []struct {
		name    string
		keyFunc KeyFunc
	}{
		{name: "MetaNamespaceKeyFunc", keyFunc: MetaNamespaceKeyFunc},
		{name: "DeletionHandlingMetaNamespaceKeyFunc", keyFunc: DeletionHandlingMetaNamespaceKeyFunc},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			idx := NewIndexer(tc.keyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc})
			pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web-0", ResourceVersion: "7"}}
			if err := idx.Add(pod); err != nil {
				t.Fatal(err)
			}
			allocs := testing.AllocsPerRun(100, func() {
				_ = idx.Update(pod)
				_, _, _ = idx.Get(pod)
			})
			if allocs != 0 {
				t.Fatalf("%v allocations per Update and Get, want 0", allocs)
			}
			if keys := idx.ListKeys(); len(keys) != 1 || keys[0] != "team-a/web-0" {
				t.Fatalf("keys %v, want [team-a/web-0]", keys)
			}
		})
	}
}

func TestTheStoreRecognisesOnlyTheLibrarysOwnKeyFunctions(t *testing.T) {
	wrapped := func(obj interface{}) (string, error) { return MetaNamespaceKeyFunc(obj) }
	cases := []struct {
		name string
		fn   KeyFunc
		want keyFuncKind
	}{
		{name: "MetaNamespaceKeyFunc", fn: MetaNamespaceKeyFunc, want: keyFuncMetaNamespace},
		{name: "DeletionHandlingMetaNamespaceKeyFunc", fn: DeletionHandlingMetaNamespaceKeyFunc, want: keyFuncDeletionHandling},
		{name: "a wrapper", fn: wrapped, want: keyFuncOther},
		{name: "nil", fn: nil, want: keyFuncOther},
	}
	for _, tc := range cases {
		if got := keyFuncKindOf(tc.fn); got != tc.want {
			t.Errorf("%s: kind %d, want %d", tc.name, got, tc.want)
		}
	}
	if !isMetaNamespaceIndexFunc(MetaNamespaceIndexFunc) || isMetaNamespaceIndexFunc(func(interface{}) ([]string, error) { return nil, nil }) {
		t.Error("MetaNamespaceIndexFunc not told apart from another IndexFunc")
	}
}
