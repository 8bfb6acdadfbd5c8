package cache

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	testingclock "k8s.io/utils/clock/testing"
)

func TestHandlerResyncPeriodsFollowTheInformerCheckPeriod(t *testing.T) {
	cases := []struct {
		name          string
		informer      time.Duration
		started       bool
		requested     time.Duration
		wantPeriod    time.Duration
		wantCheck     time.Duration
		wantListeners []time.Duration // periods of the earlier listener after the add
	}{
		{"informer without resync never resyncs", 0, false, 10 * time.Second, 0, 0, []time.Duration{0}},
		{"longer request keeps its period", 10 * time.Second, false, 25 * time.Second, 25 * time.Second, 10 * time.Second, []time.Duration{10 * time.Second}},
		{"shorter request before start lowers the check period", 10 * time.Second, false, 5 * time.Second, 5 * time.Second, 5 * time.Second, []time.Duration{10 * time.Second}},
		{"shorter request after start gets the check period", 10 * time.Second, true, 5 * time.Second, 10 * time.Second, 10 * time.Second, []time.Duration{10 * time.Second}},
		{"request below a second becomes a second", 10 * time.Second, false, 100 * time.Millisecond, time.Second, time.Second, []time.Duration{10 * time.Second}},
		{"zero request opts out", 10 * time.Second, false, 0, 0, 10 * time.Second, []time.Duration{10 * time.Second}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clk := testingclock.NewFakeClock(time.Now())
			inf := newSharedIndexInformer(newInformerTestSource(), &v1.Pod{}, SharedIndexInformerOptions{ResyncPeriod: tc.informer}, clk)
			if _, err := inf.AddEventHandler(ResourceEventHandlerFuncs{}); err != nil {
				t.Fatal(err)
			}
			inf.started = tc.started
			reg, err := inf.AddEventHandlerWithResyncPeriod(ResourceEventHandlerFuncs{}, tc.requested)
			if err != nil {
				t.Fatal(err)
			}
			inf.started = false
			l := reg.(*processorListener)
			if time.Duration(l.resync.period.Load()) != tc.wantPeriod {
				t.Errorf("handler period %v, want %v", time.Duration(l.resync.period.Load()), tc.wantPeriod)
			}
			if inf.resyncCheckPeriod != tc.wantCheck {
				t.Errorf("check period %v, want %v", inf.resyncCheckPeriod, tc.wantCheck)
			}
			if got := time.Duration(inf.processor.listeners[0].listener.resync.period.Load()); got != tc.wantListeners[0] {
				t.Errorf("earlier listener period %v, want %v", got, tc.wantListeners[0])
			}
		})
	}
}
