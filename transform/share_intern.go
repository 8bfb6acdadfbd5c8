package transform

import (
	corev1 "k8s.io/api/core/v1"
)

// internTyped interns a string of a named string type in place, writing
// only when *s is not the canonical copy already.
func internTyped[S ~string](s *S) {
	if c := internString(string(*s)); !sameStringData(c, string(*s)) {
		*s = S(c)
	}
}

// internOwnContainer interns the strings of a container that
// ShareIdenticalPodParts leaves the pod's own: its name, image,
// termination message path and policy, pull policy, and the name, mount
// path and sub-path of every volume mount.
func internOwnContainer(c *corev1.Container) {
	internStringField(&c.Name)
	internStringField(&c.Image)
	internStringField(&c.TerminationMessagePath)
	internTyped(&c.TerminationMessagePolicy)
	internTyped(&c.ImagePullPolicy)
	for i := range c.VolumeMounts {
		m := &c.VolumeMounts[i]
		internStringField(&m.Name)
		internStringField(&m.MountPath)
		internStringField(&m.SubPath)
	}
}

// internOwnSpec interns the strings of a pod spec that pods of one
// template, node or service account have in common.
func internOwnSpec(spec *corev1.PodSpec) {
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range cs {
			internOwnContainer(&cs[i])
		}
	}
	for i := range spec.EphemeralContainers {
		internOwnContainer((*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon))
	}
	for i := range spec.Volumes {
		internStringField(&spec.Volumes[i].Name)
	}
	internStringField(&spec.NodeName)
	internStringField(&spec.ServiceAccountName)
	internStringField(&spec.DeprecatedServiceAccount)
	internStringField(&spec.SchedulerName)
	internStringField(&spec.PriorityClassName)
	internTyped(&spec.RestartPolicy)
	internTyped(&spec.DNSPolicy)
}

// internOwnContainerStatus interns the name, image, image ID and volume
// mount names and paths of a container status, and the reasons of its
// states (container IDs and times are unique per pod and left alone).
func internOwnContainerStatus(s *corev1.ContainerStatus) {
	internStringField(&s.Name)
	internStringField(&s.Image)
	internStringField(&s.ImageID)
	for _, st := range []*corev1.ContainerState{&s.State, &s.LastTerminationState} {
		if st.Waiting != nil {
			internStringField(&st.Waiting.Reason)
		}
		if st.Terminated != nil {
			internStringField(&st.Terminated.Reason)
		}
	}
	for i := range s.VolumeMounts {
		internStringField(&s.VolumeMounts[i].Name)
		internStringField(&s.VolumeMounts[i].MountPath)
	}
}

// internOwnStatus interns the strings of a pod status that many pods have
// in common: phase, QoS class, host IPs, the type, status and reason of
// every condition, and those of internOwnContainerStatus.
func internOwnStatus(status *corev1.PodStatus) {
	internTyped(&status.Phase)
	internTyped(&status.QOSClass)
	internStringField(&status.HostIP)
	for i := range status.HostIPs {
		internStringField(&status.HostIPs[i].IP)
	}
	for i := range status.Conditions {
		c := &status.Conditions[i]
		internTyped(&c.Type)
		internTyped(&c.Status)
		internStringField(&c.Reason)
	}
	for _, statuses := range [][]corev1.ContainerStatus{status.InitContainerStatuses, status.ContainerStatuses, status.EphemeralContainerStatuses} {
		for i := range statuses {
			internOwnContainerStatus(&statuses[i])
		}
	}
}
