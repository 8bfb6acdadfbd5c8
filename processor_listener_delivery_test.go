package cache

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr/funcr"
	"go.uber.org/goleak"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	testingclock "k8s.io/utils/clock/testing"
)

// steppedHandler blocks in every call whose object is in hold until that
// object is released, and panics on the object in panicOn.
type steppedHandler struct {
	mu      sync.Mutex
	calls   []string
	hold    map[interface{}]chan struct{}
	panicOn interface{}
}

func newSteppedHandler(hold ...interface{}) *steppedHandler {
	h := &steppedHandler{hold: map[interface{}]chan struct{}{}}
	for _, obj := range hold {
		h.hold[obj] = make(chan struct{})
	}
	return h
}

func (h *steppedHandler) release(obj interface{}) { close(h.hold[obj]) }

func (h *steppedHandler) call(obj interface{}) {
	if gate := h.hold[obj]; gate != nil {
		<-gate
	}
	h.mu.Lock()
	h.calls = append(h.calls, fmt.Sprint(obj))
	h.mu.Unlock()
	if h.panicOn != nil && obj == h.panicOn {
		panic(fmt.Sprintf("handler fails on %v", obj))
	}
}

func (h *steppedHandler) OnAdd(obj interface{}, _ bool)  { h.call(obj) }
func (h *steppedHandler) OnUpdate(_, newObj interface{}) { h.call(newObj) }
func (h *steppedHandler) OnDelete(obj interface{})       { h.call(obj) }
func (h *steppedHandler) seen() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return strings.Join(h.calls, " ")
}

// runListener starts l's goroutine in the current bubble; the returned
// function stops it and waits for it to return.
func runListener(l *processorListener) (stop func()) {
	done := make(chan struct{})
	go func() { l.run(); close(done) }()
	return func() { l.stop(); <-done }
}

func TestRegistrationSyncsWhileItsHandlerWorksThroughABacklog(t *testing.T) {
	defer goleak.VerifyNone(t)
	cases := []struct {
		name string
		// releaseFirst releases the handler's current call after the
		// informer synced; otherwise the processor is told instead.
		releaseFirst bool
	}{
		{"the listener notices after its current call", true},
		{"the processor tells the listener while the call still runs", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				upstream := newManualChecker()
				h := newSteppedHandler("busy-1", "busy-2")
				p := &sharedProcessor{clock: testingclock.NewFakeClock(time.Now())}
				l := newTestListener(h, upstream, nil)
				p.addListener(l)
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() { p.run(ctx); close(done) }()
				p.distribute(notification{kind: notifyAdd, newObj: "initial", initial: true}, false)
				p.distribute(notification{kind: notifyAdd, newObj: "busy-1"}, false)
				p.distribute(notification{kind: notifyAdd, newObj: "busy-2"}, false)
				synctest.Wait()
				upstream.finish()
				if tc.releaseFirst {
					h.release("busy-1")
				} else {
					p.upstreamSynced()
				}
				synctest.Wait()
				if !l.HasSynced() || !IsDone(l.HasSyncedChecker()) {
					t.Fatalf("registration unsynced with a backlog (handler saw %q, %d pending)", h.seen(), l.KcachePendingNotifications())
				}
				if !tc.releaseFirst {
					h.release("busy-1")
				}
				h.release("busy-2")
				cancel()
				<-done
			})
		})
	}
}

func TestStoppedListenerDeliversAtMostTheNotificationInFlight(t *testing.T) {
	defer goleak.VerifyNone(t)
	cases := []struct {
		name string
		// viaProcessor stops through the processor's context (informer
		// shutdown) instead of removeListener.
		viaProcessor bool
	}{
		{"removed handler", false},
		{"informer shutdown", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newSteppedHandler(0)
				p := &sharedProcessor{clock: testingclock.NewFakeClock(time.Now())}
				l := newTestListener(h, newManualChecker(), nil)
				p.addListener(l)
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() { p.run(ctx); close(done) }()
				for i := 0; i < 100; i++ {
					p.distribute(notification{kind: notifyAdd, newObj: i, initial: true}, false)
				}
				synctest.Wait()
				if got := l.KcachePendingNotifications(); got != 100 {
					t.Fatalf("KcachePendingNotifications = %d, want 99 queued + 1 being delivered", got)
				}
				if tc.viaProcessor {
					cancel()
				} else {
					p.removeListener(l)
				}
				synctest.Wait()
				h.release(0)
				synctest.Wait()
				if got := h.seen(); got != "0" {
					t.Fatalf("handler saw %q after stop, want only the notification in flight", got)
				}
				cancel()
				<-done
			})
		})
	}
}

