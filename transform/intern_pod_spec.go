package transform

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// internKeysToPaths interns the key and path of every item of a secret,
// config map or projection.
func internKeysToPaths(items []corev1.KeyToPath) {
	for i := range items {
		internStringField(&items[i].Key)
		internStringField(&items[i].Path)
	}
}

// internDownwardAPIFiles interns the path, field reference and resource
// reference (not its divisor) of every downward API file.
func internDownwardAPIFiles(items []corev1.DownwardAPIVolumeFile) {
	for i := range items {
		f := &items[i]
		internStringField(&f.Path)
		if f.FieldRef != nil {
			internStringField(&f.FieldRef.APIVersion)
			internStringField(&f.FieldRef.FieldPath)
		}
		if f.ResourceFieldRef != nil {
			internStringField(&f.ResourceFieldRef.ContainerName)
			internStringField(&f.ResourceFieldRef.Resource)
		}
	}
}

// internProjections interns the names, items, audiences and paths of the
// sources of a projected volume.
func internProjections(sources []corev1.VolumeProjection) {
	for i := range sources {
		s := &sources[i]
		if s.Secret != nil {
			internStringField(&s.Secret.Name)
			internKeysToPaths(s.Secret.Items)
		}
		if s.ConfigMap != nil {
			internStringField(&s.ConfigMap.Name)
			internKeysToPaths(s.ConfigMap.Items)
		}
		if s.DownwardAPI != nil {
			internDownwardAPIFiles(s.DownwardAPI.Items)
		}
		if t := s.ServiceAccountToken; t != nil {
			internStringField(&t.Audience)
			internStringField(&t.Path)
		}
	}
}

// internVolumeSource interns the strings of a volume's source of the
// common kinds: an emptyDir's medium, a secret's or config map's name and
// items, the sources of a projected volume, a downwardAPI volume's items,
// a hostPath's path and type, a persistentVolumeClaim's claim name.
func internVolumeSource(v *corev1.VolumeSource) {
	if v.EmptyDir != nil {
		internTyped(&v.EmptyDir.Medium)
	}
	if v.Secret != nil {
		internStringField(&v.Secret.SecretName)
		internKeysToPaths(v.Secret.Items)
	}
	if v.ConfigMap != nil {
		internStringField(&v.ConfigMap.Name)
		internKeysToPaths(v.ConfigMap.Items)
	}
	if v.Projected != nil {
		internProjections(v.Projected.Sources)
	}
	if v.DownwardAPI != nil {
		internDownwardAPIFiles(v.DownwardAPI.Items)
	}
	if v.HostPath != nil {
		internStringField(&v.HostPath.Path)
		internTypedPointer(v.HostPath.Type)
	}
	if v.PersistentVolumeClaim != nil {
		internStringField(&v.PersistentVolumeClaim.ClaimName)
	}
}

// internLabelSelector interns the match labels and the keys, operators
// and values of the expressions of a label selector.
func internLabelSelector(s *metav1.LabelSelector) {
	if s == nil {
		return
	}
	internStringMap(s.MatchLabels)
	for i := range s.MatchExpressions {
		e := &s.MatchExpressions[i]
		internStringField(&e.Key)
		internTyped(&e.Operator)
		internStrings(e.Values)
	}
}

// internNodeSelectorTerm interns the keys, operators and values of a node
// selector term's expressions and field expressions.
func internNodeSelectorTerm(t *corev1.NodeSelectorTerm) {
	for _, reqs := range [][]corev1.NodeSelectorRequirement{t.MatchExpressions, t.MatchFields} {
		for i := range reqs {
			internStringField(&reqs[i].Key)
			internTyped(&reqs[i].Operator)
			internStrings(reqs[i].Values)
		}
	}
}

