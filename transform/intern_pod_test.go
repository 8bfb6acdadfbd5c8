package transform_test

import (
	"reflect"
	"strings"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"

	"github.com/kcache-go/cache/transform"
)

// podString is one string of the fixture pod (transformPodJSON).
type podString struct {
	name string
	of   func(*corev1.Pod) string
}

// repeatedPodStrings are strings of the fixture pod that every pod of its
// template repeats, which InternPodStrings documents as interned.
func repeatedPodStrings() []podString {
	c := func(p *corev1.Pod) *corev1.Container { return &p.Spec.Containers[0] }
	return []podString{
		{"container image", func(p *corev1.Pod) string { return c(p).Image }},
		{"container command", func(p *corev1.Pod) string { return c(p).Command[0] }},
		{"container args", func(p *corev1.Pod) string { return c(p).Args[0] }},
		{"container port name", func(p *corev1.Pod) string { return c(p).Ports[0].Name }},
		{"container port protocol", func(p *corev1.Pod) string { return string(c(p).Ports[0].Protocol) }},
		{"container envFrom config map", func(p *corev1.Pod) string { return c(p).EnvFrom[0].ConfigMapRef.Name }},
		{"container env name", func(p *corev1.Pod) string { return c(p).Env[0].Name }},
		{"container env value", func(p *corev1.Pod) string { return c(p).Env[0].Value }},
		{"container env fieldRef path", func(p *corev1.Pod) string { return c(p).Env[1].ValueFrom.FieldRef.FieldPath }},
		{"container env resourceFieldRef", func(p *corev1.Pod) string { return c(p).Env[2].ValueFrom.ResourceFieldRef.Resource }},
		{"container limits resource name", func(p *corev1.Pod) string { return resourceNameKey(c(p).Resources.Limits, "cpu") }},
		{"status allocated resource name", func(p *corev1.Pod) string {
			return resourceNameKey(p.Status.ContainerStatuses[0].AllocatedResources, "memory")
		}},
		{"container resize policy", func(p *corev1.Pod) string { return string(c(p).ResizePolicy[0].RestartPolicy) }},
		{"container mount path", func(p *corev1.Pod) string { return c(p).VolumeMounts[0].MountPath }},
		{"container liveness path", func(p *corev1.Pod) string { return c(p).LivenessProbe.HTTPGet.Path }},
		{"container preStop command", func(p *corev1.Pod) string { return c(p).Lifecycle.PreStop.Exec.Command[0] }},
		{"container dropped capability", func(p *corev1.Pod) string { return string(c(p).SecurityContext.Capabilities.Drop[0]) }},
		{"init container env value", func(p *corev1.Pod) string { return p.Spec.InitContainers[0].Env[0].Value }},
		{"ephemeral container name", func(p *corev1.Pod) string { return p.Spec.EphemeralContainers[0].Name }},
		{"ephemeral container command", func(p *corev1.Pod) string { return p.Spec.EphemeralContainers[0].Command[0] }},
		{"volume name", func(p *corev1.Pod) string { return p.Spec.Volumes[0].Name }},
		{"secret volume name", func(p *corev1.Pod) string { return p.Spec.Volumes[0].Secret.SecretName }},
		{"config map volume name", func(p *corev1.Pod) string { return p.Spec.Volumes[1].ConfigMap.Name }},
		{"downwardAPI item path", func(p *corev1.Pod) string { return p.Spec.Volumes[3].DownwardAPI.Items[0].Path }},
		{"hostPath path", func(p *corev1.Pod) string { return p.Spec.Volumes[4].HostPath.Path }},
		{"claim name", func(p *corev1.Pod) string { return p.Spec.Volumes[5].PersistentVolumeClaim.ClaimName }},
		{"projected token path", func(p *corev1.Pod) string { return p.Spec.Volumes[6].Projected.Sources[0].ServiceAccountToken.Path }},
		{"node name", func(p *corev1.Pod) string { return p.Spec.NodeName }},
		{"node selector value", func(p *corev1.Pod) string { return p.Spec.NodeSelector["kubernetes.io/os"] }},
		{"image pull secret", func(p *corev1.Pod) string { return p.Spec.ImagePullSecrets[0].Name }},
		{"affinity topology key", func(p *corev1.Pod) string {
			return p.Spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].PodAffinityTerm.TopologyKey
		}},
		{"toleration key", func(p *corev1.Pod) string { return p.Spec.Tolerations[0].Key }},
		{"toleration effect", func(p *corev1.Pod) string { return string(p.Spec.Tolerations[0].Effect) }},
		{"dns option name", func(p *corev1.Pod) string { return p.Spec.DNSConfig.Options[0].Name }},
		{"readiness gate", func(p *corev1.Pod) string { return string(p.Spec.ReadinessGates[0].ConditionType) }},
		{"spread topology key", func(p *corev1.Pod) string { return p.Spec.TopologySpreadConstraints[0].TopologyKey }},
		{"phase", func(p *corev1.Pod) string { return string(p.Status.Phase) }},
		{"host IP", func(p *corev1.Pod) string { return p.Status.HostIP }},
		{"container status name", func(p *corev1.Pod) string { return p.Status.ContainerStatuses[0].Name }},
		{"container status image ID", func(p *corev1.Pod) string { return p.Status.ContainerStatuses[0].ImageID }},
	}
}

