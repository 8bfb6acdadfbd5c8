package faultproxy

import (
	"context"
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
)

// received is what a client-go watch delivered before its channel closed.
type received struct {
	// types are the event types in order.
	types []watch.EventType
	// last is the last event's object.
	last runtime.Object
}

// count returns how many events of type typ were delivered.
func (r received) count(typ watch.EventType) int {
	n := 0
	for _, t := range r.types {
		if t == typ {
			n++
		}
	}
	return n
}

// watchThrough opens a client-go watch through addr and drains it.
func watchThrough(t *testing.T, addr string, proto, watchList bool) received {
	t.Helper()
	opts := metav1.ListOptions{Watch: true, AllowWatchBookmarks: true}
	if watchList {
		opts.SendInitialEvents = ptr.To(true)
		opts.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	w, err := restClient(t, addr, proto).Get().Namespace("ns").Resource("configmaps").
		VersionedParams(&opts, scheme.ParameterCodec).Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var r received
	for ev := range w.ResultChan() {
		r.types = append(r.types, ev.Type)
		r.last = ev.Object
	}
	return r
}

func TestStreamFaultsStrikeAtTheirPlannedEventAndAreCounted(t *testing.T) {
	cases := []struct {
		fault     Fault
		watchList bool
		// check returns a problem with what the client received, given the
		// planned position.
		check func(r received, at int) string
	}{
		{ResetWatch, false, func(r received, at int) string {
			return expect(r.count(watch.Modified) == at, "%d events before the reset, planned %d", r.count(watch.Modified), at)
		}},
		{TruncateStream, false, func(r received, at int) string {
			return expect(r.count(watch.Modified) == at, "%d events before the cut, planned %d", r.count(watch.Modified), at)
		}},
		{GoneWatch, false, func(r received, at int) string {
			if r.count(watch.Modified) != at || r.count(watch.Error) != 1 || r.types[len(r.types)-1] != watch.Error {
				return fmt.Sprintf("events %v, want %d MODIFIED then one ERROR", r.types, at)
			}
			err := apierrors.FromObject(r.last)
			return expect(apierrors.IsResourceExpired(err) && err.(apierrors.APIStatus).Status().Code == 410,
				"ERROR event is %v, want a 410 Expired Status", err)
		}},
		{StallStream, false, func(r received, at int) string {
			return expect(r.count(watch.Modified) == watchEvents, "%d events after a short stall, want all %d", r.count(watch.Modified), watchEvents)
		}},
		{ResetWatchListBeforeBookmark, true, func(r received, at int) string {
			want := min(at, initialEvents)
			return expect(r.count(watch.Added) == want && r.count(watch.Bookmark) == 0,
				"events %v, want %d ADDED and no bookmark", r.types, want)
		}},
		{ResetWatchListAfterBookmark, true, func(r received, at int) string {
			return expect(r.count(watch.Added) == initialEvents && r.count(watch.Bookmark) == 1 && r.count(watch.Modified) == at,
				"events %v, want %d ADDED, the bookmark, then %d MODIFIED", r.types, initialEvents, at)
		}},
		{TruncateStream, true, func(r received, at int) string {
			return expect(len(r.types) == at, "%d events before the cut, planned %d", len(r.types), at)
		}},
	}
	for _, tc := range cases {
		for _, proto := range []bool{false, true} {
			for seed := uint64(1); seed <= 3; seed++ {
				t.Run(fmt.Sprintf("%v%s/seed%d", tc.fault, encoding(proto), seed), func(t *testing.T) {
					cfg := Config{Rates: Rates{tc.fault: 1}, Seed: seed, MaxEvents: 20, StallFor: 20 * time.Millisecond}
					p, addr := startProxy(t, fakeAPIServer(t), cfg)
					class := Watch
					if tc.watchList {
						class = WatchList
					}
					at := p.planFor(0, class).at
					r := watchThrough(t, addr, proto, tc.watchList)
					if problem := tc.check(r, at); problem != "" {
						t.Error(problem)
					}
					waitFor(t, func() bool { return p.Stats().Injected[tc.fault] == 1 })
					if st := p.Stats(); st.TotalInjected() != 1 || st.Requests[class] != 1 {
						t.Errorf("stats %+v, want one %v on one %v request", st, tc.fault, class)
					}
				})
			}
		}
	}
}

func TestAStreamThatEndsBeforeThePlannedEventIsNotCounted(t *testing.T) {
	// MaxEvents past the stream's length: a position beyond its end.
	p, addr := startProxy(t, fakeAPIServer(t), Config{Rates: Rates{ResetWatch: 1}, Seed: 9, MaxEvents: 10000})
	at := p.planFor(0, Watch).at
	if at < watchEvents {
		t.Skipf("seed 9 plans position %d, inside the stream; pick another seed", at)
	}
	r := watchThrough(t, addr, true, false)
	if r.count(watch.Modified) != watchEvents {
		t.Errorf("%d events, want all %d", r.count(watch.Modified), watchEvents)
	}
	if st := p.Stats(); st.TotalInjected() != 0 || st.Failed != 0 {
		t.Errorf("stats %+v, want nothing injected", st)
	}
}

func TestTheClientsWaitAfterAFailureIsMeasuredAsABackoffWait(t *testing.T) {
	p, addr := startProxy(t, fakeAPIServer(t), Config{Rates: Rates{InternalError: 1}, MinBackoff: 30 * time.Millisecond})
	get(t, addr+"/api/v1/namespaces/ns/configmaps") // fails at once
	get(t, addr+"/api/v1/namespaces/ns/configmaps") // right after: no wait
	waitStart := time.Now()
	for time.Since(waitStart) < 40*time.Millisecond {
		time.Sleep(5 * time.Millisecond) // the client's backoff, simulated
	}
	get(t, addr+"/api/v1/namespaces/ns/configmaps")
	st := p.Stats()
	if st.BackoffWaits != 1 || st.BackoffTotal < 40*time.Millisecond || st.Failed != 3 {
		t.Errorf("stats %+v, want one backoff wait of at least 40ms after 3 failures", st)
	}
}

func expect(ok bool, format string, args ...any) string {
	if ok {
		return ""
	}
	return fmt.Sprintf(format, args...)
}
