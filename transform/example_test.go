package transform_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kcache "github.com/kcache-go/cache"
	fcache "github.com/kcache-go/cache/testing"
	"github.com/kcache-go/cache/transform"
)

// An informer that strips managed fields and the last-applied annotation
// and interns metadata strings before objects reach its store.
func ExampleRecommended() {
	source := fcache.NewFakeControllerSource()
	defer source.Shutdown()
	source.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Namespace: "shop", Name: "web-1",
		Annotations:   map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{}"},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
	}})
	informer := kcache.NewSharedIndexInformer(source, &corev1.Pod{}, 0, kcache.Indexers{})
	if err := informer.SetTransform(transform.Recommended); err != nil {
		panic(err)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { defer close(done); informer.Run(stop) }()
	kcache.WaitForCacheSync(stop, informer.HasSynced)
	obj, _, _ := informer.GetStore().GetByKey("shop/web-1")
	pod := obj.(*corev1.Pod)
	fmt.Println(pod.ManagedFields == nil, pod.Annotations == nil)
	close(stop)
	<-done
	// Output: true true
}

// A transform of one's own runs first, so that it still sees what the
// memory transforms remove; nil entries are skipped.
func ExampleChain() {
	var keepOwner kcache.TransformFunc = func(obj interface{}) (interface{}, error) {
		if pod, ok := obj.(*corev1.Pod); ok && len(pod.ManagedFields) > 0 {
			pod.Labels = map[string]string{"last-manager": pod.ManagedFields[0].Manager}
		}
		return obj, nil
	}
	chain := transform.Chain(keepOwner, nil, transform.Recommended)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-1",
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "helm"}}}}
	out, err := chain(pod)
	fmt.Println(out.(*corev1.Pod).Labels["last-manager"], out.(*corev1.Pod).ManagedFields == nil, err)
	// Output: helm true <nil>
}

// Pods of one template share the parts of their spec that are equal, once
// ShareIdenticalPodParts is chained after the recommended transform. Only
// for consumers that never write to cached pods: a write to a shared part
// of one pod shows in every pod of its template. Run their tests with
// KUBE_CACHE_MUTATION_DETECTOR=true.
func ExampleShareIdenticalPodParts() {
	chain := transform.Chain(transform.Recommended, transform.ShareIdenticalPodParts)
	pod := func(name string) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Args: []string{"--port=8080"}}}}}
		out, _ := chain(p)
		return out.(*corev1.Pod)
	}
	a, b := pod("web-1"), pod("web-2")
	fmt.Println(&a.Spec.Containers[0].Args[0] == &b.Spec.Containers[0].Args[0])
	// Output: true
}
