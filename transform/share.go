package transform

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kcache-go/cache"
)

// The canonical tables of ShareIdenticalPodParts, one per Go type shared.
var (
	sharedResourceLists   sharedMaps[corev1.ResourceList, corev1.ResourceName, resource.Quantity]
	sharedStringMaps      sharedMaps[map[string]string, string, string]
	sharedStringSlices    sharedSlices[[]string, string]
	sharedEnvVars         sharedSlices[[]corev1.EnvVar, corev1.EnvVar]
	sharedEnvFrom         sharedSlices[[]corev1.EnvFromSource, corev1.EnvFromSource]
	sharedPorts           sharedSlices[[]corev1.ContainerPort, corev1.ContainerPort]
	sharedResizePolicies  sharedSlices[[]corev1.ContainerResizePolicy, corev1.ContainerResizePolicy]
	sharedTolerations     sharedSlices[[]corev1.Toleration, corev1.Toleration]
	sharedSpreads         sharedSlices[[]corev1.TopologySpreadConstraint, corev1.TopologySpreadConstraint]
	sharedReadinessGates  sharedSlices[[]corev1.PodReadinessGate, corev1.PodReadinessGate]
	sharedPullSecrets     sharedSlices[[]corev1.LocalObjectReference, corev1.LocalObjectReference]
	sharedProbes          sharedPointers[corev1.Probe]
	sharedLifecycles      sharedPointers[corev1.Lifecycle]
	sharedSecurityContext sharedPointers[corev1.SecurityContext]
	sharedPodSecurity     sharedPointers[corev1.PodSecurityContext]
	sharedAffinities      sharedPointers[corev1.Affinity]
	sharedDNSConfigs      sharedPointers[corev1.PodDNSConfig]
	sharedRequirements    sharedPointers[corev1.ResourceRequirements]
	sharedSecretSources   sharedPointers[corev1.SecretVolumeSource]
	sharedConfigMapSource sharedPointers[corev1.ConfigMapVolumeSource]
	sharedEmptyDirSources sharedPointers[corev1.EmptyDirVolumeSource]
	sharedProjected       sharedPointers[corev1.ProjectedVolumeSource]
	sharedDownwardAPI     sharedPointers[corev1.DownwardAPIVolumeSource]
	sharedHostPaths       sharedPointers[corev1.HostPathVolumeSource]
	sharedClaimSources    sharedPointers[corev1.PersistentVolumeClaimVolumeSource]
)

// shareContainer shares the parts of a container of the pod owner
// (podOwner) that pods of one template have in common (everything but its
// name, image and volume mounts, which are left alone).
func shareContainer(c *corev1.Container, owner uint32) {
	sharedStringSlices.share(&c.Command, owner)
	sharedStringSlices.share(&c.Args, owner)
	sharedPorts.share(&c.Ports, owner)
	sharedEnvFrom.share(&c.EnvFrom, owner)
	sharedEnvVars.share(&c.Env, owner)
	sharedResourceLists.share(&c.Resources.Limits, owner)
	sharedResourceLists.share(&c.Resources.Requests, owner)
	sharedResizePolicies.share(&c.ResizePolicy, owner)
	sharedProbes.share(&c.LivenessProbe, owner)
	sharedProbes.share(&c.ReadinessProbe, owner)
	sharedProbes.share(&c.StartupProbe, owner)
	sharedLifecycles.share(&c.Lifecycle, owner)
	sharedSecurityContext.share(&c.SecurityContext, owner)
}

// shareVolumeSource shares the source of a volume of the common kinds.
func shareVolumeSource(v *corev1.VolumeSource, owner uint32) {
	sharedSecretSources.share(&v.Secret, owner)
	sharedConfigMapSource.share(&v.ConfigMap, owner)
	sharedEmptyDirSources.share(&v.EmptyDir, owner)
	sharedProjected.share(&v.Projected, owner)
	sharedDownwardAPI.share(&v.DownwardAPI, owner)
	sharedHostPaths.share(&v.HostPath, owner)
	sharedClaimSources.share(&v.PersistentVolumeClaim, owner)
}

