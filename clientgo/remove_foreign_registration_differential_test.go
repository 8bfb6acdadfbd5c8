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

// otherRegistration is a registration type of neither library.
type otherRegistration struct {
	clientgocache.ResourceEventHandlerRegistration
}

// removeEach builds informers a and b with newInformer and c with
// client-go, then has a remove each kind of handle (twice) before Run,
// while it runs and, the handles of the running phase, after it stopped,
// rendering every answer.
func removeEach(t *testing.T, newInformer func(clientgocache.ListerWatcher, runtime.Object, time.Duration, clientgocache.Indexers) clientgocache.SharedIndexInformer) []string {
	t.Helper()
	a := newInformer(listedAt42(), &corev1.Pod{}, 0, nil)
	b := newInformer(listedAt42(), &corev1.Pod{}, 0, nil)
	c := clientgocache.NewSharedIndexInformer(listedAt42(), &corev1.Pod{}, 0, nil)
	add := func(inf clientgocache.SharedIndexInformer) clientgocache.ResourceEventHandlerRegistration {
		reg, err := inf.AddEventHandler(clientgocache.ResourceEventHandlerFuncs{})
		if err != nil {
			t.Fatal(err)
		}
		return reg
	}
	type handle struct {
		name   string
		handle clientgocache.ResourceEventHandlerRegistration
	}
	handles := func() []handle {
		return []handle{
			{"its own", add(a)}, {"another informer's", add(b)}, {"a client-go informer's", add(c)},
			{"nil", nil}, {"another type's", otherRegistration{}}, {"another type's pointer", &otherRegistration{}},
		}
	}
	var out []string
	removeAll := func(phase string, hs []handle) {
		for _, h := range hs {
			first, again := a.RemoveEventHandler(h.handle), a.RemoveEventHandler(h.handle)
			// NB: %.200v: client-go renders a refused handle field by field.
			out = append(out, fmt.Sprintf("%s, %s: %.200v, again: %.200v", phase, h.name, first, again))
		}
	}
	removeAll("before Run", handles())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); a.RunWithContext(ctx) }()
	clientgocache.WaitForCacheSync(ctx.Done(), a.HasSynced)
	whileRunning := handles()
	removeAll("running", whileRunning)
	cancel()
	<-done
	removeAll("after stop", whileRunning)
	return out
}

func TestRemoveEventHandlerOfAClientGoInformersRegistrationIsNilAsInClientGo(t *testing.T) {
	want := removeEach(t, clientgocache.NewSharedIndexInformer)
	got := removeEach(t, NewSharedIndexInformer)
	viewCompareLines(t, want, got)
}
