package benchmarks

import (
	"fmt"
	"math/rand"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// storeCluster is a deterministic, realistic set of pods for the storage
// benchmarks, with every lookup value the benchmarks query.
//
// Invariants: pods and updated have the same length and the same keys in
// the same order; updated[i] differs from pods[i] by resource version,
// status times and (for one pod in ten) the node; nothing is mutated after
// construction, so the slices may be shared by concurrent readers.
type storeCluster struct {
	// shape is what the cluster was built from.
	shape storeClusterShape
	// pods are the initial versions.
	pods []any
	// updated are the next versions of the same pods.
	updated []any
	// keys are the namespace/name keys of pods, in order.
	keys []string
	// namespaces are the distinct namespaces.
	namespaces []string
	// nodes are the distinct node names pods may run on.
	nodes []string
	// apps are the distinct app label values.
	apps []string
}

// storeClusterShape sizes a cluster and picks the stores' key function.
type storeClusterShape struct {
	// name names the shape in sub-benchmark names.
	name string
	// pods is the number of pods.
	pods int
	// namespaces is the number of namespaces.
	namespaces int
	// nodes is the number of nodes.
	nodes int
	// appMin and appMax bound the replicas of each app (the last app may
	// be cut short).
	appMin, appMax int
	// metaKeys makes the stores key with MetaNamespaceKeyFunc rather than
	// DeletionHandlingMetaNamespaceKeyFunc.
	metaKeys bool
}

// storeBenchShapes are the shapes every store benchmark runs on: many small
// apps over many nodes, keyed as informers key; and issue 13's shape, with
// 200 pods per namespace, ~100 per node and 50 per app, keyed with
// MetaNamespaceKeyFunc.
var storeBenchShapes = []storeClusterShape{
	{name: "apps4-nodes5k-ns100", pods: 100_000, namespaces: 100, nodes: 5_000, appMin: 3, appMax: 5},
	{name: "apps50-nodes1k-ns500", pods: 100_000, namespaces: 500, nodes: 1_000, appMin: 50, appMax: 50, metaKeys: true},
}

// newStoreCluster builds a cluster: apps of appMin to appMax replicas like
// Deployments, spread round-robin over namespaces, on random nodes.
func newStoreCluster(shape storeClusterShape) *storeCluster {
	rng := rand.New(rand.NewSource(1))
	c := &storeCluster{shape: shape}
	for i := 0; i < shape.namespaces; i++ {
		c.namespaces = append(c.namespaces, fmt.Sprintf("team-%03d", i))
	}
	for i := 0; i < shape.nodes; i++ {
		c.nodes = append(c.nodes, fmt.Sprintf("ip-10-%d-%d-%d.ec2.internal", i/65536, (i/256)%256, i%256))
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for appIndex := 0; len(c.pods) < shape.pods; appIndex++ {
		ns := c.namespaces[appIndex%len(c.namespaces)]
		app := fmt.Sprintf("svc-%05d", appIndex)
		c.apps = append(c.apps, app)
		hash := storeRandomSuffix(rng, 10)
		replicas := shape.appMin + rng.Intn(shape.appMax-shape.appMin+1)
		for r := 0; r < replicas && len(c.pods) < shape.pods; r++ {
			pod := newStoreBenchPod(rng, ns, app, hash, c.nodes[rng.Intn(len(c.nodes))], base, len(c.pods))
			c.pods = append(c.pods, pod)
			c.keys = append(c.keys, ns+"/"+pod.Name)
			next := storeNextVersion(pod, base)
			if len(c.pods)%10 == 0 {
				next.Spec.NodeName = c.nodes[rng.Intn(len(c.nodes))]
			}
			c.updated = append(c.updated, next)
		}
	}
	return c
}

// storeRandomSuffix returns n random lowercase alphanumerics, like the
// suffixes of generated pod names.
func storeRandomSuffix(rng *rand.Rand, n int) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.Intn(len(alphabet))]
	}
	return string(b)
}

