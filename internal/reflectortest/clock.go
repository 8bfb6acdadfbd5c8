package reflectortest

import (
	"sync"
	"time"

	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
)

// PumpClock is a fake clock whose timers (After, NewTimer) fire right after
// they are created: a pump goroutine moves the fake time forward by each
// timer's duration. Tickers are not pumped. Waits therefore take no real
// time while the fake time still advances by exactly the waited durations.
type PumpClock struct {
	// Fake is the underlying fake clock.
	*clocktesting.FakeClock
	// waits carries the duration of each new timer to the pump.
	waits chan time.Duration
	// done ends the pump; pumpDone is closed when it has ended.
	done, pumpDone chan struct{}
	// stopOnce guards Stop.
	stopOnce sync.Once

	// mu guards waited.
	mu sync.Mutex
	// waited lists the durations of the timers created so far.
	waited []time.Duration
}

var _ clock.WithTicker = &PumpClock{}

// NewPumpClock returns a running PumpClock starting at t.
func NewPumpClock(t time.Time) *PumpClock {
	c := &PumpClock{
		FakeClock: clocktesting.NewFakeClock(t),
		waits:     make(chan time.Duration, 1024),
		done:      make(chan struct{}),
		pumpDone:  make(chan struct{}),
	}
	go c.pump()
	return c
}

// After is FakeClock.After, pumped.
func (c *PumpClock) After(d time.Duration) <-chan time.Time {
	ch := c.FakeClock.After(d)
	c.record(d)
	return ch
}

// Waited returns the durations of the timers created so far, in order.
func (c *PumpClock) Waited() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.waited...)
}

// record notes d and hands it to the pump.
func (c *PumpClock) record(d time.Duration) {
	c.mu.Lock()
	c.waited = append(c.waited, d)
	c.mu.Unlock()
	c.waits <- d
}

// NewTimer is FakeClock.NewTimer, pumped.
func (c *PumpClock) NewTimer(d time.Duration) clock.Timer {
	t := c.FakeClock.NewTimer(d)
	c.record(d)
	return t
}

// Stop ends the pump.
func (c *PumpClock) Stop() {
	c.stopOnce.Do(func() { close(c.done) })
	<-c.pumpDone
}

func (c *PumpClock) pump() {
	defer close(c.pumpDone)
	for {
		select {
		case <-c.done:
			return
		case d := <-c.waits:
			c.FakeClock.Step(d)
		}
	}
}