// resourceNameKey is the key of l equal to name, as stored in l.
func resourceNameKey(l corev1.ResourceList, name string) string {
	for k := range l {
		if string(k) == name {
			return string(k)
		}
	}
	return ""
}

func sameBytes(a, b string) bool {
	return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b)
}

func internedPod(t *testing.T, name string) *corev1.Pod {
	return transformedPod(t, transform.InternPodStrings, name)
}

func TestInternPodStringsMakesTwoDecodedPodsOfOneTemplateShareTheBytesOfEveryDocumentedString(t *testing.T) {
	a, b := internedPod(t, "a"), internedPod(t, "b")
	for _, s := range repeatedPodStrings() {
		if x, y := s.of(a), s.of(b); x == "" || !sameBytes(x, y) {
			t.Errorf("%s: pods a and b hold %q and %q in different bytes", s.name, x, y)
		}
	}
	if !reflect.DeepEqual(a, decodedPod("a")) || !reflect.DeepEqual(b, decodedPod("b")) {
		t.Fatal("interning changed a pod's content")
	}
}

func TestInternPodStringsInternsEveryContainerNameButTheFirstContainersAndLeavesUniqueValuesEachPodsOwn(t *testing.T) {
	named := func(name string) *corev1.Pod {
		p := decodedPod(name)
		p.Spec.Containers = append(p.Spec.Containers, p.Spec.Containers[0])
		p.Spec.Containers[0].Name, p.Spec.Containers[1].Name = strings.Clone("web"), strings.Clone("sidecar")
		p.Spec.InitContainers[0].Name = strings.Clone("init")
		got, _ := transform.InternPodStrings(p)
		return got.(*corev1.Pod)
	}
	a, b := named("a"), named("b")
	for _, s := range []struct {
		podString
		shared bool
	}{
		{podString{"first container name (ShareIdenticalPodParts's mark)", func(p *corev1.Pod) string { return p.Spec.Containers[0].Name }}, false},
		{podString{"second container name", func(p *corev1.Pod) string { return p.Spec.Containers[1].Name }}, true},
		{podString{"init container name", func(p *corev1.Pod) string { return p.Spec.InitContainers[0].Name }}, true},
		{podString{"pod IP", func(p *corev1.Pod) string { return p.Status.PodIP }}, false},
	} {
		if x, y := s.of(a), s.of(b); x != y || sameBytes(x, y) != s.shared {
			t.Errorf("%s: pods a and b hold %q and %q, sharing their bytes %v; want equal, sharing %v", s.name, x, y, sameBytes(x, y), s.shared)
		}
	}
}

func TestShareIdenticalPodPartsAfterInternPodStringsStillSharesEveryDocumentedPart(t *testing.T) {
	chain := transform.Chain(transform.InternPodStrings, transform.ShareIdenticalPodParts)
	a, _ := chain(decodedPod("a"))
	b, _ := chain(decodedPod("b"))
	for _, part := range podSharedParts() {
		if id := part.of(a.(*corev1.Pod)); id == 0 || id != part.of(b.(*corev1.Pod)) {
			t.Errorf("%s: not shared after InternPodStrings", part.name)
		}
	}
}

func TestInternPodStringsWritesNothingToAPodShareIdenticalPodPartsTransformed(t *testing.T) {
	// the shared env of pods that went through ShareIdenticalPodParts
	// alone holds strings InternPodStrings would intern
	a, b := sharedPod(t, "a"), sharedPod(t, "b")
	before := a.Spec.Containers[0].Env[0].Value
	if !sameBytes(before, b.Spec.Containers[0].Env[0].Value) {
		t.Fatal("the env of pods a and b is not shared")
	}
	for _, fn := range []func(interface{}) (interface{}, error){transform.InternPodStrings, transform.CompactPodSlices} {
		if _, err := fn(a); err != nil {
			t.Fatal(err)
		}
	}
	if after := a.Spec.Containers[0].Env[0].Value; !sameBytes(after, before) {
		t.Fatal("InternPodStrings wrote into a part pod a shares with pod b")
	}
}

func TestInternPodStringsLeavesAPodWithoutContainersAsItIs(t *testing.T) {
	pod := decodedPod("a")
	pod.Spec.Containers = nil
	before := pod.Spec.Volumes[0].Name
	if _, err := transform.InternPodStrings(pod); err != nil {
		t.Fatal(err)
	}
	if !sameBytes(pod.Spec.Volumes[0].Name, before) {
		t.Fatal("a pod without containers was interned")
	}
}

func TestInternPodStringsTakesAPodWhoseFirstImageIsInternedForOneItTransformedAndLeavesItAsItIs(t *testing.T) {
	a, b := internedPod(t, "a"), internedPod(t, "b")
	fresh := strings.Clone(b.Spec.Containers[0].Args[0])
	b.Spec.Containers[0].Args[0] = fresh
	if _, err := transform.InternPodStrings(b); err != nil {
		t.Fatal(err)
	}
	if got := b.Spec.Containers[0].Args[0]; !sameBytes(got, fresh) || sameBytes(got, a.Spec.Containers[0].Args[0]) {
		t.Fatal("a pod InternPodStrings transformed was interned again")
	}
}
