package debug

import (
	"time"

	"github.com/kcache-go/cache/status"
)

// Snapshot is the JSON document of ?format=json.
type Snapshot struct {
	// GeneratedAt is when the snapshot was taken.
	GeneratedAt time.Time `json:"generatedAt"`
	// Informers lists the live informers in creation order.
	Informers []Informer `json:"informers"`
}

// Informer describes one shared informer.
type Informer struct {
	// ID numbers the informer within the process.
	ID uint64 `json:"id"`
	// Name, Group, Version and Resource are the informer's Identifier;
	// empty when it has none.
	Name     string `json:"name"`
	Group    string `json:"group"`
	Version  string `json:"version"`
	Resource string `json:"resource"`
	// ObjectType is the Go type of the cached objects.
	ObjectType string `json:"objectType"`
	// Started tells whether the informer runs; HasSynced is its HasSynced.
	Started   bool `json:"started"`
	HasSynced bool `json:"hasSynced"`
	// Objects is the number of cached objects.
	Objects int `json:"objects"`
	// Indices lists the cache's indices by name.
	Indices []Index `json:"indices"`
	// LastSyncResourceVersion is the last resource version synced.
	LastSyncResourceVersion string `json:"lastSyncResourceVersion"`
	// Reflector describes the informer's Reflector (zero before Run).
	Reflector Reflector `json:"reflector"`
	// Handlers lists the event handlers in registration order.
	Handlers []EventHandler `json:"handlers"`
}

// Index is one index of a cache and its number of distinct values.
type Index struct {
	Name   string `json:"name"`
	Values int    `json:"values"`
}

// Reflector describes what an informer's Reflector did.
type Reflector struct {
	// Name is the Reflector's name (its metrics label).
	Name string `json:"name"`
	// Lists counts completed lists (WatchLists included).
	Lists      int64 `json:"lists"`
	WatchLists int64 `json:"watchLists"`
	Watches    int64 `json:"watches"`
	// Relists counts lists after the first; RelistsByCause by cause.
	Relists        int64            `json:"relists"`
	RelistsByCause map[string]int64 `json:"relistsByCause"`
	// LastSyncTime is when the last list completed; nil before the first.
	LastSyncTime *time.Time `json:"lastSyncTime,omitempty"`
	// LastError and LastErrorTime tell the last error and when it happened.
	LastError     string     `json:"lastError,omitempty"`
	LastErrorTime *time.Time `json:"lastErrorTime,omitempty"`
}

// EventHandler describes one event handler.
type EventHandler struct {
	Name string `json:"name"`
	// Backlog is the notifications not finished yet (queued or in delivery).
	Backlog int `json:"backlog"`
	// Delivered counts the notifications finished.
	Delivered int64 `json:"delivered"`
	// SlowestDeliverySeconds is the longest single notification.
	SlowestDeliverySeconds float64 `json:"slowestDeliverySeconds"`
	// HasSynced is the registration's HasSynced.
	HasSynced bool `json:"hasSynced"`
}

// Take returns the snapshot of the process's informers now.
func Take() Snapshot {
	statuses := status.Informers()
	s := Snapshot{GeneratedAt: time.Now(), Informers: make([]Informer, 0, len(statuses))}
	for _, st := range statuses {
		s.Informers = append(s.Informers, informerOf(st))
	}
	return s
}

// informerOf converts a status.Informer.
func informerOf(st status.Informer) Informer {
	inf := Informer{
		ID: st.ID, Name: st.Name, Group: st.Resource.Group, Version: st.Resource.Version, Resource: st.Resource.Resource,
		ObjectType: st.ObjectType, Started: st.Started, HasSynced: st.HasSynced, Objects: st.Objects,
		Indices: make([]Index, 0, len(st.Indices)), LastSyncResourceVersion: st.LastSyncResourceVersion,
		Reflector: reflectorOf(st.Reflector), Handlers: make([]EventHandler, 0, len(st.Handlers)),
	}
	for _, ix := range st.Indices {
		inf.Indices = append(inf.Indices, Index{Name: ix.Name, Values: ix.Values})
	}
	for _, h := range st.Handlers {
		inf.Handlers = append(inf.Handlers, EventHandler{Name: h.Name, Backlog: h.Backlog, Delivered: h.Delivered,
			SlowestDeliverySeconds: h.SlowestDelivery.Seconds(), HasSynced: h.HasSynced})
	}
	return inf
}

// reflectorOf converts a status.Reflector.
func reflectorOf(st status.Reflector) Reflector {
	r := Reflector{Name: st.Name, Lists: st.Lists, WatchLists: st.WatchLists, Watches: st.Watches,
		Relists: st.Relists, RelistsByCause: st.RelistsByCause, LastError: st.LastError}
	if r.RelistsByCause == nil {
		r.RelistsByCause = map[string]int64{}
	}
	if !st.LastListTime.IsZero() {
		t := st.LastListTime
		r.LastSyncTime = &t
	}
	if !st.LastErrorTime.IsZero() {
		t := st.LastErrorTime
		r.LastErrorTime = &t
	}
	return r
}