func TestPendingNotificationsCountsTheQueuedAndTheOneBeingDelivered(t *testing.T) {
	defer goleak.VerifyNone(t)
	synctest.Test(t, func(t *testing.T) {
		h := newSteppedHandler(1, 3)
		gauge := &gaugeRecorder{}
		l := newTestListener(h, newManualChecker(), gauge)
		stop := runListener(l)
		defer stop()
		steps := []struct {
			do   func()
			want int
		}{
			{func() {}, 0},
			{func() { l.add(numbered(notifyAdd, 1)) }, 1},
			{func() { l.add(numbered(notifyAdd, 2)); l.add(numbered(notifyAdd, 3)) }, 3},
			{func() { h.release(1) }, 1},
			{func() { h.release(3) }, 0},
		}
		for i, st := range steps {
			st.do()
			synctest.Wait()
			if got := l.KcachePendingNotifications(); got != st.want {
				t.Fatalf("step %d: KcachePendingNotifications = %d, want %d", i, got, st.want)
			}
			if got := int(gauge.v.Load()); got != st.want {
				t.Fatalf("step %d: backlog gauge = %d, want %d", i, got, st.want)
			}
		}
	})
}

// withoutReallyCrash turns utilruntime.ReallyCrash off and counts panic
// handler calls for the duration of t.
func withoutReallyCrash(t *testing.T) (panics func() int) {
	var mu sync.Mutex
	count := 0
	oldCrash, oldHandlers := utilruntime.ReallyCrash, utilruntime.PanicHandlers
	utilruntime.ReallyCrash = false
	utilruntime.PanicHandlers = append(append([]func(context.Context, interface{}){}, oldHandlers...), func(context.Context, interface{}) {
		mu.Lock()
		count++
		mu.Unlock()
	})
	t.Cleanup(func() { utilruntime.ReallyCrash, utilruntime.PanicHandlers = oldCrash, oldHandlers })
	return func() int {
		mu.Lock()
		defer mu.Unlock()
		return count
	}
}

func TestHandlerPanicIsLoggedAndDeliveryResumesAfterASecondWithoutReallyCrash(t *testing.T) {
	defer goleak.VerifyNone(t)
	panics := withoutReallyCrash(t)
	synctest.Test(t, func(t *testing.T) {
		var logMu sync.Mutex
		var logs []string
		logger := funcr.New(func(prefix, args string) {
			logMu.Lock()
			logs = append(logs, prefix+" "+args)
			logMu.Unlock()
		}, funcr.Options{}).WithName("handler-logger")
		h := newSteppedHandler()
		h.panicOn = "a"
		upstream := newManualChecker()
		l := newProcessListener(logger, h, 0, 0, time.Now(), upstream, nil)
		stop := runListener(l)
		defer stop()
		start := time.Now()
		// NB: the initial list goes in before upstream reports synced, as
		// the informer guarantees (see processorListener); the other order
		// lets an idle run see the informer synced with nothing
		// outstanding, and the registration sync before the list is in.
		for _, obj := range []string{"a", "b", "c"} {
			l.add(notification{kind: notifyAdd, newObj: obj, initial: true})
		}
		upstream.finish()
		synctest.Wait()
		if got := h.seen(); got != "a" {
			t.Fatalf("before the pause the handler saw %q, want a", got)
		}
		time.Sleep(listenerPanicPause)
		synctest.Wait()
		if got := h.seen(); got != "a b c" {
			t.Fatalf("after %v the handler saw %q, want a b c", time.Since(start), got)
		}
		if panics() != 1 {
			t.Fatalf("panic handlers called %d times, want 1", panics())
		}
		if l.HasSynced() {
			t.Fatal("registration synced although an initial notification was lost to a panic")
		}
		logMu.Lock()
		defer logMu.Unlock()
		if len(logs) != 1 || !strings.HasPrefix(logs[0], `handler-logger "msg"="Observed a panic"`) || !strings.Contains(logs[0], `"panic"="handler fails on a"`) {
			t.Fatalf("logs = %q, want one \"Observed a panic\" line on the handler's logger", logs)
		}
	})
}

func TestHandlerPanicIsReRaisedWithReallyCrash(t *testing.T) {
	h := newSteppedHandler()
	h.panicOn = 1
	l := newTestListener(h, newManualChecker(), nil)
	l.add(numbered(notifyAdd, 1))
	defer func() {
		if r := recover(); r == nil || fmt.Sprint(r) != "handler fails on 1" {
			t.Fatalf("recovered %v, want the handler's panic", r)
		}
	}()
	l.deliverUntilStopped()
	t.Fatal("deliverUntilStopped returned instead of re-raising")
}
