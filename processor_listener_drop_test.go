package cache

import (
	"fmt"
	"testing"
	"testing/synctest"

	v1 "k8s.io/api/core/v1"
)

// TestARemovedOrStoppedHandlerReportsNoBacklog removes a handler blocked
// with a backlog (and stops another): once its goroutine has returned, the
// notifications it dropped are no longer reported by KcachePendingNotifications
// nor by its pending-notifications gauge.
func TestARemovedOrStoppedHandlerReportsNoBacklog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newInformerTestSource(podForTest("a", "1"))
		provider := &backlogProvider{gauges: map[string]*gaugeRecorder{}}
		inf := NewSharedIndexInformerWithOptions(src, &v1.Pod{}, SharedIndexInformerOptions{InformerMetricsProvider: provider})
		removed := &stuckHandlerForTest{lockedPodLog{gate: make(chan struct{})}}
		stopped := &quickHandlerForTest{lockedPodLog{gate: make(chan struct{})}}
		removedReg, _ := inf.AddEventHandler(removed)
		stoppedReg, _ := inf.AddEventHandler(stopped)
		w, stop := startInformerForTest(inf, src)
		for i := 0; i < 100; i++ {
			w.Modify(podForTest("a", fmt.Sprint(100+i)))
		}
		synctest.Wait()
		if err := inf.RemoveEventHandler(removedReg); err != nil {
			t.Fatal(err)
		}
		close(removed.gate)
		synctest.Wait()
		go func() { close(stopped.gate) }()
		stop()
		for name, reg := range map[string]ResourceEventHandlerRegistration{"removed": removedReg, "stopped": stoppedReg} {
			if got := reg.(interface{ KcachePendingNotifications() int }).KcachePendingNotifications(); got != 0 {
				t.Errorf("%s handler: KcachePendingNotifications %d after its goroutine returned, want 0", name, got)
			}
		}
		for name, g := range provider.gauges {
			if v := g.v.Load(); v != 0 {
				t.Errorf("gauge of %s reads %d after its goroutine returned, want 0", name, v)
			}
		}
	})
}
