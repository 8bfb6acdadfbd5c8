package cache_test

import (
	"fmt"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgocache "k8s.io/client-go/tools/cache"

	kcache "github.com/kcache-go/cache"
)

// clientGoTombstoneAlias is a defined type over client-go's tombstone: same
// fields, but declared here, so client-go does not take it for its own.
type clientGoTombstoneAlias clientgocache.DeletedFinalStateUnknown

func TestDeletionHandlingHelpersFailWithClientGosErrorTextForNonTombstones(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}
	var typedNil *clientgocache.DeletedFinalStateUnknown
	cases := []struct {
		name string
		obj  interface{}
	}{
		{"a client-go tombstone pointer", &clientgocache.DeletedFinalStateUnknown{Key: "ns/p", Obj: pod}},
		{"a typed nil client-go tombstone pointer", typedNil},
		{"a look-alike tombstone from another package", DeletedFinalStateUnknown{Key: "ns/p", Obj: pod}},
		{"a defined type over client-go's tombstone", clientGoTombstoneAlias{Key: "ns/p", Obj: pod}},
		{"a struct with no fields", struct{}{}},
		{"an int", 3},
		{"nil", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantKey, wantErr := clientgocache.DeletionHandlingMetaNamespaceKeyFunc(tc.obj)
			gotKey, gotErr := kcache.DeletionHandlingMetaNamespaceKeyFunc(tc.obj)
			if gotKey != wantKey || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Errorf("DeletionHandlingMetaNamespaceKeyFunc = %q, %v; client-go gives %q, %v", gotKey, gotErr, wantKey, wantErr)
			}
			wantName, wantErr := clientgocache.DeletionHandlingObjectToName(tc.obj)
			gotName, gotErr := kcache.DeletionHandlingObjectToName(tc.obj)
			if gotName.String() != wantName.String() || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Errorf("DeletionHandlingObjectToName = %q, %v; client-go gives %q, %v", gotName, gotErr, wantName, wantErr)
			}
		})
	}
}

func TestTheClientGoTombstoneCheckCostsNoAllocationOnTheObjectPath(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}
	var obj interface{} = pod
	want := testing.AllocsPerRun(100, func() { _, _ = clientgocache.DeletionHandlingMetaNamespaceKeyFunc(obj) })
	got := testing.AllocsPerRun(100, func() { _, _ = kcache.DeletionHandlingMetaNamespaceKeyFunc(obj) })
	if got > want {
		t.Errorf("DeletionHandlingMetaNamespaceKeyFunc(pod) allocates %v, client-go %v", got, want)
	}
	var tomb interface{} = clientgocache.DeletedFinalStateUnknown{Key: "ns/p", Obj: pod}
	_, _ = kcache.DeletionHandlingMetaNamespaceKeyFunc(tomb) // the verdict for the type is cached
	want = testing.AllocsPerRun(100, func() { _, _ = clientgocache.DeletionHandlingMetaNamespaceKeyFunc(tomb) })
	if got := testing.AllocsPerRun(100, func() { _, _ = kcache.DeletionHandlingMetaNamespaceKeyFunc(tomb) }); got > want {
		t.Errorf("a client-go tombstone allocates %v per key once its type is known, %v in client-go", got, want)
	}
}

func TestClientGoTombstonesAreRecognisedConcurrently(t *testing.T) {
	type lookAlike struct {
		Key string
		Obj interface{}
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				key := fmt.Sprintf("ns/p%d", j)
				if got, err := kcache.DeletionHandlingMetaNamespaceKeyFunc(clientgocache.DeletedFinalStateUnknown{Key: key}); got != key || err != nil {
					t.Errorf("client-go tombstone: %q, %v", got, err)
				}
				if _, err := kcache.DeletionHandlingMetaNamespaceKeyFunc(lookAlike{Key: key}); err == nil {
					t.Error("a look-alike was taken for a tombstone")
				}
			}
		}()
	}
	wg.Wait()
}
