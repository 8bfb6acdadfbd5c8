package conformance

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/features"
	featuretesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/kubernetes/fake"
	clientgocache "k8s.io/client-go/tools/cache"

	kcache "github.com/kcache-go/cache"
)

// versionedInformer is what both libraries' shared informers offer for
// reading resource versions.
type versionedInformer interface {
	RunWithContext(context.Context)
	HasSynced() bool
	LastSyncResourceVersion() string
}

// listedAtRV42 lists one pod at resource version 42 and then watches
// nothing; it declares no WatchList support, so both libraries list.
func listedAtRV42() *clientgocache.ListWatch {
	return &clientgocache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "42"},
				Items: []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: "41"}}}}, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
			return watch.NewFake(), nil
		},
	}
}

// informerControllerVersions syncs inf and reads the resource version of
// its GetController() (one taken before the gate flips and one after) and
// its own, with InformerResourceVersion on and off.
func informerControllerVersions(t *testing.T, inf versionedInformer, controller func() interface{ LastSyncResourceVersion() string }) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); inf.RunWithContext(ctx) }()
	defer func() { cancel(); <-done }()
	if !clientgocache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("the informer did not sync")
	}
	earlier := controller()
	out := ""
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprintf("InformerResourceVersion=%v", on), func(t *testing.T) {
			featuretesting.SetFeatureDuringTest(t, features.InformerResourceVersion, on)
			out += fmt.Sprintf("gate %v: controller %q, earlier controller %q, informer %q; ", on,
				controller().LastSyncResourceVersion(), earlier.LastSyncResourceVersion(), inf.LastSyncResourceVersion())
		})
	}
	return out
}

func TestAnInformersControllerHasNoResourceVersionWhileInformerResourceVersionIsOffAsClientGos(t *testing.T) {
	lw := func() clientgocache.ListerWatcher {
		return clientgocache.ToListWatcherWithWatchListSemantics(listedAtRV42(), fake.NewClientset())
	}
	cg := clientgocache.NewSharedIndexInformer(lw(), &corev1.Pod{}, 0, clientgocache.Indexers{})
	want := informerControllerVersions(t, cg, func() interface{ LastSyncResourceVersion() string } { return cg.GetController() })
	kc := kcache.NewSharedIndexInformer(lw(), &corev1.Pod{}, 0, kcache.Indexers{})
	got := informerControllerVersions(t, kc, func() interface{ LastSyncResourceVersion() string } { return kc.GetController() })
	if got != want {
		t.Errorf("kcache:\n %s\nclient-go:\n %s", got, want)
	}
}
