package transform_test

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clientgocache "k8s.io/client-go/tools/cache"

	kcache "github.com/kcache-go/cache"
)

const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// transformPodJSON is a pod as an API server returns it, with every field
// the memory transforms touch: two field managers, the last-applied
// annotation, another annotation, labels, an owner and a finalizer.
func transformPodJSON(name string) []byte {
	return []byte(fmt.Sprintf(`{
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {
    "name": %q, "generateName": "web-7d4b9c-", "namespace": "shop",
    "uid": "uid-%s", "resourceVersion": "12",
    "labels": {"app.kubernetes.io/name": "web", "pod-template-hash": "7d4b9c"},
    "annotations": {%q: "{\"apiVersion\":\"v1\",\"kind\":\"Pod\"}", "team": "payments"},
    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7d4b9c",
      "uid": "0b9e5f2a-3c1d-4e8f-9a7b-6c5d4e3f2a1b", "controller": true, "blockOwnerDeletion": true}],
    "finalizers": ["example.com/cleanup"],
    "managedFields": [
      {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1",
       "time": "2026-01-01T00:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {}}},
      {"manager": "kubelet", "operation": "Update", "apiVersion": "v1", "subresource": "status",
       "time": "2026-01-01T00:00:01Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:status": {}}}
    ]
  },
  "spec": %s,
  "status": %s
}`, name, name, lastApplied, transformPodSpecJSON(name), transformPodStatusJSON(name)))
}

// transformPodSpecJSON is a pod spec with every part ShareIdenticalPodParts
// shares, and the per-pod parts it leaves alone (the projected token
// volume's name, which the containers' volumeMounts reference).
func transformPodSpecJSON(name string) string {
	container := `{"name": %q, "image": "nginx:1.27", "command": ["/bin/web"], "args": ["--port=8080"],
      "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
      "envFrom": [{"configMapRef": {"name": "web-env"}}],
      "env": [{"name": "MODE", "value": "prod"}, {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
        {"name": "MEM", "valueFrom": {"resourceFieldRef": {"resource": "limits.memory"}}}],
      "resources": {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "100m", "memory": "256Mi"}},
      "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"}],
      "volumeMounts": [{"name": "kube-api-access-%s", "readOnly": true, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}],
      "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 10},
      "readinessProbe": {"grpc": {"port": 9090}, "periodSeconds": 5},
      "startupProbe": {"tcpSocket": {"port": 8080}, "failureThreshold": 30},
      "lifecycle": {"preStop": {"exec": {"command": ["sleep", "5"]}}},
      "securityContext": {"runAsNonRoot": true, "capabilities": {"drop": ["ALL"]}}}`
	return fmt.Sprintf(`{"nodeName": "node-1",
    "initContainers": [`+container+`], "containers": [`+container+`],
    "ephemeralContainers": [{"name": "debug", "image": "busybox", "command": ["sh"], "env": [{"name": "MODE", "value": "prod"}]}],
    "volumes": [{"name": "tls", "secret": {"secretName": "web-tls", "defaultMode": 420}},
      {"name": "conf", "configMap": {"name": "web-conf"}}, {"name": "tmp", "emptyDir": {"sizeLimit": "1Gi"}},
      {"name": "info", "downwardAPI": {"items": [{"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}}]}},
      {"name": "host", "hostPath": {"path": "/var/log"}}, {"name": "data", "persistentVolumeClaim": {"claimName": "web-data"}},
      {"name": "kube-api-access-%s", "projected": {"sources": [{"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}], "defaultMode": 420}}],
    "nodeSelector": {"kubernetes.io/os": "linux"}, "securityContext": {"fsGroup": 2000},
    "imagePullSecrets": [{"name": "registry"}],
    "affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 100,
      "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app.kubernetes.io/name": "web"}}}}]}},
    "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}],
    "dnsConfig": {"options": [{"name": "ndots", "value": "2"}]},
    "readinessGates": [{"conditionType": "example.com/ready"}],
    "overhead": {"cpu": "10m"},
    "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway"}],
    "resources": {"limits": {"cpu": "2"}}}`, name, name, name, name)
}

// transformPodStatusJSON is a pod status whose container statuses carry
// allocated resources.
func transformPodStatusJSON(name string) string {
	return fmt.Sprintf(`{"phase": "Running", "hostIP": "10.0.0.1", "podIP": "10.1.0.7",
    "containerStatuses": [{"name": "web", "ready": true, "restartCount": 0, "image": "nginx:1.27",
      "imageID": "nginx@sha256:0123", "containerID": "containerd://%s",
      "allocatedResources": {"cpu": "100m", "memory": "256Mi"},
      "resources": {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "100m", "memory": "256Mi"}}}]}`, name)
}

func mustUnmarshal(data []byte, into interface{}) {
	if err := json.Unmarshal(data, into); err != nil {
		panic(err)
	}
}

