package transform_test

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
	"unsafe"
	"weak"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kcache-go/cache/transform"
)

// sharedPart is one part of a pod that ShareIdenticalPodParts shares,
// read as the identity of its backing object (0 when nil or empty).
type sharedPart struct {
	name string
	of   func(*corev1.Pod) uintptr
}

func ptrID[T any](p *T) uintptr { return uintptr(reflect.ValueOf(p).UnsafePointer()) }
func sliceID[E any](s []E) uintptr {
	if len(s) == 0 {
		return 0
	}
	return uintptr(reflect.ValueOf(s).UnsafePointer())
}
func mapID[M ~map[K]V, K comparable, V any](m M) uintptr {
	return uintptr(reflect.ValueOf(m).UnsafePointer())
}

// containerParts are the shared parts of the container that c picks.
func containerParts(where string, c func(*corev1.Pod) *corev1.Container) []sharedPart {
	return []sharedPart{
		{where + " command", func(p *corev1.Pod) uintptr { return sliceID(c(p).Command) }},
		{where + " args", func(p *corev1.Pod) uintptr { return sliceID(c(p).Args) }},
		{where + " ports", func(p *corev1.Pod) uintptr { return sliceID(c(p).Ports) }},
		{where + " envFrom", func(p *corev1.Pod) uintptr { return sliceID(c(p).EnvFrom) }},
		{where + " limits", func(p *corev1.Pod) uintptr { return mapID(c(p).Resources.Limits) }},
		{where + " requests", func(p *corev1.Pod) uintptr { return mapID(c(p).Resources.Requests) }},
		{where + " resizePolicy", func(p *corev1.Pod) uintptr { return sliceID(c(p).ResizePolicy) }},
		{where + " livenessProbe", func(p *corev1.Pod) uintptr { return ptrID(c(p).LivenessProbe) }},
		{where + " readinessProbe", func(p *corev1.Pod) uintptr { return ptrID(c(p).ReadinessProbe) }},
		{where + " startupProbe", func(p *corev1.Pod) uintptr { return ptrID(c(p).StartupProbe) }},
		{where + " lifecycle", func(p *corev1.Pod) uintptr { return ptrID(c(p).Lifecycle) }},
		{where + " securityContext", func(p *corev1.Pod) uintptr { return ptrID(c(p).SecurityContext) }},
	}
}

// podSharedParts are every part of the fixture pod (transformPodJSON) that
// ShareIdenticalPodParts documents as shared.
func podSharedParts() []sharedPart {
	parts := containerParts("container", func(p *corev1.Pod) *corev1.Container { return &p.Spec.Containers[0] })
	parts = append(parts, containerParts("init container", func(p *corev1.Pod) *corev1.Container { return &p.Spec.InitContainers[0] })...)
	parts = append(parts,
		sharedPart{"ephemeral container command", func(p *corev1.Pod) uintptr { return sliceID(p.Spec.EphemeralContainers[0].Command) }},
		sharedPart{"ephemeral container env", func(p *corev1.Pod) uintptr { return sliceID(p.Spec.EphemeralContainers[0].Env) }},
		sharedPart{"secret volume", func(p *corev1.Pod) uintptr { return ptrID(p.Spec.Volumes[0].Secret) }},
		sharedPart{"configMap volume", func(p *corev1.Pod) uintptr { return ptrID(p.Spec.Volumes[1].ConfigMap) }},
		sharedPart{"downwardAPI volume", func(p *corev1.Pod) uintptr { return ptrID(p.Spec.Volumes[3].DownwardAPI) }},
		sharedPart{"hostPath volume", func(p *corev1.Pod) uintptr { return ptrID(p.Spec.Volumes[4].HostPath) }},
		sharedPart{"persistentVolumeClaim volume", func(p *corev1.Pod) uintptr { return ptrID(p.Spec.Volumes[5].PersistentVolumeClaim) }},
		sharedPart{"projected volume", func(p *corev1.Pod) uintptr { return ptrID(p.Spec.Volumes[6].Projected) }},
		sharedPart{"nodeSelector", func(p *corev1.Pod) uintptr { return mapID(p.Spec.NodeSelector) }},
		sharedPart{"pod securityContext", func(p *corev1.Pod) uintptr { return ptrID(p.Spec.SecurityContext) }},
		sharedPart{"imagePullSecrets", func(p *corev1.Pod) uintptr { return sliceID(p.Spec.ImagePullSecrets) }},
		sharedPart{"affinity", func(p *corev1.Pod) uintptr { return ptrID(p.Spec.Affinity) }},
		sharedPart{"tolerations", func(p *corev1.Pod) uintptr { return sliceID(p.Spec.Tolerations) }},
		sharedPart{"dnsConfig", func(p *corev1.Pod) uintptr { return ptrID(p.Spec.DNSConfig) }},
		sharedPart{"readinessGates", func(p *corev1.Pod) uintptr { return sliceID(p.Spec.ReadinessGates) }},
		sharedPart{"overhead", func(p *corev1.Pod) uintptr { return mapID(p.Spec.Overhead) }},
		sharedPart{"topologySpreadConstraints", func(p *corev1.Pod) uintptr { return sliceID(p.Spec.TopologySpreadConstraints) }},
		sharedPart{"pod resources", func(p *corev1.Pod) uintptr { return ptrID(p.Spec.Resources) }},
		sharedPart{"status allocatedResources", func(p *corev1.Pod) uintptr { return mapID(p.Status.ContainerStatuses[0].AllocatedResources) }},
		sharedPart{"status resources", func(p *corev1.Pod) uintptr { return ptrID(p.Status.ContainerStatuses[0].Resources) }},
	)
	return parts
}

