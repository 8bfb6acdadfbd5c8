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
// ShareIdenticalPodParts leaves the pod's own, but its name (see
// internOwnSpec): its image, termination message path and policy, pull
// policy, and the name, mount path and sub-path of every volume mount.
func internOwnContainer(c *corev1.Container) {
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
// template, node or service account have in common, and that
// ShareIdenticalPodParts leaves the pod's own: internUnmarkedSpec's and
// the name of the first container, ShareIdenticalPodParts's mark of a pod
// it transformed (podPartsShared).
func internOwnSpec(spec *corev1.PodSpec) {
	if len(spec.Containers) > 0 {
		internStringField(&spec.Containers[0].Name)
	}
	internUnmarkedSpec(spec)
}

// internUnmarkedSpec is internOwnSpec without the first container's name:
// of every container (init and ephemeral ones included) the strings of
// internOwnContainer and, but for the first container, its name; every
// volume's name; the node and service account names, scheduler, priority
// class, restart and DNS policies.
func internUnmarkedSpec(spec *corev1.PodSpec) {
	for i := range spec.InitContainers {
		internStringField(&spec.InitContainers[i].Name)
		internOwnContainer(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		if i > 0 {
			internStringField(&spec.Containers[i].Name)
		}
		internOwnContainer(&spec.Containers[i])
	}
	for i := range spec.EphemeralContainers {
		c := (*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon)
		internStringField(&c.Name)
		internOwnContainer(c)
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
// mount names, paths and recursive read-only modes of a container status,
// and the reasons of its states and the message of a waiting one
// (container IDs, times and termination messages are unique per pod and
// left alone).
func internOwnContainerStatus(s *corev1.ContainerStatus) {
	internStringField(&s.Name)
	internStringField(&s.Image)
	internStringField(&s.ImageID)
	for _, st := range []*corev1.ContainerState{&s.State, &s.LastTerminationState} {
		if st.Waiting != nil {
			internStringField(&st.Waiting.Reason)
			internStringField(&st.Waiting.Message)
		}
		if st.Terminated != nil {
			internStringField(&st.Terminated.Reason)
		}
	}
	for i := range s.VolumeMounts {
		internStringField(&s.VolumeMounts[i].Name)
		internStringField(&s.VolumeMounts[i].MountPath)
		internTypedPointer(s.VolumeMounts[i].RecursiveReadOnly)
	}
}

// internOwnStatus interns the strings of a pod status that many pods have
// in common: phase, QoS class, reason, message, nominated node name, host
// IPs, the type, status, reason and message of every condition, and those
// of internOwnContainerStatus.
func internOwnStatus(status *corev1.PodStatus) {
	internTyped(&status.Phase)
	internTyped(&status.QOSClass)
	internStringField(&status.Reason)
	internStringField(&status.Message)
	internStringField(&status.NominatedNodeName)
	internStringField(&status.HostIP)
	for i := range status.HostIPs {
		internStringField(&status.HostIPs[i].IP)
	}
	for i := range status.Conditions {
		c := &status.Conditions[i]
		internTyped(&c.Type)
		internTyped(&c.Status)
		internStringField(&c.Reason)
		internStringField(&c.Message)
	}
	for _, statuses := range [][]corev1.ContainerStatus{status.InitContainerStatuses, status.ContainerStatuses, status.EphemeralContainerStatuses} {
		for i := range statuses {
			internOwnContainerStatus(&statuses[i])
		}
	}
}
