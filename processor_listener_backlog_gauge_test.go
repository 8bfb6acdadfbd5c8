package cache

import (
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// stallingGauge records the value set last. The first Set of stallOn
// signals stalled and then waits for release before it stores, as a
// goroutine preempted between computing the value and publishing it would;
// every Set of 0 is signalled on zero.
type stallingGauge struct {
	stallOn  float64
	stalled  chan struct{}
	release  chan struct{}
	zero     chan struct{}
	mu       sync.Mutex
	didStall bool
	v        float64
}

func (g *stallingGauge) Set(v float64) {
	g.mu.Lock()
	stall := v == g.stallOn && !g.didStall
	g.didStall = g.didStall || stall
	g.mu.Unlock()
	if stall {
		close(g.stalled)
		<-g.release
	}
	g.mu.Lock()
	g.v = v
	g.mu.Unlock()
	if v == 0 {
		g.zero <- struct{}{}
	}
}

func (g *stallingGauge) value() float64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.v
}

func TestTheBacklogGaugeEndsAtZeroWhenAnAddPublishesItsCountAfterTheListenerDrained(t *testing.T) {
	defer goleak.VerifyNone(t)
	gauge := &stallingGauge{stallOn: 2, stalled: make(chan struct{}), release: make(chan struct{}), zero: make(chan struct{}, 16)}
	h := newRecordingHandler(true)
	upstream := newManualChecker()
	upstream.finish()
	l := newTestListener(h, upstream, gauge)
	ran := make(chan struct{})
	go func() { l.run(); close(ran) }()
	defer func() { l.stop(); <-ran }()

	l.add(numbered(notifyUpdate, 1)) // the handler holds it until the gate opens
	added := make(chan struct{})
	go func() { l.add(numbered(notifyUpdate, 2)); close(added) }()
	select {
	case <-gauge.stalled: // the second add queued its notification and computed 2
	case <-time.After(wait30s):
		t.Fatal("the second add never published its backlog")
	}
	close(h.gate)
	h.waitFor(t, 2)
	select {
	case <-gauge.zero: // the listener finished both and published 0
	case <-time.After(wait30s):
		t.Fatal("the listener never published an empty backlog")
	}
	close(gauge.release) // now the stale 2 lands
	<-added
	if got, pending := gauge.value(), l.KcachePendingNotifications(); got != 0 || pending != 0 {
		t.Fatalf("backlog gauge %v with %d notifications pending, want 0 and 0", got, pending)
	}
}
