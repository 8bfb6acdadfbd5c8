package cache

import "errors"

// DeltaType names the kind of change a Delta records.
type DeltaType string

// The kinds of per-object delta.
const (
	// Added: the object was created (or first seen by a watch).
	Added DeltaType = "Added"
	// Deleted: the object is gone; Object holds its last known state, or a
	// DeletedFinalStateUnknown when the deletion was inferred.
	Deleted DeltaType = "Deleted"
	// Updated: the object changed.
	Updated DeltaType = "Updated"
	// Sync: the object is handed over again by a periodic resync.
	Sync DeltaType = "Sync"
	// Replaced: the object was in the list given to Replace (a relist or
	// the initial list), whether or not it changed. DeltaFIFO only uses it
	// when EmitDeltaTypeReplaced is set and Sync otherwise, as older
	// releases did; non-atomic RealFIFO always uses it.
	Replaced DeltaType = "Replaced"
)

// The kinds of queue-wide delta, which concern no single object and so never
// travel in a PopBatch batch.
const (
	// SyncAll: every object the consumer holds is to be handed over again;
	// Object is a SyncAllInfo. An atomic RealFIFO's Resync queues it.
	SyncAll DeltaType = "SyncAll"
	// ReplacedAll: a whole list given to Replace, in one delta whose Object
	// is a ReplacedAllInfo. An atomic RealFIFO queues it instead of one
	// Replaced per object.
	ReplacedAll DeltaType = "ReplacedAll"
	// Bookmark: a resource version reached by the producer, for the
	// consumer to record; Object is a BookmarkInfo.
	Bookmark DeltaType = "Bookmark"
)

// ErrZeroLengthDeltasObject is the cause in the KeyError DeltaFIFO.KeyOf
// returns for an empty Deltas, which has no object to take a key from; the
// writes of DeltaFIFO and RealFIFO return it wrapped in one more KeyError.
// Queues never hand out an empty Deltas.
var ErrZeroLengthDeltasObject = errors.New("0 length Deltas object; can't get key")

// Delta is one change a queue hands to its consumer: what happened (Type)
// and the object as it was right after the change, or, for a deletion, as it
// was last seen before it.
type Delta struct {
	// Type says what happened to the object.
	Type DeltaType
	// Object is the object after the change, the last known state for a
	// deletion, or the payload (ReplacedAllInfo, SyncAllInfo, BookmarkInfo)
	// of a queue-wide delta.
	Object interface{}
}

// Deltas is the sequence of changes to one object, oldest first. DeltaFIFO
// accumulates one per key; RealFIFO's Pop hands out one holding a single
// Delta.
type Deltas []Delta

// Oldest returns a pointer to the first delta of d (into d, not a copy), or
// nil when d is empty.
func (d Deltas) Oldest() *Delta {
	if len(d) == 0 {
		return nil
	}
	return &d[0]
}

// Newest returns a pointer to the last delta of d (into d, not a copy), or
// nil when d is empty.
func (d Deltas) Newest() *Delta {
	if len(d) == 0 {
		return nil
	}
	return &d[len(d)-1]
}

// ReplacedAllInfo is the Object of a ReplacedAll delta: one complete list.
type ReplacedAllInfo struct {
	// ResourceVersion is the version the list was taken at (Replace's second
	// argument).
	ResourceVersion string
	// Objects is the list given to Replace or, when the queue has a
	// transformer, a new list of the transformed objects (the caller's list
	// is never written).
	Objects []interface{}
}

// SyncAllInfo is the Object of a SyncAll delta. It carries nothing: the
// consumer resyncs everything it holds.
type SyncAllInfo struct{}

// BookmarkInfo is the Object of a Bookmark delta.
type BookmarkInfo struct {
	// ResourceVersion is the version given to Bookmark.
	ResourceVersion string
}

// perObject reports whether a delta of type t concerns a single object and so
// may travel in a PopBatch batch. Queue-wide deltas (ReplacedAll, SyncAll,
// Bookmark) are always handed over on their own.
func (t DeltaType) perObject() bool {
	switch t {
	case ReplacedAll, SyncAll, Bookmark:
		return false
	}
	return true
}
