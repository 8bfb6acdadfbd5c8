package conformance

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	kcache "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// informerBadInputs are objects a source hands an informer built without
// an example object (so the Reflector checks no type): they reach the
// queue's key function, the cache and the handlers.
var informerBadInputs = []struct {
	name string
	obj  runtime.Object
}{
	{"object without metadata", &metav1.Status{Message: "no metadata"}},
	{"pod with a two-slash name", &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a/b", ResourceVersion: "11"}}},
	{"pod without a name", &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", ResourceVersion: "11"}}},
	{"unknown raw object", &runtime.Unknown{Raw: []byte("{}")}},
}

// informerBadInputSide builds one library's shared informer without an
// example object and returns what the play needs.
type informerBadInputSide func(lw *informerScriptedSource, h *informerCrashHandler) (run func(context.Context), keys func() []string)

func informerBadInputClientGo(lw *informerScriptedSource, h *informerCrashHandler) (func(context.Context), func() []string) {
	inf := cache.NewSharedIndexInformer(lw, nil, 0, cache.Indexers{})
	if _, err := inf.AddEventHandler(h); err != nil {
		panic(err)
	}
	return inf.RunWithContext, inf.GetStore().ListKeys
}

func informerBadInputKcache(lw *informerScriptedSource, h *informerCrashHandler) (func(context.Context), func() []string) {
	inf := kcache.NewSharedIndexInformer(lw, nil, 0, kcache.Indexers{})
	if _, err := inf.AddEventHandler(h); err != nil {
		panic(err)
	}
	return inf.RunWithContext, inf.GetStore().ListKeys
}

func informerBadInputPlay(t *testing.T, obj runtime.Object, side informerBadInputSide) informerCrashTrace {
	var trace informerCrashTrace
	var mu sync.Mutex
	defer informerCatchCrashes(&mu, func() { trace.Panics++ }, func(msg string, err error) {
		trace.APIs = append(trace.APIs, fmt.Sprintf("error handler: %s: %v", msg, err))
	})()
	synctest.Test(t, func(t *testing.T) {
		logger := informerCaptureLogger(&mu, &trace.Logs)
		klog.SetLogger(logger.WithName("global"))
		defer klog.ClearLogger()
		lw := &informerScriptedSource{lists: []informerListResponse{{RV: "10", Pods: []string{"a@1"}}}, watchers: make(chan *watch.FakeWatcher, 16)}
		h := &informerCrashHandler{start: time.Now()}
		run, keys := side(lw, h)
		ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger.WithName("ctx")))
		done := make(chan struct{})
		go func() { run(ctx); close(done) }()
		w := <-lw.watchers
		synctest.Wait()
		w.Add(obj)
		synctest.Wait()
		w.Add(informerParsePod("c@12"))
		time.Sleep(1500 * time.Millisecond)
		k := keys()
		sort.Strings(k)
		trace.Contents = k
		cancel()
		<-done
		mu.Lock()
		trace.APIs = append(trace.APIs, fmt.Sprintf("source calls: %s", strings.Join(lw.calls, "; ")))
		mu.Unlock()
		h.mu.Lock()
		trace.Events = h.events
		h.mu.Unlock()
	})
	// NB: lines logged by different goroutines at the same (fake) instant
	// come in either order in both libraries; compare them as a multiset.
	sort.Strings(trace.Logs)
	return trace
}

// TestInformerHandlesBadObjectsFromItsSourceAsClientGo lets a source hand
// an informer without example object objects its key function rejects or
// keys oddly, in every gate mode, and requires client-go's handler calls,
// cache keys, panics, error handler calls, log lines and source calls.
func TestInformerHandlesBadObjectsFromItsSourceAsClientGo(t *testing.T) {
	// NB: utilruntime.HandleError's rate limiter keeps the time of the last
	// error process-wide; when that time is real (or from before the
	// bubble's clock), the first error inside a synctest bubble sleeps for
	// years of fake time, and whichever library plays first loses its
	// later events. One throw-away play sets it inside a bubble first.
	informerBadInputPlay(t, informerBadInputs[0].obj.DeepCopyObject(), informerBadInputClientGo)
	for _, in := range informerBadInputs {
		t.Run(in.name, func(t *testing.T) {
			for _, mode := range informerModes {
				t.Run(mode.Name, func(t *testing.T) {
					informerSetGates(t, mode.Gates)
					if informerWatchListOn() {
						t.Skip("the object arrives on the watch after the list; how the list was read does not matter")
					}
					want := informerBadInputPlay(t, in.obj.DeepCopyObject(), informerBadInputClientGo)
					got := informerBadInputPlay(t, in.obj.DeepCopyObject(), informerBadInputKcache)
					if !reflect.DeepEqual(want, got) {
						t.Errorf("kcache differs from client-go:\n%s", informerTraceDiff(want, got))
					}
				})
			}
		})
	}
}