// internPodAffinityTerm interns the selectors, namespaces, topology key
// and label keys of a pod (anti-)affinity term.
func internPodAffinityTerm(t *corev1.PodAffinityTerm) {
	internLabelSelector(t.LabelSelector)
	internLabelSelector(t.NamespaceSelector)
	internStrings(t.Namespaces)
	internStringField(&t.TopologyKey)
	internStrings(t.MatchLabelKeys)
	internStrings(t.MismatchLabelKeys)
}

// internPodAffinity interns the terms of a pod affinity or anti-affinity
// (their fields are the same).
func internPodAffinity(required []corev1.PodAffinityTerm, preferred []corev1.WeightedPodAffinityTerm) {
	for i := range required {
		internPodAffinityTerm(&required[i])
	}
	for i := range preferred {
		internPodAffinityTerm(&preferred[i].PodAffinityTerm)
	}
}

// internAffinity interns the strings of the node, pod and pod
// anti-affinity terms of a pod.
func internAffinity(a *corev1.Affinity) {
	if a == nil {
		return
	}
	if n := a.NodeAffinity; n != nil {
		if r := n.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
			for i := range r.NodeSelectorTerms {
				internNodeSelectorTerm(&r.NodeSelectorTerms[i])
			}
		}
		for i := range n.PreferredDuringSchedulingIgnoredDuringExecution {
			internNodeSelectorTerm(&n.PreferredDuringSchedulingIgnoredDuringExecution[i].Preference)
		}
	}
	if p := a.PodAffinity; p != nil {
		internPodAffinity(p.RequiredDuringSchedulingIgnoredDuringExecution, p.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	if p := a.PodAntiAffinity; p != nil {
		internPodAffinity(p.RequiredDuringSchedulingIgnoredDuringExecution, p.PreferredDuringSchedulingIgnoredDuringExecution)
	}
}

// internSchedulingParts interns the strings of the parts of a pod spec
// that place it: nodeSelector, tolerations, topologySpreadConstraints,
// affinity and readinessGates.
func internSchedulingParts(spec *corev1.PodSpec) {
	internStringMap(spec.NodeSelector)
	for i := range spec.Tolerations {
		t := &spec.Tolerations[i]
		internStringField(&t.Key)
		internTyped(&t.Operator)
		internStringField(&t.Value)
		internTyped(&t.Effect)
	}
	for i := range spec.TopologySpreadConstraints {
		c := &spec.TopologySpreadConstraints[i]
		internStringField(&c.TopologyKey)
		internTyped(&c.WhenUnsatisfiable)
		internLabelSelector(c.LabelSelector)
		internTypedPointer(c.NodeAffinityPolicy)
		internTypedPointer(c.NodeTaintsPolicy)
		internStrings(c.MatchLabelKeys)
	}
	internAffinity(spec.Affinity)
	for i := range spec.ReadinessGates {
		internTyped(&spec.ReadinessGates[i].ConditionType)
	}
}

// internPodSpec is InternPodStrings's edit of a pod spec (its doc lists
// the strings).
func internPodSpec(spec *corev1.PodSpec) {
	internUnmarkedSpec(spec)
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range cs {
			internContainerParts(&cs[i])
		}
	}
	for i := range spec.EphemeralContainers {
		e := &spec.EphemeralContainers[i]
		internContainerParts((*corev1.Container)(&e.EphemeralContainerCommon))
		internStringField(&e.TargetContainerName)
	}
	for i := range spec.Volumes {
		internVolumeSource(&spec.Volumes[i].VolumeSource)
	}
	internStringField(&spec.Subdomain)
	internTypedPointer(spec.PreemptionPolicy)
	for i := range spec.ImagePullSecrets {
		internStringField(&spec.ImagePullSecrets[i].Name)
	}
	internSchedulingParts(spec)
	if d := spec.DNSConfig; d != nil {
		internStrings(d.Nameservers)
		internStrings(d.Searches)
		for i := range d.Options {
			internStringField(&d.Options[i].Name)
			if d.Options[i].Value != nil {
				internStringField(d.Options[i].Value)
			}
		}
	}
}
