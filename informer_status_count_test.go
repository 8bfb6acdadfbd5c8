package cache

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestTheStatusCountsAnInformersObjectsWithoutListingTheirKeys(t *testing.T) {
	inf := NewSharedIndexInformer(&ListWatch{}, &v1.Pod{}, 0, Indexers{}).(*sharedIndexInformer)
	if _, ok := inf.indexer.(interface{ count() int }); !ok {
		t.Fatalf("the informer's indexer %T has no direct count", inf.indexer)
	}
	for _, name := range []string{"a", "b", "c"} {
		if err := inf.indexer.Add(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := storedCount(inf.indexer), len(inf.indexer.ListKeys()); got != want || got != 3 {
		t.Fatalf("storedCount = %d, ListKeys has %d, want 3", got, want)
	}
}
