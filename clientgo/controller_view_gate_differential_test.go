package clientgo

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/features"
	featuretesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/kubernetes/fake"
	clientgocache "k8s.io/client-go/tools/cache"
)

// listedAt42 lists one pod at resource version 42 and then watches
// nothing.
func listedAt42() clientgocache.ListerWatcher {
	return clientgocache.ToListWatcherWithWatchListSemantics(&clientgocache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "42"},
				Items: []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: "41"}}}}, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
			return watch.NewFake(), nil
		},
	}, fake.NewClientset())
}

// controllerVersions runs an informer to sync, then reads the resource
// version of its controller and its own with InformerResourceVersion on and
// off (the gate is read at each call, in client-go).
func controllerVersions(t *testing.T, newInformer func(clientgocache.ListerWatcher, runtime.Object, time.Duration, clientgocache.Indexers) clientgocache.SharedIndexInformer) string {
	t.Helper()
	inf := newInformer(listedAt42(), &corev1.Pod{}, 0, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); inf.RunWithContext(ctx) }()
	defer func() { cancel(); <-done }()
	if !clientgocache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("no sync")
	}
	earlier := inf.GetController()
	out := ""
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprintf("InformerResourceVersion %v", on), func(t *testing.T) {
			featuretesting.SetFeatureDuringTest(t, features.InformerResourceVersion, on)
			out += fmt.Sprintf("gate %v: controller %q, earlier controller %q, informer %q; ", on,
				inf.GetController().LastSyncResourceVersion(), earlier.LastSyncResourceVersion(), inf.LastSyncResourceVersion())
		})
	}
	return out
}

func TestTheViewsControllerHasNoResourceVersionWhileInformerResourceVersionIsOffAsClientGos(t *testing.T) {
	want := controllerVersions(t, clientgocache.NewSharedIndexInformer)
	got := controllerVersions(t, NewSharedIndexInformer)
	if got != want {
		t.Errorf("view:\n %s\nclient-go:\n %s", got, want)
	}
}
