package cache

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/clock"
)

// This file holds the Reflector's waiting policy: the exponential delay
// between failed ListAndWatch rounds (and between watch restarts after
// throttling), and RetryWithDeadline, which bounds how long a class of
// errors is retried in place.

// The Reflector's default delay policy: start at 800ms, double on every
// consecutive failure up to 30s, add up to 100% random jitter, and start over
// once two minutes passed without a delay being requested. At the cap the
// Reflector makes roughly one attempt every 30-60s, a small fraction of the
// traffic an unthrottled client would cause against an unhealthy server.
const (
	reflectorBackoffInitial = 800 * time.Millisecond
	reflectorBackoffCap     = 30 * time.Second
	reflectorBackoffFactor  = 2.0
	reflectorBackoffJitter  = 1.0
	reflectorBackoffReset   = 2 * time.Minute
)

// defaultReflectorBackoff returns the default delay policy as a wait.Backoff.
// Steps is large enough for the doubling to reach the cap, after which the
// cap is used for every further delay.
func defaultReflectorBackoff() *wait.Backoff {
	steps := int(reflectorBackoffCap/reflectorBackoffInitial) + 1
	return &wait.Backoff{
		Duration: reflectorBackoffInitial,
		Factor:   reflectorBackoffFactor,
		Jitter:   reflectorBackoffJitter,
		Steps:    steps,
		Cap:      reflectorBackoffCap,
	}
}

// newReflectorDelay builds the delay function a Reflector waits with: the
// given backoff (or the default policy when nil), restarting from its initial
// duration after reflectorBackoffReset without a call. The returned function
// is safe for concurrent use and never blocks.
func newReflectorDelay(custom *wait.Backoff, c clock.Clock) wait.DelayFunc {
	policy := custom
	if policy == nil {
		policy = defaultReflectorBackoff()
	}
	return policy.DelayWithReset(c, reflectorBackoffReset)
}

// RetryWithDeadline bounds in-place retries of one class of errors: After
// is told the outcome of each attempt, ShouldRetry says whether the loop may
// try again.
type RetryWithDeadline interface {
	After(error)
	ShouldRetry() bool
}

// NewRetryWithDeadline returns a RetryWithDeadline that allows retrying
// errors for which isRetryable returns true for up to maxRetryDuration,
// counted from the first error of a streak. A streak starts with a retryable
// error seen when none was recorded before, or at least minResetPeriod after
// the previous retryable error. Errors that are not retryable (and nil) are
// not recorded and do not end a streak. Once ShouldRetry finds the streak
// older than maxRetryDuration it reports false and forgets the streak, so the
// next retryable error starts a new one. A maxRetryDuration <= 0 never
// allows a retry.
func NewRetryWithDeadline(maxRetryDuration, minResetPeriod time.Duration, isRetryable func(error) bool, clock clock.Clock) RetryWithDeadline {
	return &errorStreakRetry{
		budget:      maxRetryDuration,
		quietPeriod: minResetPeriod,
		retryable:   isRetryable,
		clock:       clock,
	}
}

// errorStreakRetry implements RetryWithDeadline by tracking the current
// streak of retryable errors. mu guards streakStart and lastError; the other
// fields are immutable.
type errorStreakRetry struct {
	// budget is how long a streak may be retried (maxRetryDuration).
	budget time.Duration
	// quietPeriod is the error-free gap that starts a new streak (minResetPeriod).
	quietPeriod time.Duration
	// retryable classifies errors; only those are recorded.
	retryable func(error) bool
	// clock supplies the current time.
	clock clock.Clock

	// mu guards streakStart and lastError.
	mu sync.Mutex
	// streakStart is when the current streak began; zero when there is none.
	streakStart time.Time
	// lastError is when the latest retryable error was recorded.
	lastError time.Time
}

// After records err when it is retryable, starting a new streak when there
// is none or the previous retryable error is at least quietPeriod old.
func (r *errorStreakRetry) After(err error) {
	if err == nil || !r.retryable(err) {
		return
	}
	now := r.clock.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.streakStart.IsZero() || now.Sub(r.lastError) >= r.quietPeriod {
		r.streakStart = now
	}
	r.lastError = now
}

// ShouldRetry reports whether a streak is running and younger than the
// budget. An expired streak is forgotten.
func (r *errorStreakRetry) ShouldRetry() bool {
	if r.budget <= 0 {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.streakStart.IsZero() {
		return false
	}
	if r.clock.Since(r.streakStart) > r.budget {
		r.streakStart = time.Time{}
		return false
	}
	return true
}