func decodedPod(name string) *corev1.Pod {
	pod := &corev1.Pod{}
	mustUnmarshal(transformPodJSON(name), pod)
	return pod
}

func decodedUnstructured(name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	mustUnmarshal(transformPodJSON(name), &u.Object)
	return u
}

func decodedPartial(name string) *metav1.PartialObjectMetadata {
	p := &metav1.PartialObjectMetadata{}
	mustUnmarshal(transformPodJSON(name), p)
	return p
}

// getterObject is a metav1.Object that is neither a typed object nor an
// Unstructured, and whose getters return copies: it exercises the
// transforms' getter-and-setter path.
type getterObject struct{ *unstructured.Unstructured }

// transformKind builds a fresh object of one kind, to be transformed.
type transformKind struct {
	name  string
	build func() interface{}
	// hasMetadata is false for the kinds the transforms leave alone.
	hasMetadata bool
}

var (
	typedNilPod          *corev1.Pod
	typedNilUnstructured *unstructured.Unstructured
)

// transformKinds are every kind of value a transform may receive.
func transformKinds() []transformKind {
	return []transformKind{
		{"a typed pod", func() interface{} { return decodedPod("p") }, true},
		{"a pod without annotations or managed fields", func() interface{} {
			p := decodedPod("p")
			p.Annotations, p.ManagedFields = nil, nil
			return p
		}, true},
		{"a pod whose only annotation is last-applied", func() interface{} {
			p := decodedPod("p")
			delete(p.Annotations, "team")
			return p
		}, true},
		{"a pod with empty maps and slices", func() interface{} {
			p := decodedPod("p")
			p.Labels, p.Annotations = map[string]string{}, map[string]string{}
			p.ManagedFields, p.OwnerReferences, p.Finalizers = []metav1.ManagedFieldsEntry{}, []metav1.OwnerReference{}, []string{}
			return p
		}, true},
		{"a PartialObjectMetadata", func() interface{} { return decodedPartial("p") }, true},
		{"an Unstructured", func() interface{} { return decodedUnstructured("p") }, true},
		{"an Unstructured whose only annotation is last-applied", func() interface{} {
			u := decodedUnstructured("p")
			delete(u.Object["metadata"].(map[string]interface{})["annotations"].(map[string]interface{}), "team")
			return u
		}, true},
		{"an Unstructured with malformed metadata values", malformedUnstructured, true},
		{"an Unstructured without metadata", func() interface{} {
			return &unstructured.Unstructured{Object: map[string]interface{}{"kind": "Pod"}}
		}, false},
		{"a metav1.Object whose getters return copies", func() interface{} { return getterObject{decodedUnstructured("p")} }, true},
		{"a kcache tombstone of a pod", func() interface{} {
			return kcache.DeletedFinalStateUnknown{Key: "shop/p", Obj: decodedPod("p")}
		}, true},
		{"a kcache tombstone of an Unstructured", func() interface{} {
			return kcache.DeletedFinalStateUnknown{Key: "shop/p", Obj: decodedUnstructured("p")}
		}, true},
		{"a client-go tombstone of a pod (not the root package's concern)", func() interface{} {
			return clientgocache.DeletedFinalStateUnknown{Key: "shop/p", Obj: decodedPod("p")}
		}, false},
		{"a typed PodList", func() interface{} { return &corev1.PodList{Items: []corev1.Pod{*decodedPod("p")}} }, false},
		{"a kcache tombstone without an object", func() interface{} { return kcache.DeletedFinalStateUnknown{Key: "shop/p"} }, false},
		{"an UnstructuredList", func() interface{} {
			return &unstructured.UnstructuredList{Object: map[string]interface{}{"kind": "PodList"},
				Items: []unstructured.Unstructured{*decodedUnstructured("p")}}
		}, false},
		{"nil", func() interface{} { return nil }, false},
		{"a typed nil pod", func() interface{} { return typedNilPod }, false},
		{"a typed nil Unstructured", func() interface{} { return typedNilUnstructured }, false},
		{"a string", func() interface{} { return "shop/p" }, false},
		{"a pod value, not a pointer", func() interface{} { return *decodedPod("p") }, false},
	}
}

// malformedUnstructured has metadata values of unexpected types, which the
// transforms must leave as they are.
func malformedUnstructured() interface{} {
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"kind": "Pod",
		"metadata": map[string]interface{}{
			"name":            "p",
			"namespace":       int64(3),
			"labels":          "not-a-map",
			"annotations":     map[string]interface{}{"n": int64(1), lastApplied: true},
			"ownerReferences": []interface{}{"not-a-map", map[string]interface{}{"name": int64(2), "kind": "ReplicaSet"}},
			"finalizers":      []interface{}{int64(4), "example.com/f"},
			"managedFields":   "not-a-list",
		},
	}}
}
