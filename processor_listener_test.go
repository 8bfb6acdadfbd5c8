package cache

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
	"k8s.io/klog/v2"
	testingclock "k8s.io/utils/clock/testing"
)

// manualChecker is a DoneChecker the test completes by calling finish.
type manualChecker struct {
	done chan struct{}
	once sync.Once
}

func newManualChecker() *manualChecker         { return &manualChecker{done: make(chan struct{})} }
func (c *manualChecker) Name() string          { return "informer" }
func (c *manualChecker) Done() <-chan struct{} { return c.done }
func (c *manualChecker) finish()               { c.once.Do(func() { close(c.done) }) }

// recordingHandler records every call and can be made to block until
// released.
type recordingHandler struct {
	mu    sync.Mutex
	calls []string
	// gate, when non-nil, is received from before each call returns.
	gate chan struct{}
	// seen is signalled (non-blocking) after every call.
	seen chan struct{}
}

func newRecordingHandler(blocking bool) *recordingHandler {
	h := &recordingHandler{seen: make(chan struct{}, 1<<16)}
	if blocking {
		h.gate = make(chan struct{})
	}
	return h
}

func (h *recordingHandler) record(s string) {
	if h.gate != nil {
		<-h.gate
	}
	h.mu.Lock()
	h.calls = append(h.calls, s)
	h.mu.Unlock()
	h.seen <- struct{}{}
}
func (h *recordingHandler) OnAdd(obj interface{}, initial bool) {
	h.record(fmt.Sprintf("add %v %v", obj, initial))
}
func (h *recordingHandler) OnUpdate(oldObj, newObj interface{}) {
	h.record(fmt.Sprintf("update %v %v", oldObj, newObj))
}
func (h *recordingHandler) OnDelete(obj interface{}) { h.record(fmt.Sprintf("delete %v", obj)) }

func (h *recordingHandler) waitFor(t *testing.T, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		select {
		case <-h.seen:
		case <-time.After(wait30s):
			t.Fatalf("handler saw only %d of %d notifications", i, n)
		}
	}
}

func (h *recordingHandler) snapshot() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.calls...)
}

// wait30s bounds how long a test waits for goroutines it depends on; it is a
// failure deadline, never a synchronisation point.
const wait30s = 30 * time.Second

// gaugeRecorder remembers the last value set.
type gaugeRecorder struct{ v atomic.Int64 }

func (g *gaugeRecorder) Set(v float64) { g.v.Store(int64(v)) }

func startProcessor(t *testing.T, p *sharedProcessor) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.run(ctx); close(done) }()
	return func() { cancel(); <-done }
}

func newTestListener(h ResourceEventHandler, upstream DoneChecker, gauge GaugeMetric) *processorListener {
	l := newProcessListener(klog.Background(), h, 0, 0, time.Now(), upstream, nil)
	if gauge != nil {
		l.backlog = gauge
	}
	return l
}

func numbered(kind notificationKind, i int) notification {
	return notification{kind: kind, oldObj: i - 1, newObj: i}
}

func TestBlockedHandlerDelaysNoOtherHandlerAndLosesNothingOnceReleased(t *testing.T) {
	defer goleak.VerifyNone(t)
	upstream := newManualChecker()
	p := &sharedProcessor{clock: testingclock.NewFakeClock(time.Now())}
	slow, fast := newRecordingHandler(true), newRecordingHandler(false)
	slowGauge := &gaugeRecorder{}
	slowListener := newTestListener(slow, upstream, slowGauge)
	p.addListener(slowListener)
	p.addListener(newTestListener(fast, upstream, nil))
	stop := startProcessor(t, p)
	defer stop()

	const events = 1000
	for i := 1; i <= events; i++ {
		p.distribute(numbered(notifyUpdate, i), false)
	}
	fast.waitFor(t, events)
	if got := len(slow.snapshot()); got != 0 {
		t.Fatalf("blocked handler completed %d calls", got)
	}
	if got := slowListener.KcachePendingNotifications(); got != events {
		t.Fatalf("blocked listener backlog %d, want %d", got, events)
	}
	if got := slowGauge.v.Load(); got != events {
		t.Fatalf("backlog gauge %d, want %d", got, events)
	}
	close(slow.gate)
	slow.waitFor(t, events)
	if !reflect.DeepEqual(slow.snapshot(), fast.snapshot()) {
		t.Fatalf("blocked handler saw a different sequence once released")
	}
	// NB: the last notification leaves the backlog just after the handler
	// returned from it, so the handler's record can be seen a moment first.
	waitUntil(func() bool { return slowListener.KcachePendingNotifications() == 0 && slowGauge.v.Load() == 0 })
	if got := slowListener.KcachePendingNotifications(); got != 0 {
		t.Fatalf("backlog after drain %d", got)
	}
	if got := slowGauge.v.Load(); got != 0 {
		t.Fatalf("backlog gauge after drain %d", got)
	}
}

