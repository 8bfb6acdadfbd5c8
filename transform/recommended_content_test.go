package transform_test

import (
	"fmt"
	"reflect"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kcache-go/cache/transform"
)

// protobufRoundTrip is pod encoded and decoded again with its protobuf
// encoding, as an informer using protobuf decodes it.
func protobufRoundTrip(pod *corev1.Pod) *corev1.Pod {
	data, err := pod.Marshal()
	if err != nil {
		panic(err)
	}
	decoded := &corev1.Pod{}
	if err := decoded.Unmarshal(data); err != nil {
		panic(err)
	}
	return decoded
}

// protobufDecodedPod is decodedPod decoded from protobuf.
func protobufDecodedPod(name string) *corev1.Pod { return protobufRoundTrip(decodedPod(name)) }

// podWithEveryContainerKind is a decoded pod given init and ephemeral
// containers, empty (not nil) spec slices and maps, nil ones, and
// quantities whose string form is cached and not.
func podWithEveryContainerKind(name string) *corev1.Pod {
	pod := decodedPod(name)
	c := pod.Spec.Containers[0]
	c.Env = append(make([]corev1.EnvVar, 0, 8), c.Env...)
	c.Args = append(make([]string, 0, 4), "--a", "--b")
	cached := resource.MustParse("250m")
	_ = cached.String()
	c.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: cached, corev1.ResourceMemory: resource.MustParse("1.5Gi")}
	c.Resources.Limits = corev1.ResourceList{}
	pod.Spec.InitContainers = append(make([]corev1.Container, 0, 4), *c.DeepCopy())
	pod.Spec.InitContainers[0].Name = "init"
	pod.Spec.EphemeralContainers = append(make([]corev1.EphemeralContainer, 0, 2),
		corev1.EphemeralContainer{EphemeralContainerCommon: corev1.EphemeralContainerCommon(*c.DeepCopy())})
	pod.Spec.EphemeralContainers[0].Name = "debug"
	pod.Spec.Containers = append(pod.Spec.Containers, c)
	pod.Spec.Containers[len(pod.Spec.Containers)-1].Name = "second"
	pod.Spec.NodeSelector = map[string]string{}
	pod.Spec.Tolerations = make([]corev1.Toleration, 0, 3)
	pod.Spec.ImagePullSecrets = nil
	pod.Status.Conditions = make([]corev1.PodCondition, 0, 2)
	return pod
}

func TestRecommendedLeavesEveryDecodedPodShapeDeepEqualToWhatItWasAndIsIdempotent(t *testing.T) {
	shapes := []struct {
		name  string
		build func(string) *corev1.Pod
	}{
		{"a JSON-decoded pod", decodedPod},
		{"a protobuf-decoded pod", protobufDecodedPod},
		{"a pod with init and ephemeral containers, empty and nil slices and maps, cached quantities", podWithEveryContainerKind},
		{"a protobuf round trip of that pod", func(n string) *corev1.Pod { return protobufRoundTrip(podWithEveryContainerKind(n)) }},
		{"a pod without containers", func(n string) *corev1.Pod {
			p := decodedPod(n)
			p.Spec.Containers = []corev1.Container{}
			return p
		}},
	}
	for _, shape := range shapes {
		t.Run(shape.name, func(t *testing.T) {
			for i := 0; i < 3; i++ { // later pods of one template meet interned strings
				pod := shape.build(fmt.Sprintf("p%d", i))
				before := pod.DeepCopy()
				for round := 0; round < 2; round++ {
					got, err := transform.Recommended(pod)
					if err != nil || got != interface{}(pod) {
						t.Fatalf("Recommended returned %p, %v; want the pod itself and no error", got, err)
					}
					want := before.DeepCopy()
					want.ManagedFields = nil
					delete(want.Annotations, "kubectl.kubernetes.io/last-applied-configuration")
					if len(want.Annotations) == 0 && len(before.Annotations) > 0 {
						want.Annotations = pod.Annotations
					}
					if !reflect.DeepEqual(pod, want) || !apiequality.Semantic.DeepEqual(pod, want) {
						t.Fatalf("round %d: the pod changed:\n got %#v\nwant %#v", round, pod.Spec, want.Spec)
					}
				}
			}
		})
	}
}

func TestRecommendedOnManyGoroutinesTransformingPodsOfOneTemplateRacesWithNothing(t *testing.T) {
	const goroutines, pods = 8, 20
	var wg sync.WaitGroup
	results := make([][]*corev1.Pod, goroutines)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < pods; i++ {
				build := decodedPod
				if i%2 == 1 {
					build = protobufDecodedPod
				}
				pod := build(fmt.Sprintf("p%d-%d", g, i))
				if i%3 == 0 {
					pod = podWithEveryContainerKind(pod.Name)
				}
				_, _ = transform.Recommended(pod)
				_, _ = transform.Recommended(pod)
				results[g] = append(results[g], pod)
			}
		}()
	}
	wg.Wait()
	var all []*corev1.Pod
	for _, r := range results {
		all = append(all, r...)
	}
	var ranges []memoryRange
	owner := map[uintptr]int{}
	for i, p := range all {
		for _, r := range mutableMemory(reflect.ValueOf(p), "pod", nil) {
			ranges = append(ranges, r)
			if j, ok := owner[r.start]; ok && j != i {
				t.Fatalf("pods %d and %d share %s", j, i, r.what)
			}
			owner[r.start] = i
		}
	}
	if len(ranges) == 0 {
		t.Fatal("no memory walked")
	}
}

func TestShareIdenticalPodPartsChainedAfterRecommendedSharesEveryDocumentedPartOfJSONAndProtobufPods(t *testing.T) {
	chain := transform.Chain(transform.Recommended, transform.ShareIdenticalPodParts)
	for name, build := range map[string]func(string) *corev1.Pod{"JSON": decodedPod, "protobuf": protobufDecodedPod} {
		t.Run(name, func(t *testing.T) {
			a, _ := chain(build("ra-" + name))
			b, _ := chain(build("rb-" + name))
			again, _ := chain(a) // a resync transforms a cached pod again
			if again != a {
				t.Fatal("the chain did not return the pod itself")
			}
			for _, part := range podSharedParts() {
				if id := part.of(a.(*corev1.Pod)); id == 0 || id != part.of(b.(*corev1.Pod)) {
					t.Errorf("%s: not shared after Recommended", part.name)
				}
			}
		})
	}
}