// sharePodSpec shares the parts of spec listed on ShareIdenticalPodParts.
func sharePodSpec(spec *corev1.PodSpec, owner uint32) {
	for i := range spec.InitContainers {
		shareContainer(&spec.InitContainers[i], owner)
	}
	for i := range spec.Containers {
		shareContainer(&spec.Containers[i], owner)
	}
	for i := range spec.EphemeralContainers {
		shareContainer((*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon), owner)
	}
	for i := range spec.Volumes {
		shareVolumeSource(&spec.Volumes[i].VolumeSource, owner)
	}
	sharedStringMaps.share(&spec.NodeSelector, owner)
	sharedPodSecurity.share(&spec.SecurityContext, owner)
	sharedPullSecrets.share(&spec.ImagePullSecrets, owner)
	sharedAffinities.share(&spec.Affinity, owner)
	sharedTolerations.share(&spec.Tolerations, owner)
	sharedDNSConfigs.share(&spec.DNSConfig, owner)
	sharedReadinessGates.share(&spec.ReadinessGates, owner)
	sharedResourceLists.share(&spec.Overhead, owner)
	sharedSpreads.share(&spec.TopologySpreadConstraints, owner)
	sharedRequirements.share(&spec.Resources, owner)
}

// sharePodStatus shares the resources of every container status.
func sharePodStatus(status *corev1.PodStatus, owner uint32) {
	for _, statuses := range [][]corev1.ContainerStatus{status.InitContainerStatuses, status.ContainerStatuses, status.EphemeralContainerStatuses} {
		for i := range statuses {
			sharedResourceLists.share(&statuses[i].AllocatedResources, owner)
			sharedRequirements.share(&statuses[i].Resources, owner)
		}
	}
}

// sharePodParts is ShareIdenticalPodParts's edit of one pod.
func sharePodParts(obj interface{}) {
	switch o := obj.(type) {
	case *corev1.Pod:
		if o != nil && !podPartsShared(o) {
			owner := podOwner(o)
			compactPod(o)
			internOwnSpec(&o.Spec)
			internOwnStatus(&o.Status)
			sharePodSpec(&o.Spec, owner)
			sharePodStatus(&o.Status, owner)
		}
	case cache.DeletedFinalStateUnknown:
		sharePodParts(o.Obj)
	}
}

