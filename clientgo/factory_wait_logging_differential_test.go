package clientgo

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/dynamicinformer"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/klog/v2"
)

// logRecorder records every log line of the loggers it makes.
type logRecorder struct {
	mu    sync.Mutex
	lines []string
}

func (r *logRecorder) logger() logr.Logger {
	return funcr.New(func(prefix, args string) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.lines = append(r.lines, prefix+" "+args)
	}, funcr.Options{Verbosity: 10})
}

// take returns the lines recorded since the last take.
func (r *logRecorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.lines
	r.lines = nil
	return out
}

// waitingFactory is what every factory offers to wait for its caches.
type waitingFactory struct {
	start            func(context.Context)
	waitForCacheSync func(<-chan struct{}) string
	// waitWithContext is nil for factories without WaitForCacheSyncWithContext.
	waitWithContext func(context.Context) string
	shutdown        func()
}

// waitLogs syncs f's informers, then records what its WaitForCacheSync
// methods log, through klog's global logger and the context's, on the
// second and third call (the informers have synced: anything logged comes
// from the waits).
func waitLogs(t *testing.T, f waitingFactory) string {
	t.Helper()
	rec := &logRecorder{}
	klog.SetLogger(rec.logger())
	defer klog.ClearLogger()
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), rec.logger()))
	defer f.shutdown()
	defer cancel()
	f.start(ctx)
	first := f.waitForCacheSync(ctx.Done())
	rec.take()
	out := fmt.Sprintf("first %s; WaitForCacheSync %s logs %q", first, f.waitForCacheSync(ctx.Done()), rec.take())
	if f.waitWithContext != nil {
		out += fmt.Sprintf("; WaitForCacheSyncWithContext %s logs %q", f.waitWithContext(ctx), rec.take())
	}
	return out
}

func typedWaitingFactory(newFactory typedFactoryConstructor) waitingFactory {
	f := newFactory(fake.NewClientset(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}), 0)
	f.Core().V1().Pods().Informer()
	f.Core().V1().ConfigMaps().Informer()
	return waitingFactory{
		start:            f.StartWithContext,
		waitForCacheSync: func(stop <-chan struct{}) string { return fmt.Sprint(f.WaitForCacheSync(stop)) },
		waitWithContext:  func(ctx context.Context) string { return fmt.Sprint(f.WaitForCacheSyncWithContext(ctx)) },
		shutdown:         f.Shutdown,
	}
}

func resourceWaitingFactory(f resourceFactory) waitingFactory {
	f.ForResource(schema.GroupVersionResource{Version: "v1", Resource: "pods"})
	return waitingFactory{
		start:            func(ctx context.Context) { f.Start(ctx.Done()) },
		waitForCacheSync: func(stop <-chan struct{}) string { return fmt.Sprint(f.WaitForCacheSync(stop)) },
		shutdown:         f.Shutdown,
	}
}

func TestFactoriesWaitForCacheSyncWithoutLoggingAsClientGos(t *testing.T) {
	dynamicClient := func() *dynamicfake.FakeDynamicClient {
		return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
			map[schema.GroupVersionResource]string{podsResource: "PodList"}, resourceTestPods()...)
	}
	metadataClient := func() *metadatafake.FakeMetadataClient {
		return metadatafake.NewSimpleMetadataClient(metadatafake.NewTestScheme())
	}
	cases := []struct {
		name         string
		ours, theirs func() waitingFactory
	}{
		{"typed",
			func() waitingFactory { return typedWaitingFactory(NewSharedInformerFactoryWithOptions) },
			func() waitingFactory { return typedWaitingFactory(informers.NewSharedInformerFactoryWithOptions) }},
		{"dynamic",
			func() waitingFactory {
				return resourceWaitingFactory(NewDynamicSharedInformerFactory(dynamicClient(), 0))
			},
			func() waitingFactory {
				return resourceWaitingFactory(dynamicinformer.NewDynamicSharedInformerFactory(dynamicClient(), 0))
			}},
		{"metadata",
			func() waitingFactory {
				return resourceWaitingFactory(NewMetadataSharedInformerFactory(metadataClient(), 0))
			},
			func() waitingFactory {
				return resourceWaitingFactory(metadatainformer.NewSharedInformerFactory(metadataClient(), 0))
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := waitLogs(t, tc.ours()), waitLogs(t, tc.theirs()); got != want {
				t.Errorf("kcache:\n %s\nclient-go:\n %s", got, want)
			}
		})
	}
}
