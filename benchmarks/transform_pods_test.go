package benchmarks

import (
	"encoding/json"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// Shape of the transform benchmarks' pods: transformPodCount pods in
// Deployments of transformPodsPerApp pods (one ReplicaSet each), spread over
// transformNamespaces namespaces.
const (
	transformPodCount   = 10000
	transformPodsPerApp = 10
	transformNamespaces = 50
)

// transformPodJSON returns the JSON of pod i as an API server returns it:
// labels and annotations shared by the pods of its app, the
// last-applied-configuration annotation, a ReplicaSet owner, managed fields
// of three field managers, containers and status. Deterministic.
func transformPodJSON(i int) []byte {
	app := i / transformPodsPerApp
	name := fmt.Sprintf("app-%d", app)
	hash := fmt.Sprintf("%08x", uint32(app)*2654435761)
	pod := &v1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              fmt.Sprintf("%s-%s-%05d", name, hash[:5], i),
			GenerateName:      fmt.Sprintf("%s-%s-", name, hash[:5]),
			Namespace:         fmt.Sprintf("team-%d", app%transformNamespaces),
			UID:               types.UID(fmt.Sprintf("00000000-0000-4000-8000-%012d", i)),
			ResourceVersion:   fmt.Sprint(1000 + i),
			CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
			Labels: map[string]string{
				"app.kubernetes.io/name": name, "app.kubernetes.io/instance": name + "-prod",
				"app.kubernetes.io/part-of": "shop", "app.kubernetes.io/managed-by": "Helm",
				"pod-template-hash": hash, "tier": []string{"frontend", "backend", "cache"}[app%3],
			},
			Annotations: map[string]string{
				"prometheus.io/scrape": "true", "prometheus.io/port": "8080",
				"kubectl.kubernetes.io/restartedAt":                "2026-01-01T00:00:00Z",
				"kubectl.kubernetes.io/last-applied-configuration": transformLastApplied(name),
			},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "ReplicaSet", Name: name + "-" + hash,
				UID:        types.UID(fmt.Sprintf("11111111-0000-4000-8000-%012d", app)),
				Controller: ptrTo(true), BlockOwnerDeletion: ptrTo(true),
			}},
			ManagedFields: transformManagedFields(),
		},
		Spec:   transformPodSpec(name, i),
		Status: transformPodStatus(i),
	}
	data, err := json.Marshal(pod)
	if err != nil {
		panic(err)
	}
	return data
}

func ptrTo[T any](v T) *T { return &v }

// transformLastApplied is a client-side-apply manifest of a few hundred bytes.
func transformLastApplied(app string) string {
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"annotations":{"prometheus.io/port":"8080",`+
		`"prometheus.io/scrape":"true"},"labels":{"app.kubernetes.io/name":%q,"app.kubernetes.io/part-of":"shop"},`+
		`"name":%q},"spec":{"containers":[{"image":"registry.example.com/shop/%s:1.4.2","name":"main",`+
		`"ports":[{"containerPort":8080}],"resources":{"limits":{"memory":"256Mi"},"requests":{"cpu":"100m"}}}]}}`+"\n",
		app, app, app)
}

// transformManagedFields are the entries of kube-controller-manager (the
// pod's creation), kubelet (status) and a label-writing controller.
func transformManagedFields() []metav1.ManagedFieldsEntry {
	at := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 1, 0, time.UTC))
	entry := func(manager, sub, fields string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate,
			APIVersion: "v1", Time: &at, FieldsType: "FieldsV1", Subresource: sub,
			FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)}}
	}
	return []metav1.ManagedFieldsEntry{
		entry("kube-controller-manager", "", `{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app.kubernetes.io/name":{},`+
			`"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"11111111\"}":{}}},"f:spec":{"f:containers":`+
			`{"k:{\"name\":\"main\"}":{".":{},"f:env":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:ports":{},`+
			`"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},`+
			`"f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},`+
			`"f:terminationGracePeriodSeconds":{}}}`),
		entry("kubelet", "status", `{"f:status":{"f:conditions":{"k:{\"type\":\"ContainersReady\"}":{".":{},`+
			`"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Ready\"}":{".":{},`+
			`"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}},"f:containerStatuses":{},`+
			`"f:hostIP":{},"f:phase":{},"f:podIP":{},"f:podIPs":{".":{},"k:{\"ip\":\"10.0.0.1\"}":{".":{},"f:ip":{}}},`+
			`"f:startTime":{}}}`),
		entry("label-controller", "", `{"f:metadata":{"f:labels":{"f:tier":{}}}}`),
	}
}

func transformPodSpec(app string, i int) v1.PodSpec {
	return v1.PodSpec{
		NodeName: fmt.Sprintf("node-%d", i%100),
		Containers: []v1.Container{{
			Name: "main", Image: "registry.example.com/shop/" + app + ":1.4.2",
			Ports: []v1.ContainerPort{{ContainerPort: 8080, Protocol: v1.ProtocolTCP}},
			Env:   []v1.EnvVar{{Name: "APP", Value: app}, {Name: "LOG_LEVEL", Value: "info"}},
		}},
		RestartPolicy: v1.RestartPolicyAlways, DNSPolicy: v1.DNSClusterFirst, SchedulerName: "default-scheduler",
	}
}

func transformPodStatus(i int) v1.PodStatus {
	at := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 2, 0, time.UTC))
	return v1.PodStatus{
		Phase:  v1.PodRunning,
		HostIP: fmt.Sprintf("10.1.0.%d", i%100), PodIP: fmt.Sprintf("10.2.%d.%d", i/250, i%250),
		Conditions: []v1.PodCondition{
			{Type: v1.PodReady, Status: v1.ConditionTrue, LastTransitionTime: at},
			{Type: v1.ContainersReady, Status: v1.ConditionTrue, LastTransitionTime: at},
		},
		StartTime: &at,
	}
}

// transformPodsJSON is the JSON of every benchmark pod, built once.
var transformPodsJSON = func() func() [][]byte {
	var built [][]byte
	return func() [][]byte {
		if built == nil {
			for i := 0; i < transformPodCount; i++ {
				built = append(built, transformPodJSON(i))
			}
		}
		return built
	}
}()

// transformDecoders decode one pod's JSON into each object kind the
// transforms handle; every decode makes its own copy of every string, as an
// informer's decoder does.
var transformDecoders = []struct {
	kind   string
	decode func([]byte) interface{}
}{
	{"typed", func(data []byte) interface{} { p := &v1.Pod{}; mustDecode(data, p); return p }},
	{"unstructured", func(data []byte) interface{} {
		u := &unstructured.Unstructured{}
		mustDecode(data, &u.Object)
		return u
	}},
	{"metadata", func(data []byte) interface{} { p := &metav1.PartialObjectMetadata{}; mustDecode(data, p); return p }},
}

func mustDecode(data []byte, into interface{}) {
	if err := json.Unmarshal(data, into); err != nil {
		panic(err)
	}
}
