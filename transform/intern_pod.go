package transform

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kcache-go/cache"
)

// internTypedPointer interns the string *p points to, when p is not nil;
// the pointer itself stays the pod's own.
func internTypedPointer[S ~string](p *S) {
	if p != nil {
		internTyped(p)
	}
}

// internTypedStrings interns every string of a slice of a named string
// type in place.
func internTypedStrings[S ~string](ss []S) {
	for i := range ss {
		internTyped(&ss[i])
	}
}

// internIntOrString interns the string form of a port or a threshold.
func internIntOrString(v *intstr.IntOrString) {
	if v.Type == intstr.String {
		internStringField(&v.StrVal)
	}
}

// internStringFields interns each *s in place (internStringField).
func internStringFields(fields ...*string) {
	for _, s := range fields {
		internStringField(s)
	}
}

// internFieldRefs interns the API version and path of a field reference
// and the container name and resource of a resource reference (not its
// divisor, a Quantity, which is no string), each when not nil.
func internFieldRefs(field *corev1.ObjectFieldSelector, resource *corev1.ResourceFieldSelector) {
	if field != nil {
		internStringFields(&field.APIVersion, &field.FieldPath)
	}
	if resource != nil {
		internStringFields(&resource.ContainerName, &resource.Resource)
	}
}

// internEnv interns the names and values of env vars, and the references,
// names and keys their valueFrom refers to.
func internEnv(env []corev1.EnvVar) {
	for i := range env {
		e := &env[i]
		internStringFields(&e.Name, &e.Value)
		from := e.ValueFrom
		if from == nil {
			continue
		}
		internFieldRefs(from.FieldRef, from.ResourceFieldRef)
		if r := from.ConfigMapKeyRef; r != nil {
			internStringFields(&r.Name, &r.Key)
		}
		if r := from.SecretKeyRef; r != nil {
			internStringFields(&r.Name, &r.Key)
		}
	}
}

// internHandler interns the command, path, host, scheme, port name and
// headers of a probe's or a lifecycle hook's action.
func internHandler(exec *corev1.ExecAction, get *corev1.HTTPGetAction, tcp *corev1.TCPSocketAction) {
	if exec != nil {
		internStrings(exec.Command)
	}
	if get != nil {
		internStringFields(&get.Path, &get.Host)
		internTyped(&get.Scheme)
		internIntOrString(&get.Port)
		for i := range get.HTTPHeaders {
			internStringFields(&get.HTTPHeaders[i].Name, &get.HTTPHeaders[i].Value)
		}
	}
	if tcp != nil {
		internStringField(&tcp.Host)
		internIntOrString(&tcp.Port)
	}
}

// internProbe interns the strings of a probe's action.
func internProbe(p *corev1.Probe) {
	if p == nil {
		return
	}
	internHandler(p.Exec, p.HTTPGet, p.TCPSocket)
	if p.GRPC != nil && p.GRPC.Service != nil {
		internStringField(p.GRPC.Service)
	}
}

// internLifecycle interns the strings of a container's lifecycle hooks.
func internLifecycle(l *corev1.Lifecycle) {
	if l == nil {
		return
	}
	for _, h := range []*corev1.LifecycleHandler{l.PostStart, l.PreStop} {
		if h != nil {
			internHandler(h.Exec, h.HTTPGet, h.TCPSocket)
		}
	}
	internTypedPointer(l.StopSignal)
}

// internSecurityContext interns the capabilities, seccomp and AppArmor
// profile types and localhost profiles, and proc mount of a container's
// security context.
func internSecurityContext(sc *corev1.SecurityContext) {
	if sc == nil {
		return
	}
	if c := sc.Capabilities; c != nil {
		internTypedStrings(c.Add)
		internTypedStrings(c.Drop)
	}
	if p := sc.SeccompProfile; p != nil {
		internTyped(&p.Type)
		internTypedPointer(p.LocalhostProfile)
	}
	if p := sc.AppArmorProfile; p != nil {
		internTyped(&p.Type)
		internTypedPointer(p.LocalhostProfile)
	}
	internTypedPointer(sc.ProcMount)
}

