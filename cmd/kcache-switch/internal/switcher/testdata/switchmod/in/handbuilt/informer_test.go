package handbuilt

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	fcache "k8s.io/client-go/tools/cache/testing"
)

func TestAFakeSourceFeedsAnInformer(t *testing.T) {
	src := fcache.NewFakeControllerSource()
	src.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}})
	inf := cache.NewSharedIndexInformer(src, &corev1.Pod{}, 0, cache.Indexers{})
	stop := make(chan struct{})
	defer close(stop)
	go inf.Run(stop)
	if !cache.WaitForCacheSync(stop, inf.HasSynced) {
		t.Fatal("not synced")
	}
}
