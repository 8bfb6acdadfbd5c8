package transform_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestTransformsOfNewPodsFromManyGoroutinesDoNotRaceWithReadersAndJSONMarshalOfCachedPodsSharingTheirParts(t *testing.T) {
	cached := make([]*corev1.Pod, 4)
	snapshots := make([]*corev1.Pod, len(cached))
	for i := range cached {
		cached[i] = podWithNonCanonicalSizeLimit(fmt.Sprint("cached-", i))
		_, _ = sharingTransform(cached[i])
		snapshots[i] = cached[i].DeepCopy()
	}
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(2)
		go func(w int) { // listers' callers read and marshal the cached pods
			defer wg.Done()
			for i := 0; i < 20; i++ {
				pod := cached[(w+i)%len(cached)]
				if _, err := json.Marshal(pod); err != nil {
					t.Error(err)
				}
				_ = reflect.DeepEqual(pod, snapshots[(w+i)%len(cached)])
				copied := pod.DeepCopy() // a controller's edit of its own copy
				copied.Spec.Containers[0].Env[0].Value = "edited"
				copied.Spec.Containers[0].Resources.Limits[corev1.ResourceCPU] = copied.Spec.Containers[0].Resources.Limits[corev1.ResourceMemory]
				copied.Spec.Volumes[2].EmptyDir.Medium = corev1.StorageMediumMemory
			}
		}(w)
		go func(w int) { // the informer's transforms of new pods of the template
			defer wg.Done()
			for i := 0; i < 20; i++ {
				_, _ = sharingTransform(podWithNonCanonicalSizeLimit(fmt.Sprint("new-", w, "-", i)))
			}
		}(w)
	}
	wg.Wait()
	for i := range cached {
		if !reflect.DeepEqual(cached[i], snapshots[i]) {
			t.Fatalf("cached pod %d changed", i)
		}
	}
}
