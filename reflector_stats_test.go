package cache

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kcache-go/cache/internal/obstest"
	"github.com/kcache-go/cache/status"
	"go.uber.org/goleak"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// watchEndings are errors that end a watch and make the Reflector relist,
// with the cause the relist is counted under.
var watchEndings = []struct {
	name  string
	err   *apierrors.StatusError
	cause string
}{
	{"410 Expired", apierrors.NewResourceExpired("too old resource version: 1 (5)"), status.RelistCauseExpired},
	{"410 Gone", apierrors.NewGone("gone"), status.RelistCauseExpired},
	{"too large resource version", apierrors.NewTimeoutError("Too large resource version: 9, current: 3", 1), status.RelistCauseTooLargeResourceVersion},
	{"decode error", apierrors.NewInternalError(errors.New("unable to decode an event from the watch stream: bad json")), status.RelistCauseDecodeError},
	{"other internal error", apierrors.NewInternalError(errors.New("boom")), status.RelistCauseOther},
}

func TestRelistCauseOfClassifiesTheErrorsThatEndAWatch(t *testing.T) {
	for _, tc := range watchEndings {
		t.Run(tc.name, func(t *testing.T) {
			if got := relistCauseOf(tc.err); got != tc.cause {
				t.Errorf("relistCauseOf(%v) = %q, want %q", tc.err, got, tc.cause)
			}
		})
	}
}

func TestAReflectorCountsItsRelistsUnderTheCauseOfTheErrorThatEndedTheWatch(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, tc := range watchEndings {
		t.Run(tc.name, func(t *testing.T) {
			src := obstest.NewSource("ns", 2)
			r := NewReflector(src, &v1.Pod{}, NewStore(MetaNamespaceKeyFunc), 0)
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			wg.Go(func() { r.RunWithContext(ctx) })
			defer func() { cancel(); wg.Wait() }()
			before := time.Now()
			w := src.NextWatch(t)
			status := tc.err.Status()
			w.Error(&status)
			src.NextWatch(t)
			obstest.Eventually(t, "the Reflector relisted", func() bool { return r.snapshot().Lists == 2 })

			st := r.snapshot()
			if st.Relists != 1 || st.RelistsByCause[tc.cause] != 1 {
				t.Errorf("relists %d by cause %v, want one under %q", st.Relists, st.RelistsByCause, tc.cause)
			}
			if st.LastError != tc.err.Error() || st.LastErrorTime.Before(before) {
				t.Errorf("last error %q at %v, want %q after %v", st.LastError, st.LastErrorTime, tc.err.Error(), before)
			}
			if st.Watches != 1 || st.WatchLists != 0 || st.LastListTime.Before(st.LastErrorTime) {
				t.Errorf("watches %d, watch-lists %d, last list at %v; want one watch, no WatchList, a list after the error", st.Watches, st.WatchLists, st.LastListTime)
			}
		})
	}
}

func TestReflectorStatsCountTheFirstListAsNoRelistAndForgetACauseOnceUsed(t *testing.T) {
	now := time.Unix(1000, 0)
	steps := []struct {
		name       string
		err        error
		watchList  bool
		wantRelist bool
		wantCause  string
	}{
		{name: "initial list", wantRelist: false},
		{name: "relist after an expired RV", err: apierrors.NewResourceExpired("old"), wantRelist: true, wantCause: status.RelistCauseExpired},
		{name: "relist without an error", wantRelist: true, wantCause: status.RelistCauseOther},
		{name: "a throttled watch is no cause", err: apierrors.NewTooManyRequests("slow down", 1), wantRelist: true, wantCause: status.RelistCauseOther},
		{name: "a requested stop is no error", err: errStopRequested, watchList: true, wantRelist: true, wantCause: status.RelistCauseOther},
	}
	var s reflectorStats
	for _, step := range steps {
		s.noteError(step.err, now)
		relist, cause := s.noteList(step.watchList, now)
		if relist != step.wantRelist || (relist && relistCauses[cause] != step.wantCause) {
			t.Errorf("%s: relist=%v cause=%q, want relist=%v cause=%q", step.name, relist, relistCauses[cause], step.wantRelist, step.wantCause)
		}
	}
	st := s.snapshot("r")
	if st.Lists != 5 || st.WatchLists != 1 || st.Relists != 4 || st.RelistsByCause[status.RelistCauseOther] != 3 || st.RelistsByCause[status.RelistCauseExpired] != 1 {
		t.Errorf("status %+v", st)
	}
	if !strings.Contains(st.LastError, "slow down") {
		t.Errorf("last error %q, want the 429 (a throttled watch is still an error)", st.LastError)
	}
}

func TestAnErrorBeforeTheFirstListIsNotTheCauseOfALaterRelist(t *testing.T) {
	now := time.Unix(1000, 0)
	var s reflectorStats
	s.noteError(apierrors.NewResourceExpired("old"), now) // the initial list failed
	if relist, _ := s.noteList(false, now); relist {
		t.Fatal("the first completed list counted as a relist")
	}
	s.noteError(apierrors.NewTooManyRequests("slow down", 1), now) // no cause
	if relist, cause := s.noteList(false, now); !relist || relistCauses[cause] != status.RelistCauseOther {
		t.Errorf("relist=%v under %q, want a relist under %q: the error before the first list was used up by it", relist, relistCauses[cause], status.RelistCauseOther)
	}
}

func TestTheReflectorCountsRelistsUnderExactlyTheCausesStatusListsInItsOrder(t *testing.T) {
	if got, want := relistCauses[:], status.RelistCauses(); !slices.Equal(got, want) {
		t.Errorf("the Reflector's causes %q, status.RelistCauses %q", got, want)
	}
	if relistCauseIndex("no such cause") != relistCauseIndex(status.RelistCauseOther) {
		t.Error("an unknown cause is not counted as other")
	}
}
