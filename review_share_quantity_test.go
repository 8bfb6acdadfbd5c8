package cache_test

import (
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"

	kcache "github.com/kcache-go/cache"
)

// podWithNonCanonicalSizeLimit is a decoded pod whose emptyDir size limit
// is written in a non-canonical form ("1024Mi", canonically "1Gi"), which
// decoding leaves without resource.Quantity's cached string.
func podWithNonCanonicalSizeLimit(name string) *corev1.Pod {
	pod := decodedPod(name)
	mustUnmarshal([]byte(`{"sizeLimit": "1024Mi"}`), pod.Spec.Volumes[2].EmptyDir)
	return pod
}

func TestProtobufMarshalOfACachedPodDoesNotRaceWithTheTransformOfAnotherPod(t *testing.T) {
	cached := podWithNonCanonicalSizeLimit("marshal-cached")
	if _, err := kcache.ShareIdenticalPodParts(cached); err != nil {
		t.Fatal(err)
	}
	next := podWithNonCanonicalSizeLimit("marshal-next")
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // a lister's caller sends the cached pod as protobuf
		defer wg.Done()
		if _, err := cached.Marshal(); err != nil {
			t.Error(err)
		}
	}()
	// the informer transforms a new pod of the same template meanwhile;
	// with -race, its read of the canonical size limit is reported
	_, _ = kcache.ShareIdenticalPodParts(next)
	wg.Wait()
}

func TestACanonicalPartStaysCanonicalAfterACachedPodSharingItIsMarshalled(t *testing.T) {
	cached := podWithNonCanonicalSizeLimit("marshalled")
	if _, err := kcache.ShareIdenticalPodParts(cached); err != nil {
		t.Fatal(err)
	}
	if _, err := cached.Marshal(); err != nil { // fills the size limit's cached string
		t.Fatal(err)
	}
	next := podWithNonCanonicalSizeLimit("after-marshal")
	if _, err := kcache.ShareIdenticalPodParts(next); err != nil {
		t.Fatal(err)
	}
	if a, b := cached.Spec.Volumes[2].EmptyDir, next.Spec.Volumes[2].EmptyDir; a != b {
		t.Fatalf("the next pod of the template got its own emptyDir %p (size limit %#v), not the cached pod's %p (%#v)",
			b, *b.SizeLimit, a, *a.SizeLimit)
	}
}