// internContainerParts interns the strings of the parts of a container
// that ShareIdenticalPodParts shares: command, args, working directory,
// ports, envFrom, env, resource claims and resize policies, probes,
// lifecycle and security context; and the sub-path expression,
// propagation and recursive read-only mode of its volume mounts, and its
// volume devices.
func internContainerParts(c *corev1.Container) {
	internStrings(c.Command)
	internStrings(c.Args)
	internStringField(&c.WorkingDir)
	for i := range c.Ports {
		internStringFields(&c.Ports[i].Name, &c.Ports[i].HostIP)
		internTyped(&c.Ports[i].Protocol)
	}
	for i := range c.EnvFrom {
		f := &c.EnvFrom[i]
		internStringField(&f.Prefix)
		if f.ConfigMapRef != nil {
			internStringField(&f.ConfigMapRef.Name)
		}
		if f.SecretRef != nil {
			internStringField(&f.SecretRef.Name)
		}
	}
	internEnv(c.Env)
	internResourceNames(c.Resources.Limits)
	internResourceNames(c.Resources.Requests)
	for i := range c.Resources.Claims {
		internStringFields(&c.Resources.Claims[i].Name, &c.Resources.Claims[i].Request)
	}
	for i := range c.ResizePolicy {
		internTyped(&c.ResizePolicy[i].ResourceName)
		internTyped(&c.ResizePolicy[i].RestartPolicy)
	}
	internProbe(c.LivenessProbe)
	internProbe(c.ReadinessProbe)
	internProbe(c.StartupProbe)
	internLifecycle(c.Lifecycle)
	internSecurityContext(c.SecurityContext)
	for i := range c.VolumeMounts {
		m := &c.VolumeMounts[i]
		internStringField(&m.SubPathExpr)
		internTypedPointer(m.MountPropagation)
		internTypedPointer(m.RecursiveReadOnly)
	}
	for i := range c.VolumeDevices {
		internStringFields(&c.VolumeDevices[i].Name, &c.VolumeDevices[i].DevicePath)
	}
}

// internPodStrings is InternPodStrings's edit of one object.
func internPodStrings(obj interface{}) {
	switch o := obj.(type) {
	case *corev1.Pod:
		// NB: a pod ShareIdenticalPodParts transformed may hold parts
		// other pods share, whose strings must not be written; it interned
		// the strings of the parts it left the pod's own already. A pod
		// without containers (which the API server rejects) carries no
		// mark of that, so it is left alone too. A pod whose first
		// container's image is interned already went through here (a
		// decoded pod holds its own copy of every string): skipping it
		// saves a table lookup per string.
		if o != nil && len(o.Spec.Containers) > 0 && !podPartsShared(o) && !isInterned(o.Spec.Containers[0].Image) {
			internPodSpec(&o.Spec)
			internOwnStatus(&o.Status)
			internStatusResourceNames(&o.Status)
		}
	case cache.DeletedFinalStateUnknown:
		internPodStrings(o.Obj)
	}
}

