package transform

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kcache-go/cache"
)

// compactContainerParts compacts the slices of a container that
// ShareIdenticalPodParts shares (and compactPod therefore leaves alone):
// command, args, ports, envFrom, env, resize policies, resource claims and
// volume devices.
func compactContainerParts(c *corev1.Container) {
	compactSlice(&c.Command)
	compactSlice(&c.Args)
	compactSlice(&c.Ports)
	compactSlice(&c.EnvFrom)
	compactSlice(&c.Env)
	compactSlice(&c.ResizePolicy)
	compactSlice(&c.Resources.Claims)
	compactSlice(&c.VolumeDevices)
}

// compactVolumeItems compacts the items of a secret or config map.
func compactVolumeItems(_ *string, items *[]corev1.KeyToPath) { compactSlice(items) }

// compactVolumeSources compacts the sources of projected volumes and the
// items of every secret, config map and downward API source (volumeItems).
func compactVolumeSources(volumes []corev1.Volume) {
	for i := range volumes {
		v := &volumes[i].VolumeSource
		if v.Projected != nil {
			compactSlice(&v.Projected.Sources)
		}
		volumeItems(v, compactVolumeItems, compactSlice[[]corev1.DownwardAPIVolumeFile])
	}
}

// compactPodSlices is CompactPodSlices's edit of one object.
func compactPodSlices(obj interface{}) {
	switch o := obj.(type) {
	case *corev1.Pod:
		// NB: as internPodStrings, a pod ShareIdenticalPodParts
		// transformed (or one without containers) may hold shared parts and
		// is left alone; the canonical copies have no spare capacity anyway.
		if o == nil || len(o.Spec.Containers) == 0 || podPartsShared(o) {
			return
		}
		compactPod(o)
		spec := &o.Spec
		for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
			for i := range cs {
				compactContainerParts(&cs[i])
			}
		}
		compactSlice(&spec.EphemeralContainers)
		for i := range spec.EphemeralContainers {
			c := (*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon)
			compactContainerParts(c)
			compactSlice(&c.VolumeMounts)
		}
		compactVolumeSources(spec.Volumes)
		compactSlice(&spec.Tolerations)
		compactSlice(&spec.ImagePullSecrets)
		compactSlice(&spec.TopologySpreadConstraints)
		compactSlice(&spec.ReadinessGates)
		compactSlice(&o.Status.EphemeralContainerStatuses)
		for i := range o.Status.EphemeralContainerStatuses {
			compactSlice(&o.Status.EphemeralContainerStatuses[i].VolumeMounts)
		}
		compactSlice(&o.OwnerReferences)
		compactSlice(&o.Finalizers)
	case cache.DeletedFinalStateUnknown:
		compactPodSlices(o.Obj)
	}
}

// CompactPodSlices is a cache.TransformFunc that gives the slices of a
// *corev1.Pod that decoding left with spare capacity a backing array of
// exactly their length, which the pod alone owns: a JSON or protobuf
// decoder grows a slice by doubling, so a pod's three containers or five
// env vars often sit in an array of four or eight. Other objects,
// Unstructured pods included, are returned unchanged.
//
// It is safe for every controller: the new array is a copy of the
// elements that only this pod references, and the old one is dropped; a
// write in place or an append to a slice of one pod changes no other.
//
// Exactly these slices are compacted, each only when its capacity exceeds
// its length: of the spec, its initContainers, containers,
// ephemeralContainers, volumes, tolerations, imagePullSecrets,
// topologySpreadConstraints and readinessGates; of every container, init
// container and ephemeral container its command, args, ports, envFrom,
// env, volumeMounts, volumeDevices, resizePolicy and resources.claims; of
// every volume the items of a secret, configMap or downwardAPI source, and
// the sources of a projected one with their items; of the status its
// conditions, hostIPs, podIPs, initContainerStatuses, containerStatuses,
// ephemeralContainerStatuses and every container status's volumeMounts; of the metadata its
// ownerReferences and finalizers. Maps are left alone: a map built entry
// by entry is no bigger than one sized in advance for its length.
//
// The content of the pod never changes (the pod is reflect.DeepEqual to
// what it was; nil and empty slices stay as they are), so it is
// idempotent and commutes with every other transform; a second
// application writes nothing (every compacted slice has no spare capacity
// left). A pod ShareIdenticalPodParts transformed and a pod without
// containers are left as they are (see InternPodStrings). Tombstones, nil
// and typed nil pods are handled as by InternPodStrings; the error is
// always nil.
//
// Cost: one allocation and copy per slice with spare capacity, a length
// and capacity check per other slice; see Recommended for the figures.
func CompactPodSlices(obj interface{}) (interface{}, error) {
	compactPodSlices(obj)
	return obj, nil
}
