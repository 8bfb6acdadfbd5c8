package transform_test

import (
	"reflect"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kcache-go/cache/transform"
)

// growEverySlice gives every non-empty slice reachable through exported
// fields of v one element of spare capacity, as a decoder that grows
// slices by doubling leaves many.
func growEverySlice(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			growEverySlice(v.Elem())
		}
	case reflect.Slice:
		if v.Len() > 0 && v.CanSet() {
			grown := reflect.MakeSlice(v.Type(), v.Len(), v.Len()+1)
			reflect.Copy(grown, v)
			v.Set(grown)
		}
		for i := 0; i < v.Len(); i++ {
			growEverySlice(v.Index(i))
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				growEverySlice(v.Field(i))
			}
		}
	}
}

// slicesWithSpareCapacity are the paths of the slices reachable from v
// whose capacity exceeds their length.
func slicesWithSpareCapacity(v reflect.Value, path string, out map[string]bool) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			slicesWithSpareCapacity(v.Elem(), path, out)
		}
	case reflect.Slice:
		if v.Cap() > v.Len() {
			out[path] = true
		}
		for i := 0; i < v.Len(); i++ {
			slicesWithSpareCapacity(v.Index(i), path+"[]", out)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				slicesWithSpareCapacity(v.Field(i), path+"."+v.Type().Field(i).Name, out)
			}
		}
	}
}

func TestCompactPodSlicesLeavesSpareCapacityInNoDocumentedSliceAndChangesNoContent(t *testing.T) {
	pod := decodedPod("a")
	growEverySlice(reflect.ValueOf(pod))
	if _, err := transform.CompactPodSlices(pod); err != nil {
		t.Fatal(err)
	}
	left := map[string]bool{}
	slicesWithSpareCapacity(reflect.ValueOf(pod), "pod", left)
	var got []string
	for path := range left {
		got = append(got, path)
	}
	sort.Strings(got)
	// the slices CompactPodSlices does not document: inside probes,
	// lifecycle hooks, security contexts, affinity and the DNS config, and
	// managedFields (which StripManagedFields drops in Recommended)
	want := []string{
		"pod.ObjectMeta.ManagedFields",
		"pod.ObjectMeta.ManagedFields[].FieldsV1.Raw",
		"pod.Spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution",
		"pod.Spec.Containers[].Lifecycle.PreStop.Exec.Command",
		"pod.Spec.Containers[].SecurityContext.Capabilities.Drop",
		"pod.Spec.DNSConfig.Options",
		"pod.Spec.InitContainers[].Lifecycle.PreStop.Exec.Command",
		"pod.Spec.InitContainers[].SecurityContext.Capabilities.Drop",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("slices with spare capacity left:\n%q\nwant\n%q", got, want)
	}
	if !reflect.DeepEqual(pod, decodedPod("a")) {
		t.Fatal("compacting changed the pod's content")
	}
}

func TestCompactPodSlicesWritesNothingTheSecondTime(t *testing.T) {
	pod := decodedPod("a")
	growEverySlice(reflect.ValueOf(pod))
	_, _ = transform.CompactPodSlices(pod)
	before := mutableMemory(reflect.ValueOf(pod), "pod", nil)
	_, _ = transform.CompactPodSlices(pod)
	if after := mutableMemory(reflect.ValueOf(pod), "pod", nil); !reflect.DeepEqual(after, before) {
		t.Fatal("a second application replaced slices")
	}
}

func TestCompactPodSlicesLeavesAPodShareIdenticalPodPartsTransformedAsItIs(t *testing.T) {
	a := sharedPod(t, "a")
	a.Spec.Tolerations = append(make([]corev1.Toleration, 0, 4), a.Spec.Tolerations...)
	_, _ = transform.CompactPodSlices(a)
	if cap(a.Spec.Tolerations) != 4 {
		t.Fatal("a pod ShareIdenticalPodParts transformed was compacted")
	}
}

func TestCompactPodSlicesLeavesNoSpareCapacityInTheVolumeMountsOfEphemeralContainerStatuses(t *testing.T) {
	pod := decodedPod("a")
	mounts := append(make([]corev1.VolumeMountStatus, 0, 4), corev1.VolumeMountStatus{Name: "data", MountPath: "/data"})
	pod.Status.EphemeralContainerStatuses = []corev1.ContainerStatus{{Name: "debug", VolumeMounts: mounts}}
	want := pod.DeepCopy()
	if _, err := transform.CompactPodSlices(pod); err != nil {
		t.Fatal(err)
	}
	got := pod.Status.EphemeralContainerStatuses[0].VolumeMounts
	if len(got) != cap(got) {
		t.Errorf("the ephemeral container status's volumeMounts keep length %d, capacity %d; want no spare capacity", len(got), cap(got))
	}
	if !reflect.DeepEqual(pod, want) {
		t.Fatal("compacting changed the pod's content")
	}
}
