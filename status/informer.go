package status

import (
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Informer is a snapshot of one shared informer of the process, for
// debugging pages and tools. It holds figures only, never object contents.
type Informer struct {
	// ID numbers the informer uniquely within the process, in the order the
	// informers were tracked (see Track); Informers sets it.
	ID uint64
	// Name and Resource are the informer's Identifier (empty when it was
	// created without one).
	Name     string
	Resource schema.GroupVersionResource
	// ObjectType is the Go type of the example object, e.g. "*v1.Pod".
	ObjectType string
	// Started tells whether Run was called; HasSynced is the informer's
	// HasSynced.
	Started, HasSynced bool
	// Objects is the number of objects in the cache.
	Objects int
	// Indices lists the cache's indices by name.
	Indices []Index
	// LastSyncResourceVersion is the informer's LastSyncResourceVersion.
	LastSyncResourceVersion string
	// Reflector describes the informer's Reflector; zero before Run.
	Reflector Reflector
	// Handlers lists the registered event handlers in registration order.
	Handlers []Handler
}

// Index is the size of one index of an informer's cache.
type Index struct {
	// Name is the index name.
	Name string
	// Values is the number of distinct index values.
	Values int
}

// Handler describes one event handler of a shared informer.
type Handler struct {
	// Name names the handler as its registration's HasSyncedChecker does.
	Name string
	// Backlog is the registration's KcachePendingNotifications: queued
	// plus in delivery.
	Backlog int
	// Delivered counts the notifications the handler finished.
	Delivered int64
	// SlowestDelivery is the longest single notification so far.
	SlowestDelivery time.Duration
	// HasSynced is the registration's HasSynced.
	HasSynced bool
}

// Reflector is a snapshot of what a Reflector did so far.
type Reflector struct {
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