// ShareIdenticalPodParts is a cache.TransformFunc that makes a *corev1.Pod
// share the parts of its spec and status that equal those of pods transformed
// before it (pods of one Deployment, DaemonSet or Job have almost all their
// spec in common, yet a decoded pod always has its own copy of everything).
// Other objects, Unstructured pods included, are returned unchanged.
//
// It is opt-in, not part of Recommended, and only for consumers that never
// write to cached pods: a write in place to a shared part of one cached pod
// (a mistake client-go's contract forbids, and one real controllers make)
// changes every pod of its template, the old objects handed to update
// handlers included, and a controller comparing desired
// with cached state by reflect.DeepEqual may then update forever. Run the
// consumer's tests with the mutation detector
// (KUBE_CACHE_MUTATION_DETECTOR=true), which reports such writes; use it as
// Chain(Recommended, ShareIdenticalPodParts).
//
// Exactly these parts are shared, each as a whole, when equal (by
// reflect.DeepEqual, so nil and empty never share) to one seen before: of
// every container, init container and ephemeral container its command,
// args, ports, envFrom, env, resources.limits, resources.requests,
// resizePolicy, liveness, readiness and startup probes, lifecycle and
// securityContext; of the pod spec its nodeSelector, securityContext,
// imagePullSecrets, affinity, tolerations, dnsConfig, readinessGates,
// overhead, topologySpreadConstraints and resources; the secret,
// configMap, emptyDir, projected, downwardAPI, hostPath and
// persistentVolumeClaim source of every volume; and the allocatedResources
// and resources of every container status. Nothing else is touched
// (container names, images and volumeMounts, which often differ per pod,
// stay the pod's own). A canonical value is a deep copy made by the table,
// so every slice in it, at any depth, has its length as capacity: an
// append to a slice read from one pod never writes into another pod's.
//
// A part that holds a resource.Quantity outside a map is never shared, and
// neither is one holding a Quantity in its inf.Dec form (a value that does
// not fit an int64): an emptyDir with a sizeLimit, an env with a
// resourceFieldRef (its divisor), downwardAPI and projected sources with
// resourceFieldRef items. Reading such a Quantity writes to it
// (AsDec, ToDec and Cmp convert it to its inf.Dec form, String and
// protobuf Marshal fill in its cached string), which on a shared part
// would be a data race between readers of different pods and would change
// what reflect.DeepEqual says of every pod sharing it; copies of a
// Quantity in its inf.Dec form share that inf.Dec. Quantities in maps
// (limits, requests, overhead, allocatedResources) are shared: every
// reader of a map value works on its own copy. The strings of a part kept
// the pod's own this way are interned instead.
//
// The strings of the parts that stay the pod's own are interned (Go's
// weak table InternStrings uses): of every container its name,
// image, terminationMessagePath, terminationMessagePolicy, imagePullPolicy
// and the name, mountPath and subPath of its volumeMounts; every volume's
// name; the spec's nodeName, serviceAccountName, serviceAccount,
// schedulerName, priorityClassName, restartPolicy and dnsPolicy; the
// status's phase, qosClass, hostIP, hostIPs, the type, status and reason of
// its conditions, and of every container status its name, image, imageID,
// the reason of its waiting or terminated state and last termination
// state, and the name and mountPath of its volumeMounts. Strings inside
// shared parts are shared with them. Unique values (names, UIDs, pod IPs,
// container IDs, times) are left alone.
//
// Slices that stay the pod's own and that decoding leaves with spare
// capacity get a backing array of exactly their length (only when they
// have spare capacity): the spec's initContainers, containers, volumes and
// every container's volumeMounts; the status's conditions, hostIPs, podIPs,
// initContainerStatuses, containerStatuses and every container status's
// volumeMounts.
//
// Shared parts are read-only: the cache's objects are anyway (client-go's
// contract: DeepCopy before mutating). Writing in place to a shared part of
// one cached pod shows in every pod sharing it.
//
// A part that no other pod has gains nothing from a table entry (see the
// cost below), so a table that sees mostly such parts (the env, args or
// limits of the pods of a StatefulSet or an indexed Job configured per
// member) makes no entry for a new value until a second pod has it: the
// first pod then keeps its own part, the second gets the canonical copy
// and every later one shares it. A table that sees mostly values it holds
// shares from the first pod on.
//
// The content of the pod never changes: the transformed pod is
// reflect.DeepEqual to the pod it was, and so is every pod that shared a
// part before it. So ShareIdenticalPodParts is idempotent and commutes
// with every other transform; it edits in place and writes a field only
// when it does not hold the canonical value already. A pod it transformed
// before (recognised by its first container's name, which it interns) is
// left as it is, so a second application writes nothing, not even to a
// part the pod kept its own; a pod deep-copied from a transformed one is
// taken for transformed too, and keeps its copies. The canonical values are held weakly: one
// that no pod references any more is collected. The canonical tables are
// safe for concurrent use (informers transform in parallel); the pod being
// transformed must not be read or written by anyone else meanwhile, as for
// every transform, and pods transformed concurrently must not share
// containers, volumes or statuses (decoded pods never do), since
// interning writes those in place.
//
// Cost: per shared part a content hash (by reflection, which unlike
// protobuf Marshal writes nothing), a lookup in its table (no lock), a
// comparison with the canonical value found (what reflect.DeepEqual
// reports, without allocating), and, for a part seen for the first time,
// one copy under the table's mutex; one interning-table lookup per
// interned string. BenchmarkTransformCostRealisticPods (benchmarks/)
// measured, on realistic pods (50 per template, a new pod each time),
// about 20 µs of CPU, 6 allocations and 2.2 KB per pod (slices compacted,
// parts seen for the first time), a tenth of the 220 µs decoding the pod
// from JSON takes, and 0.3 µs, no allocation, for a pod already
// transformed (recognised and left as it is), on a 2-core machine. On the
// pods of BenchmarkTransformRetainedHeapRealisticPods it brings what a
// cached pod keeps after Recommended from 11.7 KB to 6.4 KB for pods of
// templates, from 12.1 KB to 8.2 KB when every container also has an env
// var, an argument and a cpu limit of its own, and from 6.2 KB to 4.4 KB
// for the pods of an indexed Job configured per index. The tables keep one entry per distinct value, not per pod: about
// 50 B of heap and up to 8 B of the runtime's off-heap records of weak
// pointers (TestSharingAPartNoOtherPodHasCostsAtMost64Bytes), none for a
// value only one pod has once the table sees mostly such values (its
// filter of them is 8 KB).
func ShareIdenticalPodParts(obj interface{}) (interface{}, error) {
	sharePodParts(obj)
	return obj, nil
}