func TestEachHandlerSeesNotificationsInDistributionOrder(t *testing.T) {
	defer goleak.VerifyNone(t)
	upstream := newManualChecker()
	p := &sharedProcessor{clock: testingclock.NewFakeClock(time.Now())}
	handlers := []*recordingHandler{newRecordingHandler(false), newRecordingHandler(false), newRecordingHandler(false)}
	for _, h := range handlers {
		p.addListener(newTestListener(h, upstream, nil))
	}
	stop := startProcessor(t, p)
	defer stop()
	var want []string
	kinds := []notificationKind{notifyAdd, notifyUpdate, notifyDelete}
	for i := 1; i <= 3000; i++ {
		n := numbered(kinds[i%3], i)
		p.distribute(n, false)
		switch n.kind {
		case notifyAdd:
			want = append(want, fmt.Sprintf("add %v false", i))
		case notifyUpdate:
			want = append(want, fmt.Sprintf("update %v %v", i-1, i))
		case notifyDelete:
			want = append(want, fmt.Sprintf("delete %v", i-1))
		}
	}
	for i, h := range handlers {
		h.waitFor(t, len(want))
		if !reflect.DeepEqual(h.snapshot(), want) {
			t.Fatalf("handler %d saw notifications out of order", i)
		}
	}
}

func TestRegistrationSyncsOnlyAfterInformerSyncAndInitialItemsDelivered(t *testing.T) {
	defer goleak.VerifyNone(t)
	cases := []struct {
		name          string
		initialItems  int
		upstreamFirst bool // upstream completes before the items are released
	}{
		{"initial items delivered after informer sync", 3, true},
		{"informer syncs after initial items delivered", 3, false},
		{"empty initial list", 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			upstream := newManualChecker()
			p := &sharedProcessor{clock: testingclock.NewFakeClock(time.Now())}
			h := newRecordingHandler(true)
			l := newTestListener(h, upstream, nil)
			p.addListener(l)
			stop := startProcessor(t, p)
			defer stop()
			for i := 0; i < tc.initialItems; i++ {
				p.distribute(notification{kind: notifyAdd, newObj: i, initial: true}, false)
			}
			if l.HasSynced() {
				t.Fatal("synced before anything happened")
			}
			if tc.upstreamFirst {
				upstream.finish()
				if tc.initialItems > 0 && l.HasSynced() {
					t.Fatal("synced while initial items are undelivered")
				}
			}
			close(h.gate)
			h.waitFor(t, tc.initialItems)
			if !tc.upstreamFirst {
				if l.HasSynced() {
					t.Fatal("synced before the informer synced")
				}
				upstream.finish()
			}
			select {
			case <-l.HasSyncedChecker().Done():
			case <-time.After(wait30s):
				t.Fatal("checker never completed")
			}
			if !l.HasSynced() {
				t.Fatal("HasSynced false after checker completed")
			}
			p.distribute(notification{kind: notifyAdd, newObj: "later"}, false)
			if !l.HasSynced() {
				t.Fatal("a later add unsynced the registration")
			}
			if got, want := l.HasSyncedChecker().Name(), "informer + event handler github.com/kcache-go/cache.recordingHandler"; got != want {
				t.Fatalf("checker name %q, want %q", got, want)
			}
		})
	}
}

