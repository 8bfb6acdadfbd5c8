package cache

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// This file holds what a Reflector counts for itself, whether or not a
// metrics provider is installed: the figures of ReflectorStatus (lists,
// watch-lists, watches, relists by cause, the last error and when it
// happened), read by InformerStatuses.

// The causes a relist is attributed to: the last error the Reflector saw
// before it listed again.
const (
	// RelistCauseExpired: the server no longer had the resource version
	// (410 Gone / Expired), e.g. after compaction.
	RelistCauseExpired = "expired"
	// RelistCauseTooLargeResourceVersion: the server was behind the
	// requested resource version.
	RelistCauseTooLargeResourceVersion = "too_large_resource_version"
	// RelistCauseDecodeError: an event or list could not be decoded.
	RelistCauseDecodeError = "decode_error"
	// RelistCauseOther: any other error, or none (e.g. a resync failure).
	RelistCauseOther = "other"
)

// relistCauses are the causes in the order of every per-cause array.
var relistCauses = [...]string{RelistCauseExpired, RelistCauseTooLargeResourceVersion, RelistCauseDecodeError, RelistCauseOther}

// numRelistCauses is the number of relist causes.
const numRelistCauses = len(relistCauses)

// RelistCauses returns every cause a relist is counted under, in a fixed
// order; the caller owns the slice.
func RelistCauses() []string { return append([]string(nil), relistCauses[:]...) }

// relistCauseIndex numbers the causes for the per-cause arrays; an unknown
// cause is RelistCauseOther.
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
		return RelistCauseExpired
	case isTooLargeResourceVersionError(err):
		return RelistCauseTooLargeResourceVersion
	case strings.Contains(err.Error(), "unable to decode"):
		return RelistCauseDecodeError
	}
	return RelistCauseOther
}

// reflectorStats are one Reflector's own counters. The counters are atomics;
// errMu guards lastError and lastErrorAt.
type reflectorStats struct {
	// lists counts completed lists (List or WatchList), watchLists the
	// WatchList ones among them.
	lists, watchLists atomic.Int64
	// watches counts consumed watch streams.
	watches atomic.Int64
	// relists counts lists after the first, by cause (RelistCauses order).
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
	cause = relistCauseIndex(RelistCauseOther)
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

// ReflectorStatus is a snapshot of what a Reflector did so far.
type ReflectorStatus struct {
	// Name is the Reflector's name (its metrics label).
	Name string
	// Lists counts completed lists, List and WatchList alike; WatchLists
	// counts the WatchList ones among them.
	Lists, WatchLists int64
	// Watches counts consumed watch streams.
	Watches int64
	// Relists counts the lists after the first; RelistsByCause splits them
	// by the causes of RelistCauses.
	Relists        int64
	RelistsByCause map[string]int64
	// LastListTime is when the last list completed; zero before the first.
	LastListTime time.Time
	// LastError is the text of the last error that ended a watch or a
	// list-and-watch round, "" if none; LastErrorTime is when it happened.
	LastError     string
	LastErrorTime time.Time
}

// status returns the snapshot of s for the Reflector called name.
func (s *reflectorStats) status(name string) ReflectorStatus {
	st := ReflectorStatus{
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

// status returns the Reflector's snapshot.
func (r *Reflector) status() ReflectorStatus { return r.metrics.stats.status(r.label) }