// InternPodStrings is a cache.TransformFunc that replaces the strings that
// pods of one template, node or service account repeat in their spec and
// status by their canonical copies, held weakly in the table InternStrings
// uses, so that the pods of a Deployment, DaemonSet or Job share their
// bytes instead of each keeping its own copy. Other objects, Unstructured
// pods included, are returned unchanged.
//
// It is safe for every controller: strings are immutable in Go, so
// sharing their bytes shares nothing a write to a pod could change; every
// slice, map and pointer of the pod stays its own.
//
// Exactly these strings of a *corev1.Pod are interned. Of every
// container, init container and ephemeral container: its name (but the
// first container's, which ShareIdenticalPodParts uses as its mark of a
// pod it transformed), image, command, args, workingDir, the name, hostIP
// and protocol of its ports, the prefix and config map or secret name of
// its envFrom, the name and value of its env and the API version, field
// path, container name, resource, names and keys its valueFrom refers to,
// the resource names of its limits and requests, the names and requests
// of its resource claims, its resize policies, the
// command, path, host, scheme, port name and headers of its probes' and
// lifecycle hooks' actions and a gRPC probe's service, its stop signal,
// the capabilities, seccomp and AppArmor profiles and procMount of its
// security context, terminationMessagePath, terminationMessagePolicy and
// imagePullPolicy, the name, mountPath, subPath, subPathExpr, propagation
// and recursive read-only mode of its volumeMounts, and the name and path
// of its volumeDevices. Of the spec: every volume's name and the
// strings of its source (internVolumeSource), nodeName,
// serviceAccountName, serviceAccount, schedulerName, priorityClassName,
// restartPolicy, dnsPolicy, subdomain, preemptionPolicy, the keys and
// values of nodeSelector, the names of imagePullSecrets, the key,
// operator, value and effect of tolerations, the topology key, policies and
// label selector of topologySpreadConstraints, the strings of affinity
// terms, the condition types of readinessGates and the DNS config. Of the
// status: its phase, qosClass, reason, message, nominatedNodeName, hostIP
// and hostIPs, the type, status, reason and message of its conditions, and
// of every container status its name, image, imageID, the reason of its
// states and the message of a waiting one, the name, mountPath and
// recursive read-only mode of its volumeMounts and the resource names of
// its allocatedResources and resources. Unique values (names, UIDs, pod IPs,
// container IDs, times, hostnames) are left alone, and so are quantities.
//
// Like InternStrings it never changes the content of the pod (every
// string stays equal to itself), so it is idempotent and commutes with
// every other transform; it writes a field only where the string is not
// its canonical copy yet, so a second application writes nothing. A pod
// ShareIdenticalPodParts transformed (its first container's name
// interned), and a pod without containers, are left as they are:
// ShareIdenticalPodParts interned the strings of the parts it leaves a pod
// its own, and those it shares must not be written. A pod whose first
// container's image is its canonical copy already is taken for one
// InternPodStrings transformed and left as it is too (one lookup instead
// of one per string); so is a DeepCopy of one, whose strings are the
// canonical copies anyway. Tombstones (kcache's
// DeletedFinalStateUnknown) are handled as by StripManagedFields, nil and
// typed nil pods are returned unchanged. The error is always nil.
// Concurrency: as for InternStrings, pods transformed concurrently must
// not share slices, maps or pointers (decoded pods never do).
//
// Cost: one lookup in the canonical table per interned string (100–130
// for a realistic pod), no allocation for a string already interned, one
// lookup for a pod already interned; see Recommended for the figures.
func InternPodStrings(obj interface{}) (interface{}, error) {
	internPodStrings(obj)
	return obj, nil
}

// internResourceNames interns the resource names that key a resource
// list, in place (NB: assigning to an existing key stores the new key, as
// in internStringMap; the quantity stored is the one read).
func internResourceNames(l corev1.ResourceList) {
	for name, q := range l {
		if c := internString(string(name)); !sameStringData(c, string(name)) {
			l[corev1.ResourceName(c)] = q
		}
	}
}

// internStatusResourceNames interns the resource names of the allocated
// resources, limits and requests of every container status.
func internStatusResourceNames(status *corev1.PodStatus) {
	for _, statuses := range [][]corev1.ContainerStatus{status.InitContainerStatuses, status.ContainerStatuses, status.EphemeralContainerStatuses} {
		for i := range statuses {
			s := &statuses[i]
			internResourceNames(s.AllocatedResources)
			if s.Resources != nil {
				internResourceNames(s.Resources.Limits)
				internResourceNames(s.Resources.Requests)
			}
		}
	}
}
