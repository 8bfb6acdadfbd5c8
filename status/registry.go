package status

import (
	"runtime"
	"sort"
	"sync"
	"weak"
)

// tracked is the process-wide list of informers, read by Informers. It holds
// weak pointers only (inside each entry's probe), so it never keeps an
// informer alive: an entry is removed when its informer is garbage
// collected (a cleanup registered with runtime.AddCleanup), or when a
// listing finds the informer stopped.
//
// mu guards next and byID.
var tracked = struct {
	mu sync.Mutex
	// next is the number the next tracked informer gets.
	next uint64
	// byID maps each tracked informer's number to its probe.
	byID map[uint64]probe
}{byID: map[uint64]probe{}}

// probe looks at one tracked informer. For a live informer it returns the
// function that takes its snapshot (which holds the informer strongly until
// it is dropped); for a collected one nil, false; for a stopped one nil,
// true.
type probe func() (snapshot func() Informer, stopped bool)

// Track lists the informer p in Informers until p is garbage collected or
// stopped reports true for it; from then on it is never listed again. It
// gives p the next ID. kcache's shared informers call it when they are
// created; another informer implementation may call it to appear on the
// same pages.
//
// Track never keeps p alive. NB: for that, stopped and snapshot must not
// hold p themselves (a method expression such as (*myInformer).IsStopped
// does not; a closure over p would). Informers calls stopped with the list's
// lock held and snapshot without it, each time it lists; both must be safe
// for concurrent use.
func Track[T any](p *T, stopped func(*T) bool, snapshot func(*T) Informer) {
	wp := weak.Make(p)
	look := func() (func() Informer, bool) {
		v := wp.Value()
		if v == nil {
			return nil, false
		}
		if stopped(v) {
			return nil, true
		}
		return func() Informer { return snapshot(v) }, false
	}
	tracked.mu.Lock()
	tracked.next++
	id := tracked.next
	tracked.byID[id] = look
	tracked.mu.Unlock()
	runtime.AddCleanup(p, forget, id)
}

// forget removes the entry numbered id.
func forget(id uint64) {
	tracked.mu.Lock()
	defer tracked.mu.Unlock()
	delete(tracked.byID, id)
}

// Informers returns a snapshot of every tracked informer that is still
// reachable and has not stopped, in the order they were tracked; kcache
// tracks every shared informer made by NewSharedInformer,
// NewSharedIndexInformer or NewSharedIndexInformerWithOptions. Safe for
// concurrent use: the snapshots are taken one at a time, after the list's
// lock is released (a kcache informer takes its own locks briefly and reads
// its cache's keys and index values, not the objects).
func Informers() []Informer {
	live := liveSnapshots()
	out := make([]Informer, 0, len(live))
	for _, l := range live {
		st := l.snapshot()
		st.ID = l.id
		out = append(out, st)
	}
	return out
}

// numbered is a live informer's number and snapshot function.
type numbered struct {
	id       uint64
	snapshot func() Informer
}

// liveSnapshots returns the snapshot functions of the tracked informers
// that are still reachable and not stopped, in ID order; stopped ones are
// dropped from the list.
func liveSnapshots() []numbered {
	tracked.mu.Lock()
	defer tracked.mu.Unlock()
	out := make([]numbered, 0, len(tracked.byID))
	for id, look := range tracked.byID {
		snap, stopped := look()
		if stopped {
			delete(tracked.byID, id)
			continue
		}
		if snap == nil {
			continue // collected; its cleanup removes the entry
		}
		out = append(out, numbered{id, snap})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}
