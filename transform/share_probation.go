package transform

import (
	"hash/maphash"
	"sync/atomic"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
)

// Parts no other pod has. A canonical value costs its table an entry
// (about 50 B of heap and the runtime's record of its weak pointer), which
// pays when other pods share the value and is lost when none does: on the
// pods of a StatefulSet or an indexed Job configured per member, whose
// env, args or limits are their own, every such part would cost an entry
// and save nothing. So each table counts the values it found for another
// pod (reuses) and the values it found nothing equal to (news); while news
// outnumber reuses (after shareProbationAfter news), a new value gets no
// entry until a second pod has it: the first pod keeps its own part, the
// second makes a canonical copy, and every later pod shares it. A table
// leaves that state as soon as reuses catch up again.
//
// NB: leaving a part the pod's own is safe only because a second
// application never replaces it by a canonical value equal to it (which
// a later pod may make): sharePodParts skips a pod it transformed before
// (podPartsShared), so a cached pod is never written again.

// shareProbationAfter is how many new values a table sees before its
// counts can put it in probation. NB: a variable only so that the tests
// of the tables' other behaviours can turn probation off.
var shareProbationAfter uint32 = 256

// shareStatsWindow is how many new values make a table halve its counts,
// so that they follow the pods it sees now.
const shareStatsWindow = 4096

// shareSeenSlots is the size of a table's filter of values seen once.
const shareSeenSlots = 1024

// shareStats are a canonTable's counts and its filter of values seen in
// one pod.
type shareStats struct {
	// reuses counts the values found canonical for another object, at
	// most shareStatsWindow (atomic, no lock: lookups find them without
	// the table's mutex).
	reuses atomic.Uint32
	// news counts the values nothing equal was found for. Guarded by the
	// table's mutex, as is seen.
	news uint32
	// seen holds, for values left their pod's own in probation, the 32
	// bits of their content hash and of their pod's identity (0: empty),
	// one slot per hash; nil until the table is first in probation.
	seen []uint64
}

// noteReuse counts a value found canonical for another object, up to
// shareStatsWindow: the counts are of the recent values only, so a table
// that saw mostly reuses for long still enters probation within a few
// thousand new values, and once the count is full a reuse writes nothing
// (no cache line bounced between the goroutines that transform pods).
func (s *shareStats) noteReuse() {
	if s.reuses.Load() < shareStatsWindow {
		s.reuses.Add(1)
	}
}

// keepOwnLocked counts a value of hash h, of the pod owner, for which the
// table holds nothing equal, and reports whether the pod keeps it as its
// own: the table is in probation and no other pod was seen with a value
// of that hash since. owner 0 (a pod sharePodParts cannot recognise as
// transformed) never keeps its own. The table's mutex is held.
func (s *shareStats) keepOwnLocked(h, owner uint32) bool {
	s.news++
	if s.news >= shareStatsWindow {
		s.news /= 2
		s.reuses.Store(s.reuses.Load() / 2)
	}
	if owner == 0 || s.news < shareProbationAfter || s.news <= s.reuses.Load() {
		return false
	}
	if s.seen == nil {
		s.seen = make([]uint64, shareSeenSlots)
	}
	slot := &s.seen[h%shareSeenSlots]
	mark := uint64(h)<<32 | uint64(owner)
	if *slot>>32 == uint64(h) && *slot != 0 && *slot != mark {
		*slot = 0 // a second pod has the value: it is made canonical
		return false
	}
	*slot = mark
	return true
}

// podOwner is the identity of pod for the tables' statistics: 32 bits of
// its UID's hash (of its namespace and name when it has no UID, of its
// address when it has neither), never 0; 0 for a pod podPartsShared
// cannot recognise once transformed (no first container name, or one too
// long to intern), which the tables never leave a part of.
func podOwner(pod *corev1.Pod) uint32 {
	if len(pod.Spec.Containers) == 0 || pod.Spec.Containers[0].Name == "" {
		return 0
	}
	if _, ok := weakLen(len(pod.Spec.Containers[0].Name)); !ok {
		return 0
	}
	var h uint64
	switch {
	case pod.UID != "":
		h = maphash.String(shareSeed, string(pod.UID))
	case pod.Name != "":
		var mh maphash.Hash
		mh.SetSeed(shareSeed)
		mh.WriteString(pod.Namespace)
		mh.WriteByte('/')
		mh.WriteString(pod.Name)
		h = mh.Sum64()
	default:
		h = mix64(uint64(uintptr(unsafe.Pointer(pod))))
	}
	return weakHash(h) | 1
}

// podPartsShared reports whether sharePodParts transformed pod before: its
// first container's name is the interned copy (a decoded pod has its own
// copy of every string, and the first application interns that name). A
// pod deep-copied from a transformed one is taken for transformed too,
// and left as it is.
func podPartsShared(pod *corev1.Pod) bool {
	if len(pod.Spec.Containers) == 0 {
		return false
	}
	return isInterned(pod.Spec.Containers[0].Name)
}

// isInterned reports whether s is the canonical copy of its content in
// the intern table (internString). It takes no lock.
func isInterned(s string) bool {
	n, ok := weakLen(len(s))
	if s == "" || !ok {
		return false
	}
	c, ok := internedStrings.lookup(weakHash(maphash.String(shareSeed, s)), n, s)
	return ok && sameStringData(c, s)
}