// newStoreBenchPod builds one pod of a ReplicaSet as the API server returns
// it: labels, owner reference, two containers with image, ports, env and
// resources, a volume, node name and a Running status with conditions.
func newStoreBenchPod(rng *rand.Rand, ns, app, hash, node string, base time.Time, serial int) *v1.Pod {
	created := metav1.NewTime(base.Add(time.Duration(serial) * time.Second))
	rsName := app + "-" + hash
	return &v1.Pod{
		TypeMeta: metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              rsName + "-" + storeRandomSuffix(rng, 5),
			Namespace:         ns,
			UID:               types.UID(fmt.Sprintf("6f1c9a2e-0000-4000-8000-%012d", serial)),
			ResourceVersion:   strconv.Itoa(1_000_000 + serial),
			CreationTimestamp: created,
			GenerateName:      rsName + "-",
			Labels: map[string]string{
				"app":                         app,
				"app.kubernetes.io/name":      app,
				"app.kubernetes.io/component": "backend",
				"pod-template-hash":           hash,
			},
			Annotations: map[string]string{"kubectl.kubernetes.io/restartedAt": "2026-01-01T00:00:00Z"},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rsName,
				UID: types.UID("0a1b2c3d-0000-4000-8000-" + hash[:10] + "00"), Controller: storeTrue(), BlockOwnerDeletion: storeTrue(),
			}},
		},
		Spec: v1.PodSpec{
			NodeName:           node,
			ServiceAccountName: app,
			RestartPolicy:      v1.RestartPolicyAlways,
			DNSPolicy:          v1.DNSClusterFirst,
			SchedulerName:      "default-scheduler",
			Containers: []v1.Container{
				storeBenchContainer(app, "registry.example.com/"+ns+"/"+app+":v1.42.7", "500m", "512Mi"),
				storeBenchContainer("istio-proxy", "docker.io/istio/proxyv2:1.24.2", "100m", "128Mi"),
			},
			Volumes: []v1.Volume{{Name: "kube-api-access", VolumeSource: v1.VolumeSource{Projected: &v1.ProjectedVolumeSource{}}}},
		},
		Status: storeBenchStatus(node, serial, created),
	}
}

// storeBenchContainer builds a container with ports, env, resources and a
// volume mount.
func storeBenchContainer(name, image, cpu, mem string) v1.Container {
	return v1.Container{
		Name:  name,
		Image: image,
		Ports: []v1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: v1.ProtocolTCP}},
		Env: []v1.EnvVar{
			{Name: "LOG_LEVEL", Value: "info"},
			{Name: "GOMAXPROCS", Value: "2"},
			{Name: "POD_NAME", ValueFrom: &v1.EnvVarSource{FieldRef: &v1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
			{Name: "POD_NAMESPACE", ValueFrom: &v1.EnvVarSource{FieldRef: &v1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
		},
		Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse(mem)},
			Limits:   v1.ResourceList{v1.ResourceMemory: resource.MustParse(mem)},
		},
		VolumeMounts:             []v1.VolumeMount{{Name: "kube-api-access", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}},
		TerminationMessagePath:   "/dev/termination-log",
		TerminationMessagePolicy: v1.TerminationMessageReadFile,
		ImagePullPolicy:          v1.PullIfNotPresent,
	}
}

// storeBenchStatus builds a Running status with the four usual conditions.
func storeBenchStatus(node string, serial int, at metav1.Time) v1.PodStatus {
	conditions := []v1.PodCondition{}
	for _, t := range []v1.PodConditionType{v1.PodScheduled, v1.PodInitialized, v1.ContainersReady, v1.PodReady} {
		conditions = append(conditions, v1.PodCondition{Type: t, Status: v1.ConditionTrue, LastTransitionTime: at})
	}
	podIP := fmt.Sprintf("10.%d.%d.%d", 64+serial/65536, (serial/256)%256, serial%256)
	return v1.PodStatus{
		Phase:      v1.PodRunning,
		Conditions: conditions,
		HostIP:     "192.168.0.1",
		PodIP:      podIP,
		PodIPs:     []v1.PodIP{{IP: podIP}},
		StartTime:  &at,
		QOSClass:   v1.PodQOSBurstable,
		ContainerStatuses: []v1.ContainerStatus{
			{Name: "main", Ready: true, RestartCount: 0, Image: "registry.example.com/app:v1.42.7", ImageID: "sha256:3f1e0b", ContainerID: "containerd://" + node},
		},
	}
}

// storeNextVersion returns the pod's next version as a status update would
// produce it: a shallow copy (unchanged parts are shared, as they would be
// after decoding into a cache that kept them) with a new resource version
// and new condition times.
func storeNextVersion(p *v1.Pod, base time.Time) *v1.Pod {
	next := *p
	next.ResourceVersion = p.ResourceVersion + "1"
	later := metav1.NewTime(base.Add(time.Hour))
	next.Status.Conditions = append([]v1.PodCondition(nil), p.Status.Conditions...)
	for i := range next.Status.Conditions {
		next.Status.Conditions[i].LastTransitionTime = later
	}
	return &next
}

// storeTrue returns a pointer to true.
func storeTrue() *bool {
	t := true
	return &t
}
