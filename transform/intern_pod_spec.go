package transform

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// volumeItems calls keys with the name and items of the secret and the
// config map a volume source refers to, and files with the items of its
// downward API source, for the volume itself and for every source of a
// projected one: the walk that interning and compacting share.
func volumeItems(v *corev1.VolumeSource, keys func(name *string, items *[]corev1.KeyToPath), files func(*[]corev1.DownwardAPIVolumeFile)) {
	if s := v.Secret; s != nil {
		keys(&s.SecretName, &s.Items)
	}
	if c := v.ConfigMap; c != nil {
		keys(&c.Name, &c.Items)
	}
	if d := v.DownwardAPI; d != nil {
		files(&d.Items)
	}
	if v.Projected == nil {
		return
	}
	for i := range v.Projected.Sources {
		p := &v.Projected.Sources[i]
		if p.DownwardAPI != nil {
			files(&p.DownwardAPI.Items)
		}
		if p.Secret != nil {
			keys(&p.Secret.Name, &p.Secret.Items)
		}
		if p.ConfigMap != nil {
			keys(&p.ConfigMap.Name, &p.ConfigMap.Items)
		}
	}
}

// internVolumeItems interns the name of a secret or config map and the
// key and path of every item.
func internVolumeItems(name *string, items *[]corev1.KeyToPath) {
	internStringField(name)
	for i := range *items {
		internStringFields(&(*items)[i].Key, &(*items)[i].Path)
	}
}

// internDownwardAPIFiles interns the path, field reference and resource
// reference of every downward API file.
func internDownwardAPIFiles(items *[]corev1.DownwardAPIVolumeFile) {
	for i := range *items {
		f := &(*items)[i]
		internStringField(&f.Path)
		internFieldRefs(f.FieldRef, f.ResourceFieldRef)
	}
}

// internVolumeSource interns the strings of a volume's source of the
// common kinds: an emptyDir's medium, the names and items of secrets and
// config maps and the items of downward API sources (volumeItems), a
// service account token's audience and path, a hostPath's path and type,
// a persistentVolumeClaim's claim name.
func internVolumeSource(v *corev1.VolumeSource) {
	volumeItems(v, internVolumeItems, internDownwardAPIFiles)
	if v.EmptyDir != nil {
		internTyped(&v.EmptyDir.Medium)
	}
	if v.Projected != nil {
		for i := range v.Projected.Sources {
			if t := v.Projected.Sources[i].ServiceAccountToken; t != nil {
				internStringFields(&t.Audience, &t.Path)
			}
		}
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
		internTyped(&t.Operator)
		internTyped(&t.Effect)
		internStringFields(&t.Key, &t.Value)
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