func TestRemovedListenerStopsWhileOthersContinue(t *testing.T) {
	defer goleak.VerifyNone(t)
	upstream := newManualChecker()
	p := &sharedProcessor{clock: testingclock.NewFakeClock(time.Now())}
	kept, removed := newRecordingHandler(false), newRecordingHandler(false)
	removedListener := newTestListener(removed, upstream, nil)
	p.addListener(newTestListener(kept, upstream, nil))
	p.addListener(removedListener)
	stop := startProcessor(t, p)
	defer stop()
	p.distribute(numbered(notifyAdd, 1), false)
	kept.waitFor(t, 1)
	removed.waitFor(t, 1)
	if !p.removeListener(removedListener) {
		t.Fatal("listener was not registered")
	}
	if p.removeListener(removedListener) {
		t.Fatal("second removal reported success")
	}
	p.distribute(numbered(notifyAdd, 2), false)
	kept.waitFor(t, 1)
	if got := removed.snapshot(); len(got) != 1 {
		t.Fatalf("removed handler saw %v", got)
	}
}

func TestResyncGoesOnlyToListenersThatAreDue(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := testingclock.NewFakeClock(start)
	p := &sharedProcessor{clock: clk}
	upstream := newManualChecker()
	periods := []time.Duration{0, 10 * time.Second, 30 * time.Second}
	var listeners []*processorListener
	for _, period := range periods {
		l := newProcessListener(klog.Background(), newRecordingHandler(false), period, period, clk.Now(), upstream, nil)
		listeners = append(listeners, l)
		p.addListener(l)
	}
	syncing := func() []bool {
		var s []bool
		for _, e := range p.listeners {
			s = append(s, e.syncing)
		}
		return s
	}
	if got := syncing(); !reflect.DeepEqual(got, []bool{true, true, true}) {
		t.Fatalf("new listeners must take part in the next resync, got %v", got)
	}
	steps := []struct {
		advance time.Duration
		due     bool
		syncing []bool
	}{
		{5 * time.Second, false, []bool{false, false, false}},
		{5 * time.Second, true, []bool{false, true, false}},
		{10 * time.Second, true, []bool{false, true, false}},
		{10 * time.Second, true, []bool{false, true, true}},
		{1 * time.Second, false, []bool{false, false, false}},
	}
	for i, s := range steps {
		clk.Step(s.advance)
		if got := p.shouldResync(); got != s.due {
			t.Fatalf("step %d: shouldResync %v, want %v", i, got, s.due)
		}
		if got := syncing(); !reflect.DeepEqual(got, s.syncing) {
			t.Fatalf("step %d: syncing %v, want %v", i, got, s.syncing)
		}
	}
	p.resyncCheckPeriodChanged(klog.Background(), 20*time.Second)
	if got := time.Duration(listeners[1].resync.period.Load()); got != 20*time.Second {
		t.Fatalf("10s request under a 20s check period gives %v", got)
	}
	if got := time.Duration(listeners[0].resync.period.Load()); got != 0 {
		t.Fatalf("zero request gives %v", got)
	}
}

func TestDetermineResyncPeriodNeverGoesBelowTheCheckPeriod(t *testing.T) {
	cases := []struct{ desired, check, want time.Duration }{
		{0, time.Second, 0},
		{time.Second, 0, 0},
		{time.Second, 5 * time.Second, 5 * time.Second},
		{7 * time.Second, 5 * time.Second, 7 * time.Second},
	}
	for _, tc := range cases {
		if got := determineResyncPeriod(tc.desired, tc.check); got != tc.want {
			t.Errorf("determineResyncPeriod(%v, %v) = %v, want %v", tc.desired, tc.check, got, tc.want)
		}
	}
}

// waitUntil spins (at most a minute, for a loaded machine) until done reports true; it is for the
// moment between a handler's return and the listener's bookkeeping.
func waitUntil(done func() bool) {
	for deadline := time.Now().Add(time.Minute); !done() && time.Now().Before(deadline); {
		runtime.Gosched()
	}
}
