package cache_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgocache "k8s.io/client-go/tools/cache"

	kcache "github.com/kcache-go/cache"
)

// DeletedFinalStateUnknown here is a look-alike: it has the shape of a tombstone but lives in another
// package, so it must not be taken for one.
type DeletedFinalStateUnknown struct {
	Key string
	Obj interface{}
}

func TestDeletionHandlingHelpersRecogniseClientGoTombstonesAsClientGoDoes(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}
	cases := []struct {
		name string
		obj  interface{}
	}{
		{"a kcache tombstone", kcache.DeletedFinalStateUnknown{Key: "ns/p", Obj: pod}},
		{"a client-go tombstone", clientgocache.DeletedFinalStateUnknown{Key: "ns/p", Obj: pod}},
		{"a client-go tombstone of a cluster-scoped object", clientgocache.DeletedFinalStateUnknown{Key: "node-1"}},
		{"a client-go tombstone with a malformed key", clientgocache.DeletedFinalStateUnknown{Key: "a/b/c"}},
		{"a client-go tombstone pointer", &clientgocache.DeletedFinalStateUnknown{Key: "ns/p", Obj: pod}},
		{"a look-alike tombstone from another package", DeletedFinalStateUnknown{Key: "ns/p", Obj: pod}},
		{"an object", pod},
		{"an explicit key", kcache.ExplicitKey("ns/x")},
		{"a string", "ns/p"},
		{"nil", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// client-go's answer for its own tombstones is the reference;
			// kcache tombstones are the same value under kcache's type.
			ref := tc.obj
			if own, ok := tc.obj.(kcache.DeletedFinalStateUnknown); ok {
				ref = clientgocache.DeletedFinalStateUnknown{Key: own.Key, Obj: own.Obj}
			}
			if own, ok := tc.obj.(kcache.ExplicitKey); ok {
				ref = clientgocache.ExplicitKey(own)
			}
			wantKey, wantErr := clientgocache.DeletionHandlingMetaNamespaceKeyFunc(ref)
			gotKey, gotErr := kcache.DeletionHandlingMetaNamespaceKeyFunc(tc.obj)
			if gotKey != wantKey || (gotErr == nil) != (wantErr == nil) {
				t.Errorf("DeletionHandlingMetaNamespaceKeyFunc = %q, %v; client-go gives %q, %v", gotKey, gotErr, wantKey, wantErr)
			}
			wantName, wantErr := clientgocache.DeletionHandlingObjectToName(ref)
			gotName, gotErr := kcache.DeletionHandlingObjectToName(tc.obj)
			if gotName.String() != wantName.String() || (gotErr == nil) != (wantErr == nil) {
				t.Errorf("DeletionHandlingObjectToName = %q, %v; client-go gives %q, %v", gotName, gotErr, wantName, wantErr)
			}
		})
	}
}

func TestAnInformerIndexerDeletesByAClientGoTombstone(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}
	indexer := kcache.NewIndexer(kcache.DeletionHandlingMetaNamespaceKeyFunc, kcache.Indexers{})
	if err := indexer.Add(pod); err != nil {
		t.Fatal(err)
	}
	if err := indexer.Delete(clientgocache.DeletedFinalStateUnknown{Key: "ns/p", Obj: pod}); err != nil {
		t.Fatalf("Delete(client-go tombstone) = %v", err)
	}
	if keys := indexer.ListKeys(); len(keys) != 0 {
		t.Errorf("keys after delete = %v, want none", keys)
	}
}
