package transform_test

import (
	"reflect"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kcache-go/cache/transform"
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
	if _, err := transform.ShareIdenticalPodParts(cached); err != nil {
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
	_, _ = transform.ShareIdenticalPodParts(next)
	wg.Wait()
}

// podWithNonCanonicalLimits is a decoded pod whose container limits are
// written in a non-canonical form ("1024Mi", canonically "1Gi"), which
// decoding leaves without resource.Quantity's cached string.
func podWithNonCanonicalLimits(name string) *corev1.Pod {
	pod := decodedPod(name)
	pod.Spec.Containers[0].Resources.Limits = nil
	mustUnmarshal([]byte(`{"memory": "1024Mi", "cpu": "1000m"}`), &pod.Spec.Containers[0].Resources.Limits)
	return pod
}

func TestACanonicalPartStaysCanonicalAfterACachedPodSharingItIsMarshalled(t *testing.T) {
	cached := podWithNonCanonicalLimits("marshalled")
	if _, err := transform.ShareIdenticalPodParts(cached); err != nil {
		t.Fatal(err)
	}
	if _, err := cached.Marshal(); err != nil { // computes the limits' strings (on copies)
		t.Fatal(err)
	}
	next := podWithNonCanonicalLimits("after-marshal")
	if _, err := transform.ShareIdenticalPodParts(next); err != nil {
		t.Fatal(err)
	}
	if a, b := cached.Spec.Containers[0].Resources.Limits, next.Spec.Containers[0].Resources.Limits; mapID(a) != mapID(b) {
		t.Fatalf("the next pod of the template got its own limits %v, not the cached pod's %v", b, a)
	}
	if want := podWithNonCanonicalLimits("marshalled"); !reflect.DeepEqual(cached.Spec.Containers[0].Resources, want.Spec.Containers[0].Resources) {
		t.Fatal("marshalling the cached pod changed its shared limits")
	}
}
