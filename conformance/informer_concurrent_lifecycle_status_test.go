package conformance

import (
	"context"
	"fmt"
	"os"
	goruntime "runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	kc "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/status"
	"go.uber.org/goleak"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	cg "k8s.io/client-go/tools/cache"
)

// The 16-informer lifecycle test rebuilds a lost lead (a run that hung
// 600 s with listeners idle in their select): with client-go's default
// WatchListClient gate the reflector's first request is a WatchList, and a
// watch.NewFake that never sends the initial-events-end bookmark keeps
// every informer, client-go's as kcache's, unsynced forever; an unbuffered
// fake also blocks a sender once the informer stopped. lifecycleWatch
// answers both kinds of request from a buffered fake.

// lifecycleInformer is one library's shared informer as the concurrent
// lifecycle test drives it.
type lifecycleInformer struct {
	run       func(ctx context.Context)
	hasSynced func() bool
	addCount  func(n *atomic.Int64, fourth chan<- struct{}) error
}

// lifecycleLib builds one library's informer over list and watch funcs.
type lifecycleLib func(list func(metav1.ListOptions) (runtime.Object, error), wt func(metav1.ListOptions) (watch.Interface, error)) lifecycleInformer

func clientGoLifecycle(list func(metav1.ListOptions) (runtime.Object, error), wt func(metav1.ListOptions) (watch.Interface, error)) lifecycleInformer {
	inf := cg.NewSharedIndexInformer(&cg.ListWatch{ListFunc: list, WatchFunc: wt}, &v1.Pod{}, 0, cg.Indexers{})
	return lifecycleInformer{run: inf.RunWithContext, hasSynced: inf.HasSynced, addCount: func(n *atomic.Int64, fourth chan<- struct{}) error {
		_, err := inf.AddEventHandler(cg.ResourceEventHandlerFuncs{AddFunc: func(any) { countAdd(n, fourth) }})
		return err
	}}
}

func kcacheLifecycle(list func(metav1.ListOptions) (runtime.Object, error), wt func(metav1.ListOptions) (watch.Interface, error)) lifecycleInformer {
	inf := kc.NewSharedIndexInformer(&kc.ListWatch{ListFunc: list, WatchFunc: wt}, &v1.Pod{}, 0, kc.Indexers{})
	return lifecycleInformer{run: inf.RunWithContext, hasSynced: inf.HasSynced, addCount: func(n *atomic.Int64, fourth chan<- struct{}) error {
		_, err := inf.AddEventHandler(kc.ResourceEventHandlerFuncs{AddFunc: func(any) { countAdd(n, fourth) }})
		return err
	}}
}

// countAdd counts an add and closes fourth at the fourth.
func countAdd(n *atomic.Int64, fourth chan<- struct{}) {
	if n.Add(1) == 4 {
		close(fourth)
	}
}

// lifecyclePods is a list of three pods at resource version 10.
func lifecyclePods(metav1.ListOptions) (runtime.Object, error) {
	l := &v1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "10"}}
	for i := range 3 {
		l.Items = append(l.Items, v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("p%d", i), ResourceVersion: "10"}})
	}
	return l, nil
}

// lifecycleWatch answers a watch, buffered so that no send ever blocks: a
// WatchList request (SendInitialEvents) gets the three pods and the
// initial-events-end bookmark, then, like a plain watch, one added pod.
func lifecycleWatch(opts metav1.ListOptions) (watch.Interface, error) {
	w := watch.NewFakeWithChanSize(8, false)
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents {
		l, _ := lifecyclePods(opts)
		for i := range l.(*v1.PodList).Items {
			w.Add(&l.(*v1.PodList).Items[i])
		}
		w.Action(watch.Bookmark, &v1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "10",
			Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}})
	}
	w.Add(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "new", ResourceVersion: "11"}})
	return w, nil
}

// lifecycleRound starts, syncs and cancels one informer; the test waits for
// the four adds (three listed pods, one watched) before cancelling.
func lifecycleRound(lib lifecycleLib, waitSync bool) error {
	inf := lib(lifecyclePods, lifecycleWatch)
	var added atomic.Int64
	fourth := make(chan struct{})
	if err := inf.addCount(&added, fourth); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { defer close(ran); inf.run(ctx) }()
	defer func() { cancel(); <-ran }()
	if !waitSync {
		return nil
	}
	select {
	case <-ran:
		return fmt.Errorf("informer returned before it synced")
	case <-fourth:
	}
	// client-go's HasSynced may turn true just after the fourth add (the
	// watched pod can share a batch with the listed ones): wait for it.
	for !inf.hasSynced() {
		select {
		case <-ran:
			return fmt.Errorf("informer returned before HasSynced")
		default:
			goruntime.Gosched()
		}
	}
	return nil
}

// runLifecycle runs 16 informers' rounds at once, rounds times, while
// status.Informers is polled; it fails with a goroutine dump if they do not
// all finish within limit.
func runLifecycle(t *testing.T, lib lifecycleLib, waitSync bool, rounds int, limit time.Duration) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var stop atomic.Bool
	var poll sync.WaitGroup
	poll.Go(func() {
		for !stop.Load() {
			_ = status.Informers()
		}
	})
	defer func() { stop.Store(true); poll.Wait() }()
	done := make(chan error, 16)
	for range 16 {
		go func() {
			for range rounds {
				if err := lifecycleRound(lib, waitSync); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	deadline := time.After(limit)
	for range 16 {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-deadline:
			_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 1)
			t.Fatalf("16 informers did not start, sync and stop within %v", limit)
		}
	}
}

func TestSixteenInformersStartSyncAndStopConcurrentlyWhileTheStatusListIsPolled(t *testing.T) {
	for name, lib := range map[string]lifecycleLib{"client-go": clientGoLifecycle, "kcache": kcacheLifecycle} {
		t.Run(name+"/synced", func(t *testing.T) { runLifecycle(t, lib, true, 50, 60*time.Second) })
		t.Run(name+"/cancelled at once", func(t *testing.T) { runLifecycle(t, lib, false, 50, 60*time.Second) })
	}
}
