package main

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clientgocache "k8s.io/client-go/tools/cache"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"

	kcache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/transform"
)

// podWithManagedFields is the JSON of a pod with two field managers, as an
// API server returns it.
const podWithManagedFields = `{"apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "p", "namespace": "shop", "uid": "u1", "labels": {"app": "web"},
    "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"},
    "managedFields": [
      {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {}}},
      {"manager": "kubelet", "operation": "Update", "apiVersion": "v1", "subresource": "status", "fieldsType": "FieldsV1", "fieldsV1": {"f:status": {}}}]},
  "spec": {"containers": [{"name": "web", "image": "nginx"}]}}`

func decode(into interface{}) interface{} {
	if err := json.Unmarshal([]byte(podWithManagedFields), into); err != nil {
		panic(err)
	}
	return into
}

func unstructuredPod() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	decode(&u.Object)
	return u
}

var typedNilPod *corev1.Pod

// stripKinds build fresh objects of every kind a transform may receive.
var stripKinds = []struct {
	name  string
	build func() interface{}
}{
	{"a typed pod", func() interface{} { return decode(&corev1.Pod{}) }},
	{"a typed pod without managed fields", func() interface{} { return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}} }},
	{"a typed pod with empty managed fields", func() interface{} {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", ManagedFields: []metav1.ManagedFieldsEntry{}}}
	}},
	{"a cluster-scoped node", func() interface{} {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubelet"}}}}
	}},
	{"a PartialObjectMetadata", func() interface{} { return decode(&metav1.PartialObjectMetadata{}) }},
	{"an Unstructured", func() interface{} { return unstructuredPod() }},
	{"an Unstructured with an empty managed fields list", func() interface{} {
		u := unstructuredPod()
		u.Object["metadata"].(map[string]interface{})["managedFields"] = []interface{}{}
		return u
	}},
	{"an Unstructured without metadata", func() interface{} {
		return &unstructured.Unstructured{Object: map[string]interface{}{"kind": "Pod"}}
	}},
	{"an UnstructuredList", func() interface{} {
		return &unstructured.UnstructuredList{Object: map[string]interface{}{"kind": "PodList"},
			Items: []unstructured.Unstructured{*unstructuredPod()}}
	}},
	{"a typed PodList", func() interface{} {
		return &corev1.PodList{Items: []corev1.Pod{*decode(&corev1.Pod{}).(*corev1.Pod)}}
	}},
	{"a client-go tombstone", func() interface{} {
		return clientgocache.DeletedFinalStateUnknown{Key: "shop/p", Obj: decode(&corev1.Pod{})}
	}},
	{"nil", func() interface{} { return nil }},
	{"a string", func() interface{} { return "shop/p" }},
}

// strippedPod is the pod of podWithManagedFields without managed fields.
func strippedPod() *corev1.Pod {
	p := decode(&corev1.Pod{}).(*corev1.Pod)
	p.ManagedFields = nil
	return p
}

// strippedUnstructured is unstructuredPod without its managedFields key.
func strippedUnstructured() *unstructured.Unstructured {
	u := unstructuredPod()
	delete(u.Object["metadata"].(map[string]interface{}), "managedFields")
	return u
}

// stripDifferences are the inputs on which kcache deliberately differs from
// controller-runtime, with what each gives (see StripManagedFields's doc).
var stripDifferences = []struct {
	name             string
	build            func() interface{}
	kcache, crOutput interface{}
	crErr            string
}{
	{"a kcache tombstone (controller-runtime does not know the type)",
		func() interface{} { return kcache.DeletedFinalStateUnknown{Key: "shop/p", Obj: decode(&corev1.Pod{})} },
		kcache.DeletedFinalStateUnknown{Key: "shop/p", Obj: strippedPod()},
		kcache.DeletedFinalStateUnknown{Key: "shop/p", Obj: decode(&corev1.Pod{})}, "<nil>"},
	{"a typed nil pod (controller-runtime panics)",
		func() interface{} { return typedNilPod }, typedNilPod, nil,
		"panic: runtime error: invalid memory address or nil pointer dereference"},
	{"an Unstructured whose managed fields do not parse (controller-runtime keeps them)",
		func() interface{} {
			u := unstructuredPod()
			u.Object["metadata"].(map[string]interface{})["managedFields"] = []interface{}{"not-an-entry"}
			return u
		}, strippedUnstructured(),
		func() interface{} {
			u := unstructuredPod()
			u.Object["metadata"].(map[string]interface{})["managedFields"] = []interface{}{"not-an-entry"}
			return u
		}(), "<nil>"},
}

// TestStripManagedFieldsDoesWhatControllerRuntimesTransformDoes runs
// kcache's StripManagedFields and controller-runtime's
// TransformStripManagedFields on the same objects and compares the results.
func TestStripManagedFieldsDoesWhatControllerRuntimesTransformDoes(t *testing.T) {
	crStrip := crcache.TransformStripManagedFields()
	for _, kind := range stripKinds {
		t.Run(kind.name, func(t *testing.T) {
			want, wantErr := callRecovering(crStrip, kind.build())
			got, gotErr := callRecovering(transform.StripManagedFields, kind.build())
			if !reflect.DeepEqual(got, want) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("kcache: %#v, %v\ncontroller-runtime: %#v, %v", got, gotErr, want, wantErr)
			}
		})
	}
}

// callRecovering calls fn, turning a panic into an error.
func callRecovering(fn func(interface{}) (interface{}, error), obj interface{}) (out interface{}, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("panic: %v", r)
		}
	}()
	return fn(obj)
}

// TestStripManagedFieldsDiffersFromControllerRuntimeOnlyWhereDocumented pins
// the deliberate differences: each input gives controller-runtime's
// recorded result there and kcache's documented one here.
func TestStripManagedFieldsDiffersFromControllerRuntimeOnlyWhereDocumented(t *testing.T) {
	crStrip := crcache.TransformStripManagedFields()
	for _, d := range stripDifferences {
		t.Run(d.name, func(t *testing.T) {
			cr, crErr := callRecovering(crStrip, d.build())
			if !reflect.DeepEqual(cr, d.crOutput) || fmt.Sprint(crErr) != d.crErr {
				t.Fatalf("controller-runtime now gives %#v, %v; the documented difference is out of date", cr, crErr)
			}
			got, err := callRecovering(transform.StripManagedFields, d.build())
			if err != nil || !reflect.DeepEqual(got, d.kcache) {
				t.Fatalf("kcache: %#v, %v; want %#v", got, err, d.kcache)
			}
		})
	}
}
