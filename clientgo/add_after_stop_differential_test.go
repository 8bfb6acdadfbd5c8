package clientgo

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgocache "k8s.io/client-go/tools/cache"
)

// countingHandler is a caller's own handler type.
type countingHandler struct {
	clientgocache.ResourceEventHandler
	N int
}

// addAfterStop runs an informer to sync, stops it, then adds each handler
// with each AddEventHandler method and renders what came back.
func addAfterStop(t *testing.T, newInformer func(clientgocache.ListerWatcher, runtime.Object, time.Duration, clientgocache.Indexers) clientgocache.SharedIndexInformer) []string {
	t.Helper()
	inf := newInformer(listedAt42(), &corev1.Pod{}, 0, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); inf.RunWithContext(ctx) }()
	clientgocache.WaitForCacheSync(ctx.Done(), inf.HasSynced)
	cancel()
	<-done
	handlers := []clientgocache.ResourceEventHandler{
		clientgocache.ResourceEventHandlerFuncs{},
		clientgocache.ResourceEventHandlerFuncs{AddFunc: func(interface{}) {}, DeleteFunc: func(interface{}) {}},
		clientgocache.ResourceEventHandlerDetailedFuncs{AddFunc: func(interface{}, bool) {}},
		clientgocache.FilteringResourceEventHandler{FilterFunc: func(interface{}) bool { return true }},
		countingHandler{N: 7},
		&countingHandler{N: 8},
		nil,
	}
	var out []string
	for _, h := range handlers {
		for _, add := range []func() (clientgocache.ResourceEventHandlerRegistration, error){
			func() (clientgocache.ResourceEventHandlerRegistration, error) { return inf.AddEventHandler(h) },
			func() (clientgocache.ResourceEventHandlerRegistration, error) {
				return inf.AddEventHandlerWithResyncPeriod(h, time.Minute)
			},
			func() (clientgocache.ResourceEventHandlerRegistration, error) {
				return inf.AddEventHandlerWithOptions(h, clientgocache.HandlerOptions{})
			},
		} {
			reg, err := add()
			out = append(out, fmt.Sprintf("registration %v, error %v", reg, err))
		}
	}
	return out
}

func TestAddEventHandlerAfterStopNamesTheCallersHandlerAsClientGo(t *testing.T) {
	want := addAfterStop(t, clientgocache.NewSharedIndexInformer)
	got := addAfterStop(t, NewSharedIndexInformer)
	viewCompareLines(t, want, got)
}
