package fastlw_test

import (
	"fmt"
	"reflect"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// newPods returns n pods of namespace ns with the fields a real pod
// carries (labels, annotations, owner, containers, status), resource
// versions 1..n.
func newPods(n int) []corev1.Pod {
	pods := make([]corev1.Pod, n)
	for i := range pods {
		pods[i] = newPod(fmt.Sprintf("pod-%03d", i), strconv.Itoa(i+1))
	}
	return pods
}

// newPod returns one realistic pod.
func newPod(name, rv string) corev1.Pod {
	return corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "ns", ResourceVersion: rv, UID: types.UID("uid-" + name),
			Labels:          map[string]string{"app": "web", "pod-template-hash": "5d8f7c"},
			Annotations:     map[string]string{"example.com/owner": "team-a"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-5d8f7c", UID: "rs-uid"}},
		},
		Spec: corev1.PodSpec{
			NodeName: "node-1",
			Containers: []corev1.Container{{
				Name: "app", Image: "registry.example.com/web:1.2.3",
				Env:       []corev1.EnvVar{{Name: "MODE", Value: "production"}, {Name: "POD", Value: name}},
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}},
				Ports:     []corev1.ContainerPort{{ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
			}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.1",
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
	}
}

// sameError reports whether two errors are the same for a caller: the same
// type and message, and equal when compared deeply.
func sameError(a, b error) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	if a == nil {
		return true
	}
	return fmt.Sprintf("%T %v", a, a) == fmt.Sprintf("%T %v", b, b) && reflect.DeepEqual(a, b)
}
