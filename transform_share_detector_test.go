package cache

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	clocktesting "k8s.io/utils/clock/testing"
)

// sharingTransform is the recommended transform with ShareIdenticalPodParts
// opted in.
var sharingTransform = ChainTransforms(RecommendedMemoryTransform, ShareIdenticalPodParts)

func TestTheMutationDetectorReportsNoMutationOfPodsWhoseEqualTwinsAreTransformedAndReTransformed(t *testing.T) {
	var mutations []string
	d := newCacheMutationDetector("pods", clocktesting.NewFakeClock(time.Now()), func(m string) { mutations = append(mutations, m) })
	var cached []*corev1.Pod
	for i := 0; i < 50; i++ {
		pod := distinctPod("detector", i%5)
		obj, _ := sharingTransform(pod)
		d.AddObject(obj)
		cached = append(cached, pod)
	}
	for _, pod := range cached { // a resync or relist transforms them again
		_, _ = sharingTransform(pod)
	}
	d.check()
	if len(mutations) != 0 {
		t.Fatalf("the mutation detector reported %v", mutations)
	}
}
