package clientgo

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	clientgocache "k8s.io/client-go/tools/cache"
)

// TestOnKcacheOfAClientGoInformerThatWasStartedOrHasHandlersPanicsInsteadOfDroppingThem
// gives OnKcache client-go informers it cannot take over without losing
// something: one already running (the kcache informer would be a second,
// empty and unstarted, informer beside it) and one with an event handler
// (which would never be called again). Each is a clear panic, never a
// silently different informer.
func TestOnKcacheOfAClientGoInformerThatWasStartedOrHasHandlersPanicsInsteadOfDroppingThem(t *testing.T) {
	cases := []struct {
		name  string
		built func(t *testing.T) clientgocache.SharedIndexInformer
		want  string
	}{
		{"a running informer", func(t *testing.T) clientgocache.SharedIndexInformer {
			inf := coreinformers.NewPodInformer(newGapFixture(t).typed, metav1.NamespaceAll, 0, clientgocache.Indexers{})
			t.Cleanup(runUntilStopped(inf))
			if !clientgocache.WaitForCacheSync(nil, inf.HasSynced) {
				t.Fatal("no sync")
			}
			return inf
		}, "started"},
		{"an informer with an event handler", func(t *testing.T) clientgocache.SharedIndexInformer {
			inf := coreinformers.NewPodInformer(newGapFixture(t).typed, metav1.NamespaceAll, 0, clientgocache.Indexers{})
			if _, err := inf.AddEventHandler(clientgocache.ResourceEventHandlerFuncs{}); err != nil {
				t.Fatal(err)
			}
			return inf
		}, "event handler"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			built := tc.built(t)
			defer func() {
				msg, _ := recover().(string)
				if !strings.Contains(msg, "OnKcache") || !strings.Contains(msg, tc.want) {
					t.Errorf("OnKcache panicked with %q, want a panic naming OnKcache and %q", msg, tc.want)
				}
			}()
			got := OnKcache(built)
			_, isKcache := KcacheInformer(got)
			t.Errorf("OnKcache returned %T (kcache: %v), synced %v, %d objects; want a panic", got, isKcache, got.HasSynced(), len(got.GetStore().List()))
		})
	}
}

// TestOnKcacheKeepsAWatchErrorHandlerSetBeforeAndCallsItAsClientGoDoes
// sets a watch-error handler on a typed constructor's informer whose list
// fails, and runs it as client-go and through OnKcache: both call the
// handler with the list's error.
func TestOnKcacheKeepsAWatchErrorHandlerSetBeforeAndCallsItAsClientGoDoes(t *testing.T) {
	got := map[string]string{}
	for _, side := range []string{"client-go", "kcache"} {
		client := fake.NewClientset()
		client.PrependReactor("list", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
			return true, nil, errors.New("the list fails")
		})
		inf := coreinformers.NewPodInformer(client, metav1.NamespaceAll, 0, clientgocache.Indexers{})
		seen := make(chan string, 1)
		if err := inf.SetWatchErrorHandlerWithContext(func(_ context.Context, r *clientgocache.Reflector, err error) {
			select {
			case seen <- err.Error():
			default:
			}
		}); err != nil {
			t.Fatal(err)
		}
		if side == "kcache" {
			inf = OnKcache(inf)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); inf.RunWithContext(ctx) }()
		select {
		case got[side] = <-seen:
		case <-time.After(10 * time.Second): // NB: only a dropped handler waits this long
			got[side] = "handler never called"
		}
		cancel()
		<-done
	}
	if got["kcache"] != got["client-go"] {
		t.Errorf("watch-error handler: kcache %q, client-go %q", got["kcache"], got["client-go"])
	}
}
