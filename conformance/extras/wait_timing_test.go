package extras

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
)

// pollTrace runs one polling waiter of kit inside a synctest bubble with a
// sync function that becomes true at its fourth call ("syncs") or never,
// the stop channel (or context) closing after 250ms ("stops"), or one
// that takes 150ms per call and becomes true at its fourth ("slow"), and reports
// at which fake times the function was called and when the waiter
// returned what.
func pollTrace(t *testing.T, kit waitKit, waiter, mode string) string {
	var out string
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var calls []time.Duration
		synced := func() bool {
			calls = append(calls, time.Since(start))
			if mode == "slow" {
				time.Sleep(150 * time.Millisecond)
			}
			return mode != "stops" && len(calls) >= 4
		}
		ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logr.Discard()))
		defer cancel()
		if mode == "stops" {
			time.AfterFunc(250*time.Millisecond, cancel)
		}
		fs := []func() bool{synced, func() bool { return true }}
		var r bool
		switch waiter {
		case "cachesync":
			r = kit.cacheSync(ctx.Done(), fs)
		case "namedsync":
			r = kit.namedSync("ctrl", ctx.Done(), fs)
		default:
			r = kit.namedCtxSync(ctx, fs)
		}
		out = fmt.Sprintf("calls at %v; returned %v after %v", calls, r, time.Since(start))
	})
	return out
}

func TestPollingWaitersPollAtClientGosTimes(t *testing.T) {
	restore := routeKlog(t, logr.Discard(), "0")
	defer restore()
	// NB: utilruntime's error backoff remembers the real time of the last
	// error across synctest bubbles and then sleeps for years of fake
	// time; without handlers both implementations report without it.
	handlers := utilruntime.ErrorHandlers
	utilruntime.ErrorHandlers = nil
	defer func() { utilruntime.ErrorHandlers = handlers }()
	for _, waiter := range []string{"cachesync", "namedsync", "namedctxsync"} {
		for _, mode := range []string{"syncs", "stops", "slow"} {
			t.Run(waiter+" "+mode, func(t *testing.T) {
				want, got := pollTrace(t, clientGoWait, waiter, mode), pollTrace(t, kcacheWait, waiter, mode)
				if want != got {
					t.Errorf("client-go: %s\nkcache:    %s", want, got)
				}
				t.Log(got)
			})
		}
	}
}
