package clientgo

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	clientgocache "k8s.io/client-go/tools/cache"
)

// eventTimeout bounds a wait for an event that should come; reaching it is
// a failure, never a step of the test.
const eventTimeout = 30 * time.Second

// informerForAnotherType asks f for the informer of pods with a newFunc
// that builds one of config maps, syncs it, creates a config map and
// renders the cache once the informer's handler saw it (or gave up).
func informerForAnotherType(t *testing.T, newFactory typedFactoryConstructor) string {
	t.Helper()
	client := fake.NewClientset(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "listed"}})
	f := newFactory(client, 0)
	inf := f.InformerFor(&corev1.Pod{}, func(c kubernetes.Interface, resync time.Duration) clientgocache.SharedIndexInformer {
		return informers.NewSharedInformerFactory(c, resync).Core().V1().ConfigMaps().Informer()
	})
	added := make(chan string, 8)
	if _, err := inf.AddEventHandler(clientgocache.ResourceEventHandlerFuncs{AddFunc: func(obj interface{}) {
		added <- obj.(metav1.Object).GetName()
	}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer f.Shutdown()
	defer cancel()
	f.StartWithContext(ctx)
	synced := f.WaitForCacheSync(ctx.Done())
	if _, err := client.CoreV1().ConfigMaps("ns").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "watched"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var seen []string
	timeout := time.After(eventTimeout)
	for len(seen) < 2 {
		select {
		case name := <-added:
			seen = append(seen, name)
		case <-timeout:
			return fmt.Sprintf("synced %v, handler saw only %v, cache %v", synced, seen, sortedKeys(inf.GetStore()))
		}
	}
	return fmt.Sprintf("synced %v, handler saw %v, cache %v", synced, seen, sortedKeys(inf.GetStore()))
}

// sortedKeys is s.ListKeys() sorted (client-go lists in map order).
func sortedKeys(s clientgocache.Store) []string {
	keys := s.ListKeys()
	sort.Strings(keys)
	return keys
}

func TestInformerForCachesWhatTheNewFuncsInformerListsAndWatchesAsClientGo(t *testing.T) {
	want := informerForAnotherType(t, informers.NewSharedInformerFactoryWithOptions)
	got := informerForAnotherType(t, NewSharedInformerFactoryWithOptions)
	if got != want {
		t.Errorf("kcache:\n %s\nclient-go:\n %s", got, want)
	}
}
