package reflectortest

import (
	"context"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	clocktesting "k8s.io/utils/clock/testing"
)

// ListerWatcher answers List and Watch calls from a Scenario's scripts and
// records each call in the trace. When a script runs out it calls exhausted
// once; a List then blocks until its context is done and a Watch returns a
// stream that stays silent until stopped. mu guards the cursors.
type ListerWatcher struct {
	// sc is the scenario being played.
	sc Scenario
	// trace receives one line per call.
	trace *Trace
	// clock is moved forward by streams with an Advance.
	clock *clocktesting.FakeClock
	// exhausted is called when a script runs out.
	exhausted func()
	// feeders tracks the goroutines of scripted streams.
	feeders sync.WaitGroup
	// released is closed by Release; a List past the script blocks until
	// then, so that the Reflector sees only its context end.
	released    chan struct{}
	releaseOnce sync.Once

	mu sync.Mutex
	// nextList and nextWatch index the next answers.
	nextList, nextWatch int
}

// NewListerWatcher returns a ListerWatcher playing sc.
func NewListerWatcher(sc Scenario, trace *Trace, c *clocktesting.FakeClock, exhausted func()) *ListerWatcher {
	return &ListerWatcher{sc: sc, trace: trace, clock: c, exhausted: exhausted, released: make(chan struct{})}
}

// IsWatchListSemanticsUnSupported reports the scenario's
// ClientRefusesWatchList (see k8s.io/client-go/util/watchlist).
func (l *ListerWatcher) IsWatchListSemanticsUnSupported() bool {
	return l.sc.ClientRefusesWatchList
}

// List answers a List call without a context.
func (l *ListerWatcher) List(options metav1.ListOptions) (runtime.Object, error) {
	return l.ListWithContext(context.Background(), options)
}

// Watch answers a Watch call without a context.
func (l *ListerWatcher) Watch(options metav1.ListOptions) (watch.Interface, error) {
	return l.WatchWithContext(context.Background(), options)
}

// ListWithContext records the call and returns the next scripted page or error.
func (l *ListerWatcher) ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
	l.trace.Add(describeOptions("LIST", options))
	step, ok := l.takeList()
	if !ok {
		l.exhausted()
		<-ctx.Done()
		<-l.released
		return nil, ctx.Err()
	}
	if step.Error != "" {
		return nil, MakeError(step.Error)
	}
	if step.NotAList {
		return Object{Name: "not-a-list", ResourceVersion: step.ResourceVersion}.Build(), nil
	}
	if step.RawItems != "" {
		return step.buildRawList(), nil
	}
	if step.Table {
		return step.buildTable(), nil
	}
	return step.buildList(l.sc.ExpectedType == "unstructured"), nil
}

// WatchWithContext records the call and returns the next scripted stream or error.
func (l *ListerWatcher) WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	l.trace.Add(describeOptions("WATCH", options))
	step, ok := l.takeWatch()
	if !ok {
		l.exhausted()
		return l.newStream(WatchStep{}, true), nil
	}
	if step.OpenDelay != "" {
		delay, _ := time.ParseDuration(step.OpenDelay)
		l.clock.Step(delay)
	}
	if step.Error != "" {
		return nil, MakeError(step.Error)
	}
	return l.newStream(step, false), nil
}

// Release lets Lists blocked past the end of the script return.
func (l *ListerWatcher) Release() {
	l.releaseOnce.Do(func() { close(l.released) })
}

// Wait waits for every stream goroutine to end (they end when their watch
// is stopped or their events are consumed).
func (l *ListerWatcher) Wait() {
	l.feeders.Wait()
}

func (l *ListerWatcher) takeList() (ListStep, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.nextList >= len(l.sc.Lists) {
		return ListStep{}, false
	}
	l.nextList++
	return l.sc.Lists[l.nextList-1], true
}

func (l *ListerWatcher) takeWatch() (WatchStep, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.nextWatch >= len(l.sc.Watches) {
		return WatchStep{}, false
	}
	l.nextWatch++
	return l.sc.Watches[l.nextWatch-1], true
}

// newStream builds the watch for step.
func (l *ListerWatcher) newStream(step WatchStep, hold bool) *scriptedWatch {
	events := make([]watch.Event, 0, len(step.Events))
	for _, e := range step.Events {
		events = append(events, e.buildEvent(l.sc.ExpectedType == "unstructured"))
	}
	var advance time.Duration
	if step.Advance != "" {
		advance, _ = time.ParseDuration(step.Advance)
	}
	return &scriptedWatch{
		events:  events,
		hold:    hold,
		advance: advance,
		clock:   l.clock,
		out:     make(chan watch.Event),
		stopped: make(chan struct{}),
		feeders: &l.feeders,
	}
}

// scriptedWatch delivers its events one at a time, starting when the
// consumer first asks for the result channel, then optionally advances the
// clock, then closes the channel (or, with hold, waits to be stopped).
type scriptedWatch struct {
	events  []watch.Event
	hold    bool
	advance time.Duration
	clock   *clocktesting.FakeClock
	out     chan watch.Event
	stopped chan struct{}
	feeders *sync.WaitGroup

	startOnce sync.Once
	stopOnce  sync.Once
}

// ResultChan starts delivery on first use.
func (w *scriptedWatch) ResultChan() <-chan watch.Event {
	w.startOnce.Do(func() {
		w.feeders.Add(1)
		go w.feed()
	})
	return w.out
}

// Stop ends delivery; the channel is closed by the feeder.
func (w *scriptedWatch) Stop() {
	w.stopOnce.Do(func() { close(w.stopped) })
	w.startOnce.Do(func() { close(w.out) })
}

// feed delivers the events and closes the channel.
func (w *scriptedWatch) feed() {
	defer w.feeders.Done()
	defer close(w.out)
	for _, e := range w.events {
		select {
		case w.out <- e:
		case <-w.stopped:
			return
		}
	}
	if w.advance > 0 {
		w.clock.Step(w.advance)
	}
	if w.hold {
		<-w.stopped
	}
}
