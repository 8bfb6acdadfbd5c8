package cache

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kcache-go/cache/status"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// This file holds what a Reflector counts for itself, whether or not a
// metrics provider is installed: the figures of status.Reflector (lists,
// watch-lists, watches, relists by cause, the last error and when it
// happened), read by status.Informers.

// relistCauses are the causes of status.RelistCauses, in the order of every
// per-cause array; status.RelistCauseOther is last (relistCauseIndex relies on it).
var relistCauses = [...]string{status.RelistCauseExpired, status.RelistCauseTooLargeResourceVersion, status.RelistCauseDecodeError, status.RelistCauseOther}

// numRelistCauses is the number of relist causes.
const numRelistCauses = len(relistCauses)

// relistCauseIndex numbers the causes for the per-cause arrays; an unknown
// cause is status.RelistCauseOther.
func relistCauseIndex(cause string) int {
	for i, c := range relistCauses {
		if c == cause {
			return i
		}
	}
	return numRelistCauses - 1
}

// relistCauseOf classifies err as the cause of the relist it leads to.
func relistCauseOf(err error) string {
	switch {
	case isExpiredError(err):
		return status.RelistCauseExpired
	case isTooLargeResourceVersionError(err):
		return status.RelistCauseTooLargeResourceVersion
	case strings.Contains(err.Error(), "unable to decode"):
		return status.RelistCauseDecodeError
	}
	return status.RelistCauseOther
}

// reflectorStats are one Reflector's own counters. The counters are atomics;
// errMu guards lastError and lastErrorAt.
type reflectorStats struct {
	// lists counts completed lists (List or WatchList), watchLists the
	// WatchList ones among them.
	lists, watchLists atomic.Int64
	// watches counts consumed watch streams.
	watches atomic.Int64
	// relists counts lists after the first, by cause (relistCauses order).
	relists [numRelistCauses]atomic.Int64
	// pendingCause is one more than the relistCauseIndex of the last error
	// seen (0: none); the next relist is counted under it.
	pendingCause atomic.Int32
	// lastListNanos is the Unix time in nanoseconds of the last completed list.
	lastListNanos atomic.Int64

	// errMu guards lastError and lastErrorAt.
	errMu sync.Mutex
	// lastError is the text of the last error; "" when none was seen.
	lastError string
	// lastErrorAt is when lastError was seen.
	lastErrorAt time.Time
}

// noteList counts one completed list and returns whether it was a relist and
// the cause it is counted under.
func (s *reflectorStats) noteList(watchList bool, now time.Time) (relist bool, cause int) {
	s.lastListNanos.Store(now.UnixNano())
	if watchList {
		s.watchLists.Add(1)
	}
	p := s.pendingCause.Swap(0) // NB: used up by the first list too, so it never outlives it
	if s.lists.Add(1) == 1 {
		return false, 0
	}
	cause = relistCauseIndex(status.RelistCauseOther)
	if p > 0 {
		cause = int(p - 1)
	}
	s.relists[cause].Add(1)
	return true, cause
}

// noteError records err as the last error and, unless it is a throttling
// (429, waited out without relisting), as the cause of the next relist. A
// nil error and a requested stop are not errors.
func (s *reflectorStats) noteError(err error, now time.Time) {
	if err == nil || errors.Is(err, errStopRequested) {
		return
	}
	if !apierrors.IsTooManyRequests(err) {
		s.pendingCause.Store(int32(relistCauseIndex(relistCauseOf(err)) + 1))
	}
	s.errMu.Lock()
	s.lastError, s.lastErrorAt = err.Error(), now
	s.errMu.Unlock()
}

// snapshot returns the status of s for the Reflector called name.
func (s *reflectorStats) snapshot(name string) status.Reflector {
	st := status.Reflector{
		Name:           name,
		Lists:          s.lists.Load(),
		WatchLists:     s.watchLists.Load(),
		Watches:        s.watches.Load(),
		RelistsByCause: make(map[string]int64, numRelistCauses),
	}
	for i, cause := range relistCauses {
		n := s.relists[i].Load()
		st.RelistsByCause[cause] = n
		st.Relists += n
	}
	if ns := s.lastListNanos.Load(); ns != 0 {
		st.LastListTime = time.Unix(0, ns)
	}
	s.errMu.Lock()
	st.LastError, st.LastErrorTime = s.lastError, s.lastErrorAt
	s.errMu.Unlock()
	return st
}
