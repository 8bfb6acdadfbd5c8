package cache

import (
	"context"
	"errors"
	"reflect"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/klog/v2"
)

type podTypeForTest struct{}
type nodeTypeForTest struct{}
type serviceTypeForTest struct{}

func TestSyncResultAsErrorNamesTheUnsyncedTypesAndWrapsTheCause(t *testing.T) {
	cause := errors.New("stopped")
	cases := []struct {
		name   string
		result SyncResult
		want   string
	}{
		{"all synced", SyncResult{Synced: map[reflect.Type]bool{reflect.TypeOf(podTypeForTest{}): true}}, ""},
		{"no cause means no error", SyncResult{Synced: map[reflect.Type]bool{reflect.TypeOf(podTypeForTest{}): false}}, ""},
		{"two unsynced sorted", SyncResult{Err: cause, Synced: map[reflect.Type]bool{
			reflect.TypeOf(serviceTypeForTest{}): false,
			reflect.TypeOf(podTypeForTest{}):     true,
			reflect.TypeOf(nodeTypeForTest{}):    false,
		}}, "failed to sync all caches: cache.nodeTypeForTest, cache.serviceTypeForTest: stopped"},
		{"nothing registered", SyncResult{Err: cause}, "failed to sync all caches: : stopped"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.result.AsError()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("got %v, want nil", err)
				}
				return
			}
			if err == nil || err.Error() != tc.want {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			if !errors.Is(err, cause) {
				t.Fatal("error does not wrap the cause")
			}
		})
	}
}

func TestWaitForCacheSyncReturnsOnceAllAreSyncedOrFalseWhenStopped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var synced atomic.Bool
		stop := make(chan struct{})
		result := make(chan bool)
		go func() {
			result <- WaitForCacheSync(stop, func() bool { return true }, func() bool { return synced.Load() })
		}()
		time.Sleep(time.Second)
		synctest.Wait()
		synced.Store(true)
		time.Sleep(syncedPollPeriod)
		if !<-result {
			t.Fatal("WaitForCacheSync returned false after sync")
		}
		go func() { result <- WaitForNamedCacheSync("test", stop, func() bool { return false }) }()
		time.Sleep(time.Second)
		close(stop)
		if <-result {
			t.Fatal("WaitForNamedCacheSync returned true although never synced")
		}
		ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), klog.Background().V(5)))
		go func() { result <- WaitForNamedCacheSyncWithContext(ctx, func() bool { return false }) }()
		time.Sleep(time.Second)
		cancel()
		if <-result {
			t.Fatal("WaitForNamedCacheSyncWithContext returned true although never synced")
		}
	})
}

func TestWaitForReturnsWhenEveryCheckerIsDoneOrFalseWhenCanceled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := newManualChecker(), newManualChecker()
		result := make(chan bool)
		go func() { result <- WaitFor(context.Background(), "two checkers", a, b) }()
		b.finish()
		synctest.Wait()
		select {
		case <-result:
			t.Fatal("returned with one checker pending")
		default:
		}
		a.finish()
		if !<-result {
			t.Fatal("WaitFor returned false with all checkers done")
		}
		ctx, cancel := context.WithCancel(context.Background())
		go func() { result <- WaitFor(ctx, "", newManualChecker()) }()
		time.Sleep(time.Minute)
		cancel()
		if <-result {
			t.Fatal("WaitFor returned true after cancel")
		}
	})
}
