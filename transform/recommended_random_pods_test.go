package transform_test

import (
	"reflect"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/randfill"

	"github.com/kcache-go/cache/transform"
)

// randomPods are n pods with every field filled at random (seeded), some
// left nil or empty, each round-tripped through protobuf half the time.
func randomPods(seed int64, n int) []*corev1.Pod {
	f := randfill.NewWithSeed(seed).NilChance(0.3).NumElements(0, 3)
	pods := make([]*corev1.Pod, n)
	for i := range pods {
		pod := &corev1.Pod{}
		f.Fill(pod)
		if len(pod.Spec.Containers) == 0 {
			pod.Spec.Containers = []corev1.Container{{Name: "c"}}
		}
		if i%2 == 1 {
			pod = protobufRoundTrip(pod)
		}
		pods[i] = pod
	}
	return pods
}

func TestRecommendedLeavesRandomlyFilledPodsDeepEqualAndSharingNoMutableMemory(t *testing.T) {
	for seed := int64(1); seed <= 20; seed++ {
		pods := randomPods(seed, 30)
		owner := map[uintptr]int{}
		for i, pod := range pods {
			want := pod.DeepCopy()
			want.ManagedFields = nil
			delete(want.Annotations, "kubectl.kubernetes.io/last-applied-configuration")
			for round := 0; round < 2; round++ {
				if _, err := transform.Recommended(pod); err != nil {
					t.Fatal(err)
				}
				if len(want.Annotations) == 0 {
					want.Annotations = pod.Annotations
				}
				if !reflect.DeepEqual(pod, want) || !apiequality.Semantic.DeepEqual(pod, want) {
					t.Fatalf("seed %d pod %d round %d changed:\n got %#v\nwant %#v", seed, i, round, pod, want)
				}
			}
			for _, r := range mutableMemory(reflect.ValueOf(pod), "pod", nil) {
				if strings.HasSuffix(r.what, ".loc") { // a time's *time.Location: the process's, shared by design
					continue
				}
				if j, ok := owner[r.start]; ok && j != i {
					t.Fatalf("seed %d: pods %d and %d share %s", seed, j, i, r.what)
				}
				owner[r.start] = i
			}
		}
	}
}

func TestRecommendedOnDeepCopyTwinsOfRandomPodsInParallelRacesWithNothingAndKeepsThemEqual(t *testing.T) {
	pods := randomPods(99, 40)
	twins := make([]*corev1.Pod, len(pods))
	for i, p := range pods {
		twins[i] = p.DeepCopy()
	}
	var wg sync.WaitGroup
	for _, side := range [][]*corev1.Pod{pods, twins} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, p := range side {
				_, _ = transform.Recommended(p)
			}
		}()
	}
	wg.Wait()
	for i := range pods {
		if !reflect.DeepEqual(pods[i], twins[i]) {
			t.Fatalf("pod %d and its twin differ after the transform", i)
		}
	}
}