// transformedPod is a decoded fixture pod after fn.
func transformedPod(t *testing.T, fn func(interface{}) (interface{}, error), name string) *corev1.Pod {
	t.Helper()
	got, err := fn(decodedPod(name))
	if err != nil {
		t.Fatal(err)
	}
	return got.(*corev1.Pod)
}

// sharedPod is a decoded fixture pod after ShareIdenticalPodParts.
func sharedPod(t *testing.T, name string) *corev1.Pod {
	return transformedPod(t, transform.ShareIdenticalPodParts, name)
}

func TestShareIdenticalPodPartsMakesTwoDecodedPodsOfOneTemplateShareEveryDocumentedPart(t *testing.T) {
	a, b := sharedPod(t, "a"), sharedPod(t, "b")
	for _, part := range podSharedParts() {
		if id := part.of(a); id == 0 || id != part.of(b) {
			t.Errorf("%s: pod a has %#x, pod b %#x; want one shared, non-nil part", part.name, id, part.of(b))
		}
	}
	if !reflect.DeepEqual(a, decodedPod("a")) || !reflect.DeepEqual(b, decodedPod("b")) {
		t.Fatal("sharing changed a pod's content")
	}
	if &a.Spec.Containers[0].VolumeMounts[0] == &b.Spec.Containers[0].VolumeMounts[0] {
		t.Fatal("the volumeMounts, which differ per pod, are shared")
	}
}

// pinnedParts are the parts of the fixture pod that hold a
// resource.Quantity outside a map (a resourceFieldRef's divisor in env, an
// emptyDir's sizeLimit), which ShareIdenticalPodParts leaves each pod's
// own.
func pinnedParts() []sharedPart {
	return []sharedPart{
		{"container env", func(p *corev1.Pod) uintptr { return sliceID(p.Spec.Containers[0].Env) }},
		{"init container env", func(p *corev1.Pod) uintptr { return sliceID(p.Spec.InitContainers[0].Env) }},
		{"emptyDir volume", func(p *corev1.Pod) uintptr { return ptrID(p.Spec.Volumes[2].EmptyDir) }},
	}
}

func TestShareIdenticalPodPartsLeavesPartsWithAQuantityOutsideAMapEachPodsOwnWithTheirStringsInterned(t *testing.T) {
	a, b := sharedPod(t, "a"), sharedPod(t, "b")
	for _, part := range pinnedParts() {
		if id := part.of(a); id == 0 || id == part.of(b) {
			t.Errorf("%s: pod a has %#x, pod b %#x; want each its own", part.name, id, part.of(b))
		}
	}
	ea, eb := a.Spec.Containers[0].Env, b.Spec.Containers[0].Env
	strs := []struct{ x, y string }{
		{ea[0].Name, eb[0].Name}, {ea[0].Value, eb[0].Value},
		{ea[1].ValueFrom.FieldRef.FieldPath, eb[1].ValueFrom.FieldRef.FieldPath},
		{ea[2].ValueFrom.ResourceFieldRef.Resource, eb[2].ValueFrom.ResourceFieldRef.Resource},
	}
	for _, s := range strs {
		if unsafe.StringData(s.x) != unsafe.StringData(s.y) {
			t.Errorf("%q of pod a's env and of pod b's are not one interned copy", s.x)
		}
	}
	if !reflect.DeepEqual(a, decodedPod("a")) {
		t.Fatal("interning changed the pod's content")
	}
}

