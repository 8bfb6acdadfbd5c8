package cache

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestAddingAHandlerWhileTheInformerSyncsNeverDeadlocks adds handlers in a
// loop while an informer with many registrations syncs: the processor's
// sync announcement must not hold its lock while it asks the informer
// whether it synced (the informer's lock is held by AddEventHandler while it
// takes the processor's lock).
func TestAddingAHandlerWhileTheInformerSyncsNeverDeadlocks(t *testing.T) {
	for round := 0; round < 5; round++ {
		src := newInformerTestSource(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: "1"}})
		inf := NewSharedIndexInformer(src, &v1.Pod{}, 0, Indexers{})
		for i := 0; i < 500; i++ {
			if _, err := inf.AddEventHandler(&lockedPodLog{}); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { inf.RunWithContext(ctx); close(done) }()
		adding := make(chan struct{})
		go func() {
			defer close(adding)
			for !inf.HasSynced() {
				inf.AddEventHandler(&lockedPodLog{})
			}
			for i := 0; i < 200; i++ {
				inf.AddEventHandler(&lockedPodLog{})
			}
		}()
		select {
		case <-adding:
		case <-time.After(time.Minute): // generous: a deadlock never ends, a loaded machine does
			t.Fatalf("round %d: AddEventHandler deadlocked with the sync announcement", round)
		}
		<-src.watchers
		cancel()
		<-done

	}
}
