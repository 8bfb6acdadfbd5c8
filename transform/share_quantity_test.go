package transform_test

import (
	"reflect"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kcache-go/cache/transform"
)

// quantityReaders read a resource.Quantity of a pod of the fixture
// template through the methods a read-only controller calls; some of them
// (AsDec, ToDec, Cmp against a Dec) convert the Quantity they are called
// on to its inf.Dec form, a write.
func quantityReaders() []struct {
	name string
	read func(*corev1.Pod)
} {
	dec := resource.MustParse("1.5")
	_ = dec.AsDec()
	return []struct {
		name string
		read func(*corev1.Pod)
	}{
		{"emptyDir sizeLimit AsDec", func(p *corev1.Pod) { _ = p.Spec.Volumes[2].EmptyDir.SizeLimit.AsDec() }},
		{"emptyDir sizeLimit Cmp with a Dec", func(p *corev1.Pod) { _ = p.Spec.Volumes[2].EmptyDir.SizeLimit.Cmp(dec) }},
		{"env resourceFieldRef divisor ToDec", func(p *corev1.Pod) {
			_ = p.Spec.Containers[0].Env[2].ValueFrom.ResourceFieldRef.Divisor.ToDec()
		}},
		{"limits memory AsDec", func(p *corev1.Pod) { _ = p.Spec.Containers[0].Resources.Limits.Memory().AsDec() }},
		{"limits entry Cmp with a Dec", func(p *corev1.Pod) {
			q := p.Spec.Containers[0].Resources.Limits[corev1.ResourceCPU]
			_ = q.Cmp(dec)
		}},
		{"pod resources limits AsDec", func(p *corev1.Pod) { _ = p.Spec.Resources.Limits.Cpu().AsDec() }},
		{"status allocatedResources AsDec", func(p *corev1.Pod) {
			_ = p.Status.ContainerStatuses[0].AllocatedResources.Memory().AsDec()
		}},
	}
}

// twoSharedPods are two decoded pods of the fixture template after
// ShareIdenticalPodParts.
func twoSharedPods(t *testing.T, name string) (*corev1.Pod, *corev1.Pod) {
	t.Helper()
	a, b := decodedPod(name+"-a"), decodedPod(name+"-b")
	for _, p := range []*corev1.Pod{a, b} {
		if _, err := transform.ShareIdenticalPodParts(p); err != nil {
			t.Fatal(err)
		}
	}
	return a, b
}

func TestReadingQuantitiesOfTwoSharedPodsFromTwoGoroutinesIsNoDataRace(t *testing.T) {
	for _, r := range quantityReaders() {
		t.Run(r.name, func(t *testing.T) {
			a, b := twoSharedPods(t, "dec-race")
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { defer wg.Done(); r.read(a) }() // with -race, a write to a part b shares is reported
			r.read(b)
			wg.Wait()
		})
	}
}

func TestReadingAQuantityOfOneSharedPodLeavesTheOtherPodsOfItsTemplateDeepEqualToWhatWasDecoded(t *testing.T) {
	for _, r := range quantityReaders() {
		t.Run(r.name, func(t *testing.T) {
			a, b := twoSharedPods(t, "dec-equal")
			r.read(a)
			if want := decodedPod("dec-equal-b"); !reflect.DeepEqual(b, want) {
				t.Fatalf("after a reader of pod a, pod b is no longer reflect.DeepEqual to itself as decoded:\n%#v\nwant\n%#v", b.Spec, want.Spec)
			}
		})
	}
}

// podWithAHugeLimit is a decoded pod whose container cpu limit does not
// fit an int64, which decoding leaves in its inf.Dec form.
func podWithAHugeLimit(name string) *corev1.Pod {
	pod := decodedPod(name)
	pod.Spec.Containers[0].Resources.Limits = nil
	mustUnmarshal([]byte(`{"cpu": "100000000000000000000000"}`), &pod.Spec.Containers[0].Resources.Limits)
	return pod
}

func TestALimitInItsDecFormIsNotSharedSoAnEditOfAReadersCopyStaysInItsPod(t *testing.T) {
	a, b := podWithAHugeLimit("huge-a"), podWithAHugeLimit("huge-b")
	for _, p := range []*corev1.Pod{a, b} {
		if _, err := transform.ShareIdenticalPodParts(p); err != nil {
			t.Fatal(err)
		}
	}
	// NB: a copy of a Quantity in its inf.Dec form shares the inf.Dec with
	// the map's value, so this edit of "its own copy" writes into pod a.
	q := a.Spec.Containers[0].Resources.Limits[corev1.ResourceCPU]
	q.Add(resource.MustParse("1"))
	if want := podWithAHugeLimit("huge-b"); !reflect.DeepEqual(b.Spec.Containers[0].Resources, want.Spec.Containers[0].Resources) {
		got := b.Spec.Containers[0].Resources.Limits[corev1.ResourceCPU]
		t.Fatalf("an edit of a copy read from pod a changed pod b's cpu limit to %s", got.String())
	}
}