func TestShareIdenticalPodPartsNeverSharesUnequalParts(t *testing.T) {
	cases := []struct {
		name   string
		edit   func(*corev1.Pod)
		differ func(a, b *corev1.Pod) bool
	}{
		{"one quantity of the limits differs", func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Limits[corev1.ResourceMemory] = resource.MustParse("1025Mi")
		}, func(a, b *corev1.Pod) bool {
			return mapID(a.Spec.Containers[0].Resources.Limits) != mapID(b.Spec.Containers[0].Resources.Limits)
		}},
		{"one env value differs", func(p *corev1.Pod) { p.Spec.Containers[0].Env[0].Value = "staging" },
			func(a, b *corev1.Pod) bool {
				return sliceID(a.Spec.Containers[0].Env) != sliceID(b.Spec.Containers[0].Env)
			}},
		{"an empty node selector, not a nil one", func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{} },
			func(a, b *corev1.Pod) bool { return b.Spec.NodeSelector != nil && len(b.Spec.NodeSelector) == 0 }},
		{"a nil node selector, not an empty one", func(p *corev1.Pod) { p.Spec.NodeSelector = nil },
			func(a, b *corev1.Pod) bool { return b.Spec.NodeSelector == nil }},
		{"empty args, not nil ones", func(p *corev1.Pod) { p.Spec.Containers[0].Args = []string{} },
			func(a, b *corev1.Pod) bool { return b.Spec.Containers[0].Args != nil }},
		{"a probe period differs", func(p *corev1.Pod) { p.Spec.Containers[0].LivenessProbe.PeriodSeconds = 11 },
			func(a, b *corev1.Pod) bool {
				return a.Spec.Containers[0].LivenessProbe != b.Spec.Containers[0].LivenessProbe
			}},
		{"a toleration without seconds", func(p *corev1.Pod) { p.Spec.Tolerations[0].TolerationSeconds = nil },
			func(a, b *corev1.Pod) bool { return sliceID(a.Spec.Tolerations) != sliceID(b.Spec.Tolerations) }},
		{"an emptyDir without a size limit", func(p *corev1.Pod) { p.Spec.Volumes[2].EmptyDir.SizeLimit = nil },
			func(a, b *corev1.Pod) bool { return a.Spec.Volumes[2].EmptyDir != b.Spec.Volumes[2].EmptyDir }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := sharedPod(t, "a")
			b := decodedPod("b")
			tc.edit(b)
			want := b.DeepCopy()
			if _, err := transform.ShareIdenticalPodParts(b); err != nil {
				t.Fatal(err)
			}
			if !tc.differ(a, b) {
				t.Fatal("the unequal part is shared with the other pod's")
			}
			if !reflect.DeepEqual(b, want) {
				t.Fatalf("the pod changed:\n%#v\nwant\n%#v", b, want)
			}
		})
	}
}

// sharedOnce shares a pod whose env is its own, and returns a weak
// pointer to the env's canonical copy.
func sharedOnce(t *testing.T) weak.Pointer[corev1.EnvVar] {
	pod := decodedPod("collect")
	pod.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "ONLY_HERE", Value: fmt.Sprintf("%p", pod)}}
	_, _ = transform.ShareIdenticalPodParts(pod)
	again := decodedPod("collect-again")
	again.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "ONLY_HERE", Value: pod.Spec.Containers[0].Env[0].Value}}
	_, _ = transform.ShareIdenticalPodParts(again)
	if &again.Spec.Containers[0].Env[0] != &pod.Spec.Containers[0].Env[0] {
		t.Fatal("the second pod does not share the first one's env")
	}
	return weak.Make(&pod.Spec.Containers[0].Env[0])
}

func TestCanonicalPodPartsThatNoPodReferencesAnyMoreAreCollected(t *testing.T) {
	if !collectedByGC(sharedOnce(t)) {
		t.Fatal("the canonical env survived garbage collection with no pod left")
	}
}

func TestShareIdenticalPodPartsFromSeveralGoroutinesGivesEveryPodTheSameParts(t *testing.T) {
	defer goleak.VerifyNone(t)
	pods := transformedConcurrently(8, "concurrent-", transform.ShareIdenticalPodParts)
	for _, part := range podSharedParts() {
		for _, pod := range pods[1:] {
			if part.of(pod) != part.of(pods[0]) {
				t.Errorf("%s: %s does not share %s's", part.name, pod.Name, pods[0].Name)
			}
		}
	}
}

