package transform

import (
	corev1 "k8s.io/api/core/v1"
)

// compactSlice gives *p a backing array of exactly its length when it has
// spare capacity (decoded slices often do: the decoder grows them by
// doubling), writing *p only then. nil and empty slices stay as they are.
func compactSlice[S ~[]E, E any](p *S) {
	if s := *p; len(s) > 0 && cap(s) > len(s) {
		c := make(S, len(s))
		copy(c, s)
		*p = c
	}
}

// compactPod compacts the slices of a pod that stay its own and often have
// spare capacity once decoded: the containers, init containers and
// volumes of its spec and every container's volumeMounts; the conditions,
// host and pod IPs and container statuses of its status and every
// container status's volumeMounts.
func compactPod(pod *corev1.Pod) {
	spec, status := &pod.Spec, &pod.Status
	compactSlice(&spec.InitContainers)
	compactSlice(&spec.Containers)
	compactSlice(&spec.Volumes)
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range cs {
			compactSlice(&cs[i].VolumeMounts)
		}
	}
	compactSlice(&status.Conditions)
	compactSlice(&status.HostIPs)
	compactSlice(&status.PodIPs)
	compactSlice(&status.InitContainerStatuses)
	compactSlice(&status.ContainerStatuses)
	for _, statuses := range [][]corev1.ContainerStatus{status.InitContainerStatuses, status.ContainerStatuses} {
		for i := range statuses {
			compactSlice(&statuses[i].VolumeMounts)
		}
	}
}
