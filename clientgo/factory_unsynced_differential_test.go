package clientgo

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
)

// waitUnsynced starts a typed factory whose pods list always fails beside
// a config map informer that syncs, and renders what its waits report once
// the context was cancelled with a cause.
func waitUnsynced(t *testing.T, newFactory typedFactoryConstructor) string {
	t.Helper()
	client := fake.NewClientset()
	client.PrependReactor("list", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("list refused")
	})
	f := newFactory(client, 0)
	pods := f.Core().V1().Pods().Informer()
	configMaps := f.Core().V1().ConfigMaps().Informer()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer f.Shutdown()
	f.StartWithContext(ctx)
	stop := make(chan struct{})
	go func() {
		<-configMaps.HasSyncedChecker().Done()
		cancel(errors.New("gave up"))
		close(stop)
	}()
	res := f.WaitForCacheSyncWithContext(ctx)
	<-stop
	return fmt.Sprintf("WithContext: synced %v, err %v, AsError %v; WaitForCacheSync %v; pods synced %v",
		res.Synced, res.Err, res.AsError(), f.WaitForCacheSync(stop), pods.HasSynced())
}

func TestTheTypedFactoryReportsAnUnsyncedInformerAsClientGos(t *testing.T) {
	want := waitUnsynced(t, informers.NewSharedInformerFactoryWithOptions)
	got := waitUnsynced(t, NewSharedInformerFactoryWithOptions)
	if got != want {
		t.Errorf("kcache:\n %s\nclient-go:\n %s", got, want)
	}
}
