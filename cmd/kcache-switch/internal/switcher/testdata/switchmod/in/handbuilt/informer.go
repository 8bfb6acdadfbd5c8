// Package handbuilt builds its informer by hand from tools/cache: the
// whole import switches to kcache.
package handbuilt

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// Watch runs a pod informer that reports deleted pods, tombstones
// included.
func Watch(ctx context.Context, client kubernetes.Interface, deleted func(string)) (cache.SharedIndexInformer, error) {
	lw := cache.NewListWatchFromClient(client.CoreV1().RESTClient(), "pods", "", fields.Everything())
	inf := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		DeleteFunc: func(obj any) {
			if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tombstone.Obj
			}
			if pod, ok := obj.(*corev1.Pod); ok {
				deleted(pod.Name)
			}
		},
	})
	if err != nil {
		return nil, err
	}
	go inf.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return nil, errors.New("pods not synced")
	}
	return inf, nil
}
