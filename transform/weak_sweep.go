package transform

import (
	"runtime"
	"sync"
)

// sweepable is a table whose weak entries weakSweeps sweeps: sweep takes
// the table's own lock, drops what was collected, and reports whether the
// table still holds an entry.
type sweepable interface{ sweep() bool }

// weakSweeps sweeps the interning and sharing tables after every garbage
// collection while any of them holds an entry, so that the storage of
// entries whose objects were collected is given back even when nothing is
// inserted any more. One sweep is scheduled at a time: a cleanup attached
// to a sentinel object, which the next collection finds unreachable; the
// sweep then schedules the next one, unless every table is empty and
// nothing was inserted meanwhile.
//
// Lock order: a table's mutex, then weakSweeps.mu; a sweep holds
// weakSweeps.mu only while it holds no table's.
var weakSweeps struct {
	// mu guards tables, armed and inserted.
	mu sync.Mutex
	// tables are the tables that ever held an entry, each once.
	tables []sweepable
	// armed is true while a sweep is scheduled or running.
	armed bool
	// inserted is set by every insertion, cleared by a sweep's start.
	inserted bool
}

// sweepSentinel is the object whose collection runs a sweep. NB: it holds
// a pointer so that it is never a tiny allocation (whose cleanups may not
// run while another object of its block lives).
type sweepSentinel struct{ _ *byte }

// noteWeakInsert records an insertion into t, registering t on its first
// and scheduling a sweep when none is; *registered, guarded by t's mutex
// (held), says whether t is registered.
func noteWeakInsert(t sweepable, registered *bool) {
	weakSweeps.mu.Lock()
	defer weakSweeps.mu.Unlock()
	if !*registered {
		weakSweeps.tables = append(weakSweeps.tables, t)
		*registered = true
	}
	weakSweeps.inserted = true
	if !weakSweeps.armed {
		weakSweeps.armed = true
		scheduleWeakSweep()
	}
}

// scheduleWeakSweep has the next garbage collection run sweepWeakTables.
func scheduleWeakSweep() {
	runtime.AddCleanup(new(sweepSentinel), func(struct{}) { sweepWeakTables() }, struct{}{})
}

// sweepWeakTables sweeps every registered table, then schedules the next
// sweep unless every table is empty and nothing was inserted meanwhile.
func sweepWeakTables() {
	weakSweeps.mu.Lock()
	tables := weakSweeps.tables
	weakSweeps.inserted = false
	weakSweeps.mu.Unlock()
	holding := false
	for _, t := range tables {
		if t.sweep() {
			holding = true
		}
	}
	weakSweeps.mu.Lock()
	defer weakSweeps.mu.Unlock()
	if holding || weakSweeps.inserted {
		scheduleWeakSweep()
	} else {
		weakSweeps.armed = false
	}
}
