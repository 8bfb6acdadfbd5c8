package cache

import (
	"errors"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	clocktesting "k8s.io/utils/clock/testing"
)

func TestRetryWithDeadlineFollowsTheStreakOfRetryableErrors(t *testing.T) {
	internal := apierrors.NewInternalError(errors.New("x"))
	other := errors.New("other")
	type step struct {
		after time.Duration // fake time passing before the call
		err   error         // passed to After
		want  bool          // ShouldRetry afterwards
	}
	minute := time.Minute
	cases := []struct {
		name       string
		max, quiet time.Duration
		steps      []step
	}{
		{"errors within the budget are retried, the one past it is not, the next starts a new streak", minute, minute, []step{
			{0, internal, true}, {30 * time.Second, internal, true}, {29 * time.Second, internal, true},
			{2 * time.Second, internal, false}, {time.Second, internal, true}}},
		{"exactly the budget is still retried", minute, minute, []step{
			{0, internal, true}, {30 * time.Second, internal, true}, {30 * time.Second, internal, true}}},
		{"nil does not reset the streak", minute, minute, []step{
			{0, internal, true}, {30 * time.Second, nil, true}, {29 * time.Second, internal, true}, {50 * time.Second, internal, false}}},
		{"nil does not count as the latest error", minute, 10 * time.Second, []step{
			{0, internal, true}, {55 * time.Second, nil, true}, {6 * time.Second, internal, true}}},
		{"a quiet period of at least minResetPeriod starts a new streak", minute, minute, []step{
			{0, internal, true}, {60 * time.Second, internal, true}, {time.Second, internal, true}}},
		{"a non-retryable error is ignored", minute, minute, []step{
			{0, other, false}, {0, internal, true}, {50 * time.Second, internal, true}, {5 * time.Second, other, true}, {6 * time.Second, internal, false}}},
		{"without a budget nothing is retried", 0, minute, []step{{0, internal, false}}},
		{"a negative budget retries nothing", -time.Second, minute, []step{{0, internal, false}}},
		{"an expired streak is forgotten by ShouldRetry", minute, minute, []step{
			{0, internal, true}, {61 * time.Second, nil, false}, {0, internal, true}, {59 * time.Second, internal, true}, {time.Second, internal, true}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(time.Unix(0, 0))
			r := NewRetryWithDeadline(tc.max, tc.quiet, apierrors.IsInternalError, clk)
			if r.ShouldRetry() {
				t.Fatal("ShouldRetry is true before any error")
			}
			for i, s := range tc.steps {
				clk.Step(s.after)
				r.After(s.err)
				if got := r.ShouldRetry(); got != s.want {
					t.Fatalf("step %d (+%v, %v): ShouldRetry = %v, want %v", i, s.after, s.err, got, s.want)
				}
			}
		})
	}
}

func TestRetryWithDeadlineForgetsAnExpiredStreakOnlyWhenAsked(t *testing.T) {
	internal := apierrors.NewInternalError(errors.New("x"))
	clk := clocktesting.NewFakeClock(time.Unix(0, 0))
	r := NewRetryWithDeadline(time.Minute, time.Minute, apierrors.IsInternalError, clk)
	r.After(internal)
	clk.Step(59 * time.Second)
	r.After(internal)
	clk.Step(2 * time.Second)
	r.After(internal) // past the budget, but nobody asked
	clk.Step(time.Second)
	r.After(internal)
	if r.ShouldRetry() {
		t.Fatal("the streak that started 62s ago must not be retried")
	}
	r.After(internal)
	if !r.ShouldRetry() {
		t.Fatal("after ShouldRetry said no, the next error starts a new streak")
	}
}

func TestDefaultReflectorDelayDoublesWithJitterUpToTheCapAndResetsAfterTwoQuietMinutes(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(0, 0))
	delay := newReflectorDelay(nil, clk)
	base := reflectorBackoffInitial
	for i := 0; i < 12; i++ {
		d := delay()
		lo := min(base, reflectorBackoffCap)
		hi := 2 * lo
		if d < lo || d > hi {
			t.Fatalf("delay %d = %v, want within [%v, %v]", i, d, lo, hi)
		}
		base *= 2
		clk.Step(time.Second)
	}
	clk.Step(reflectorBackoffReset)
	if d := delay(); d < reflectorBackoffInitial || d > 2*reflectorBackoffInitial {
		t.Fatalf("after two quiet minutes the delay is %v, want it back at [800ms, 1.6s]", d)
	}
}

func TestCustomBackoffReplacesTheDefaultPolicy(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(0, 0))
	delay := newReflectorDelay(&wait.Backoff{Duration: time.Second, Factor: 3, Steps: 10, Cap: 20 * time.Second}, clk)
	want := []time.Duration{time.Second, 3 * time.Second, 9 * time.Second, 20 * time.Second, 20 * time.Second}
	for i, w := range want {
		if got := delay(); got != w {
			t.Fatalf("delay %d = %v, want %v", i, got, w)
		}
	}
}
