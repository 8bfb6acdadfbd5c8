package clientgo

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	clientgocache "k8s.io/client-go/tools/cache"
)

// eventLog collects what handlers and watch-error handlers see and lets a
// test await given entries.
type eventLog struct {
	mu      sync.Mutex
	entries []string
	arrived chan struct{} // a value per entry
}

func newEventLog() *eventLog { return &eventLog{arrived: make(chan struct{}, 256)} }

func (l *eventLog) record(format string, args ...any) {
	l.mu.Lock()
	l.entries = append(l.entries, fmt.Sprintf(format, args...))
	l.mu.Unlock()
	l.arrived <- struct{}{}
}

// await returns once every one of wants was recorded, false after
// eventTimeout.
func (l *eventLog) await(wants ...string) bool {
	timeout := time.After(eventTimeout)
	for {
		l.mu.Lock()
		have := map[string]bool{}
		for _, e := range l.entries {
			have[e] = true
		}
		l.mu.Unlock()
		missing := false
		for _, w := range wants {
			missing = missing || !have[w]
		}
		if !missing {
			return true
		}
		select {
		case <-l.arrived:
		case <-timeout:
			return false
		}
	}
}

// sorted returns the entries recorded so far, sorted.
func (l *eventLog) sorted() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := append([]string(nil), l.entries...)
	sort.Strings(out)
	return out
}

// refuseFirstPodWatch makes the client's first watch of pods fail.
func refuseFirstPodWatch(client *fake.Clientset) {
	var once sync.Once
	client.PrependWatchReactor("pods", func(clienttesting.Action) (bool, watch.Interface, error) {
		refused := false
		once.Do(func() { refused = true })
		if refused {
			return true, nil, errors.New("watch refused")
		}
		return false, nil, nil
	})
}

// podsWithNewFuncHandlers is a newFunc that adds handlers A and B and a
// watch-error handler to the pods informer it builds; regA receives A's
// registration.
func podsWithNewFuncHandlers(log *eventLog, regA *clientgocache.ResourceEventHandlerRegistration) func(kubernetes.Interface, time.Duration) clientgocache.SharedIndexInformer {
	name := func(obj interface{}) string { return obj.(metav1.Object).GetName() }
	return func(c kubernetes.Interface, resync time.Duration) clientgocache.SharedIndexInformer {
		inf := informers.NewSharedInformerFactory(c, resync).Core().V1().Pods().Informer()
		*regA, _ = inf.AddEventHandler(clientgocache.ResourceEventHandlerFuncs{AddFunc: func(obj interface{}) { log.record("A: add %s", name(obj)) }})
		_, _ = inf.AddEventHandlerWithResyncPeriod(clientgocache.ResourceEventHandlerDetailedFuncs{AddFunc: func(obj interface{}, initial bool) {
			log.record("B: add %s initial=%v", name(obj), initial)
		}}, time.Hour)
		_ = inf.SetWatchErrorHandlerWithContext(func(_ context.Context, r *clientgocache.Reflector, err error) {
			log.record("watch error of %s: %v", r.TypeDescription(), err)
		})
		return inf
	}
}

// informerForNewFuncHandlers runs the factory's informer of pods built by
// podsWithNewFuncHandlers, with handler C added through the factory's
// informer, through a refused watch, a create, the removal of A through
// the factory's informer and another create; it renders what was seen.
func informerForNewFuncHandlers(t *testing.T, newFactory typedFactoryConstructor) string {
	t.Helper()
	client := fake.NewClientset(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "listed"}})
	refuseFirstPodWatch(client)
	f := newFactory(client, 0)
	log := newEventLog()
	var regA clientgocache.ResourceEventHandlerRegistration
	inf := f.InformerFor(&corev1.Pod{}, podsWithNewFuncHandlers(log, &regA))
	if _, err := inf.AddEventHandler(clientgocache.ResourceEventHandlerFuncs{AddFunc: func(obj interface{}) {
		log.record("C: add %s", obj.(metav1.Object).GetName())
	}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer f.Shutdown()
	defer cancel()
	f.StartWithContext(ctx)
	f.WaitForCacheSync(ctx.Done())
	create := func(name string) {
		if _, err := client.CoreV1().Pods("ns").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if !log.await("A: add listed", "B: add listed initial=true", "C: add listed", "watch error of *v1.Pod: watch refused") {
		return fmt.Sprintf("gave up waiting for the list and the watch error: %q", log.sorted())
	}
	create("watched")
	if !log.await("A: add watched", "B: add watched initial=false", "C: add watched") {
		return fmt.Sprintf("gave up waiting for the watched pod: %q", log.sorted())
	}
	removed := inf.RemoveEventHandler(regA)
	create("after-removal")
	if !log.await("B: add after-removal initial=false", "C: add after-removal") {
		return fmt.Sprintf("gave up waiting for the last pod: %q", log.sorted())
	}
	return fmt.Sprintf("removing A: %v; seen %q", removed, log.sorted())
}

func TestInformerForKeepsTheHandlersAndTheWatchErrorHandlerNewFuncInstalledAsClientGo(t *testing.T) {
	want := informerForNewFuncHandlers(t, informers.NewSharedInformerFactoryWithOptions)
	got := informerForNewFuncHandlers(t, NewSharedInformerFactoryWithOptions)
	if got != want {
		t.Errorf("kcache:\n %s\nclient-go:\n %s", got, want)
	}
}

// newFuncRegistrationSynced runs the factory's informer of pods built by
// podsWithNewFuncHandlers to sync and reports whether the registration
// newFunc got for handler A has synced once A saw the listed pod.
func newFuncRegistrationSynced(t *testing.T, newFactory typedFactoryConstructor) bool {
	t.Helper()
	f := newFactory(fake.NewClientset(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "listed"}}), 0)
	log := newEventLog()
	var regA clientgocache.ResourceEventHandlerRegistration
	inf := f.InformerFor(&corev1.Pod{}, podsWithNewFuncHandlers(log, &regA))
	ctx, cancel := context.WithCancel(context.Background())
	defer f.Shutdown()
	defer cancel()
	f.StartWithContext(ctx)
	f.WaitForCacheSync(ctx.Done())
	if !log.await("A: add listed") || !inf.HasSynced() {
		t.Fatalf("no sync: %q", log.sorted())
	}
	// NB: client-go's registration syncs once its handler took the listed
	// objects; poll it a bounded while, as cache.WaitForCacheSync would.
	syncCtx, stop := context.WithTimeout(ctx, time.Second)
	defer stop()
	return clientgocache.WaitForCacheSync(syncCtx.Done(), regA.HasSynced)
}

// A registration newFunc got from its client-go informer belongs to that
// informer, which is never run once a kcache informer took it over: it
// still removes its handler from the factory's informer, but its HasSynced
// stays false (README, Deliberate differences). This pins both sides.
func TestARegistrationNewFuncGotStaysUnsyncedOnTheKcacheInformerWhereClientGosSyncs(t *testing.T) {
	if !newFuncRegistrationSynced(t, informers.NewSharedInformerFactoryWithOptions) {
		t.Error("client-go: the registration newFunc got did not sync")
	}
	if newFuncRegistrationSynced(t, NewSharedInformerFactoryWithOptions) {
		t.Error("kcache: the registration newFunc got synced; update README's Deliberate differences and this test")
	}
}