func TestApplyingShareIdenticalPodPartsAgainWritesNothingWhileAnotherGoroutineReadsThePod(t *testing.T) {
	pod := sharedPod(t, "again")
	want := pod.DeepCopy()
	ids := make([]uintptr, 0, len(podSharedParts()))
	for _, part := range podSharedParts() {
		ids = append(ids, part.of(pod))
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // a lister's caller: with -race, any write below is reported
		defer wg.Done()
		_ = reflect.DeepEqual(pod, want)
	}()
	_, _ = transform.ShareIdenticalPodParts(pod)
	wg.Wait()
	for i, part := range podSharedParts() {
		if part.of(pod) != ids[i] {
			t.Errorf("%s was replaced by the second application", part.name)
		}
	}
}

func TestShareIdenticalPodPartsLeavesEveryOtherObjectUnchanged(t *testing.T) {
	for _, kind := range transformKinds() {
		t.Run(kind.name, func(t *testing.T) {
			got, err := transform.ShareIdenticalPodParts(kind.build())
			if err != nil {
				t.Fatal(err)
			}
			if want := kind.build(); !reflect.DeepEqual(got, want) {
				t.Fatalf("got %#v, want %#v", got, want)
			}
		})
	}
}

func TestShareIdenticalPodPartsGivesThePodsOwnSlicesWithSpareCapacityExactlyTheirLength(t *testing.T) {
	pod := decodedPod("compact")
	pod.Status.Conditions = append(make([]corev1.PodCondition, 0, 8), corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue})
	pod.Spec.Volumes = append(make([]corev1.Volume, 0, 16), pod.Spec.Volumes...)
	want := pod.DeepCopy()
	got, _ := transform.ShareIdenticalPodParts(pod)
	p := got.(*corev1.Pod)
	if c := p.Status.Conditions; cap(c) != len(c) {
		t.Errorf("conditions have capacity %d for length %d", cap(c), len(c))
	}
	if v := p.Spec.Volumes; cap(v) != len(v) {
		t.Errorf("volumes have capacity %d for length %d", cap(v), len(v))
	}
	if !reflect.DeepEqual(p, want) {
		t.Fatalf("compacting changed the pod:\n%#v\nwant\n%#v", p, want)
	}
	volumes := &p.Spec.Volumes[0]
	_, _ = transform.ShareIdenticalPodParts(p)
	if &p.Spec.Volumes[0] != volumes {
		t.Fatal("a second application copied the compacted volumes again")
	}
}

func TestShareIdenticalPodPartsInternsTheStringsOfThePodsOwnParts(t *testing.T) {
	a, b := sharedPod(t, "a"), sharedPod(t, "b")
	strs := []struct {
		name string
		of   func(*corev1.Pod) string
	}{
		{"ephemeral container name", func(p *corev1.Pod) string { return p.Spec.EphemeralContainers[0].Name }},
		{"container image", func(p *corev1.Pod) string { return p.Spec.Containers[0].Image }},
		{"volumeMount mountPath", func(p *corev1.Pod) string { return p.Spec.Containers[0].VolumeMounts[0].MountPath }},
		{"volume name", func(p *corev1.Pod) string { return p.Spec.Volumes[0].Name }},
		{"nodeName", func(p *corev1.Pod) string { return p.Spec.NodeName }},
		{"hostIP", func(p *corev1.Pod) string { return p.Status.HostIP }},
		{"phase", func(p *corev1.Pod) string { return string(p.Status.Phase) }},
		{"container status image", func(p *corev1.Pod) string { return p.Status.ContainerStatuses[0].Image }},
		{"container status imageID", func(p *corev1.Pod) string { return p.Status.ContainerStatuses[0].ImageID }},
	}
	for _, s := range strs {
		if x, y := s.of(a), s.of(b); x == "" || unsafe.StringData(x) != unsafe.StringData(y) {
			t.Errorf("%s: %q of pod a and %q of pod b are not one interned copy", s.name, x, y)
		}
	}
	if x, y := a.Status.ContainerStatuses[0].ContainerID, b.Status.ContainerStatuses[0].ContainerID; unsafe.StringData(x) == unsafe.StringData(y) {
		t.Error("the per-pod container IDs share their bytes")
	}
}
