package cache

import "errors"

// DeltaType is the type of a change (addition, deletion, etc)
type DeltaType string

// Change type definition
const (
	Added   DeltaType = "Added"
	Updated DeltaType = "Updated"
	Deleted DeltaType = "Deleted"
	// Replaced is emitted when we encountered watch errors and had to do a
	// relist, or on initial listing of objects. We don't know if the replaced
	// object has changed.
	//
	// NOTE: Previous versions of DeltaFIFO would use Sync for Replace events
	// as well. Hence, Replaced is only emitted when the option
	// EmitDeltaTypeReplaced is true.
	Replaced DeltaType = "Replaced"
	// ReplacedAll is emitted when we encountered watch errors and had to do
	// a relist, or on initial listing of objects. This is the same reason as
	// Replaced but will be emitted instead when the FIFO supports atomic
	// replacement. This event will return the full list of replaced items
	// instead of a single object.
	ReplacedAll DeltaType = "ReplacedAll"
	// Sync is for synthetic events during a periodic resync.
	Sync DeltaType = "Sync"
	// SyncAll indicates all known objects should be reprocessed.
	// This event contains an object of type SyncAllInfo.
	SyncAll DeltaType = "SyncAll"
	// Bookmark is emitted on Bookmark calls and Replace calls to pass resource
	// version information to the consumer.
	Bookmark DeltaType = "Bookmark"
)

// ErrZeroLengthDeltasObject is returned in a KeyError if a Deltas object with
// zero length is encountered (should be impossible, but included for
// completeness).
var ErrZeroLengthDeltasObject = errors.New("0 length Deltas object; can't get key")

// Delta is a member of Deltas (a list of Delta objects) which in its turn is
// the type stored by a DeltaFIFO. It tells you what change happened, and the
// object's state after* that change.
//
// [*] Unless the change is a deletion, and then you'll get the final state of
// the object before it was deleted.
type Delta struct {
	// Type says what happened to the object.
	Type DeltaType
	// Object is the object after the change, the last known state for a
	// deletion, or the payload (ReplacedAllInfo, SyncAllInfo, BookmarkInfo)
	// of a queue-wide delta.
	Object interface{}
}

// Deltas is a list of one or more 'Delta's to an individual object. The oldest
// delta is at index 0, the newest delta is the last one.
type Deltas []Delta

// Oldest is a convenience function that returns the oldest delta, or nil if
// there are no deltas. The pointer refers into d.
func (d Deltas) Oldest() *Delta {
	if len(d) == 0 {
		return nil
	}
	return &d[0]
}

// Newest is a convenience function that returns the newest delta, or nil if
// there are no deltas. The pointer refers into d.
func (d Deltas) Newest() *Delta {
	if len(d) == 0 {
		return nil
	}
	return &d[len(d)-1]
}

// ReplacedAllInfo is the object associated with a Delta of type=ReplacedAll
type ReplacedAllInfo struct {
	// ResourceVersion is the resource version passed to the Replace() call that created this Delta
	ResourceVersion string
	// Objects are the list of objects passed to the Replace() call that created this Delta,
	// with any configured transformation already applied.
	Objects []interface{}
}

// SyncAllInfo is the object associated with a Delta of type=SyncAll It is used
// to trigger a resync of the entire queue.
type SyncAllInfo struct{}

// BookmarkInfo is the object associated with a Delta of type=Bookmark
type BookmarkInfo struct {
	// ResourceVersion is the resource version passed to the Bookmark() call that created this Delta
	ResourceVersion string
}

// batchable reports whether a delta of type t concerns a single object and so
// may travel in a PopBatch batch. Queue-wide deltas (ReplacedAll, SyncAll,
// Bookmark) are always handed over on their own.
func (t DeltaType) batchable() bool {
	switch t {
	case ReplacedAll, SyncAll, Bookmark:
		return false
	}
	return true
}
