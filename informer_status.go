package cache

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// InformerStatus is a snapshot of one shared informer of the process, for
// debugging pages and tools. It holds figures only, never object contents.
type InformerStatus struct {
	// ID numbers the informer uniquely within the process.
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
	Indices []IndexStatus
	// LastSyncResourceVersion is the informer's LastSyncResourceVersion.
	LastSyncResourceVersion string
	// Reflector describes the informer's Reflector; zero before Run.
	Reflector ReflectorStatus
	// Handlers lists the registered event handlers in registration order.
	Handlers []HandlerStatus
}

// IndexStatus is the size of one index of an informer's cache.
type IndexStatus struct {
	// Name is the index name.
	Name string
	// Values is the number of distinct index values.
	Values int
}

// HandlerStatus describes one event handler of a shared informer.
type HandlerStatus struct {
	// Name names the handler as its registration's HasSyncedChecker does.
	Name string
	// Backlog is the handler's PendingNotifications: queued plus in delivery.
	Backlog int
	// Delivered counts the notifications the handler finished.
	Delivered int64
	// SlowestDelivery is the longest single notification so far.
	SlowestDelivery time.Duration
	// HasSynced is the registration's HasSynced.
	HasSynced bool
}

// InformerStatuses returns a snapshot of every shared informer of the
// process that was made by NewSharedInformer, NewSharedIndexInformer or
// NewSharedIndexInformerWithOptions, is still reachable and has not
// stopped, in creation order. Informers register themselves; the registry
// holds them weakly and never keeps one alive. Safe for concurrent use; it
// takes each informer's locks briefly, one at a time, and reads each
// cache's keys and index values (not the objects).
func InformerStatuses() []InformerStatus {
	informers := registeredInformers()
	out := make([]InformerStatus, 0, len(informers))
	for _, s := range informers {
		out = append(out, s.status())
	}
	return out
}

// status takes the snapshot of s.
func (s *sharedIndexInformer) status() InformerStatus {
	st := InformerStatus{
		ID:         s.registryID,
		Name:       s.identifier.Name(),
		Resource:   s.identifier.GroupVersionResource(),
		ObjectType: fmt.Sprintf("%T", s.objectType),
		HasSynced:  s.HasSynced(),
		Objects:    storedCount(s.indexer),
		Handlers:   s.processor.handlerStatuses(),
	}
	st.Indices = indexStatuses(s.indexer)
	slices.SortFunc(st.Indices, func(a, b IndexStatus) int { return strings.Compare(a.Name, b.Name) })
	s.startedMu.Lock()
	st.Started = s.started
	ctrl, _ := s.controller.(*controller)
	s.startedMu.Unlock()
	if ctrl != nil {
		if r := ctrl.reflector.Load(); r != nil {
			st.Reflector = r.status()
		}
		st.LastSyncResourceVersion = ctrl.LastSyncResourceVersion()
	}
	return st
}

// handlerStatuses describes the registered listeners, under p.mu for reading.
func (p *sharedProcessor) handlerStatuses() []HandlerStatus {
	p.mu.RLock()
	defer p.mu.RUnlock()
	out := make([]HandlerStatus, 0, len(p.listeners))
	for _, e := range p.listeners {
		l := e.listener
		out = append(out, HandlerStatus{
			Name:            l.name,
			Backlog:         l.PendingNotifications(),
			Delivered:       l.stats.delivered.Load(),
			SlowestDelivery: time.Duration(l.stats.slowestNanos.Load()),
			HasSynced:       l.HasSynced(),
		})
	}
	return out
}

// indexStatuses lists the indices of indexer with their value counts. A
// store of this package answers under its lock, from the indices it keeps:
// its Indexers map is the caller's, which an AddIndexers may write to
// meanwhile, so ranging over GetIndexers could meet a concurrent write.
func indexStatuses(indexer Indexer) []IndexStatus {
	if listed, ok := indexer.(interface{ indexStatuses() []IndexStatus }); ok {
		return listed.indexStatuses()
	}
	var out []IndexStatus
	for name := range indexer.GetIndexers() {
		out = append(out, IndexStatus{Name: name, Values: len(indexer.ListIndexFuncValues(name))})
	}
	return out
}

// indexStatuses lists the registered indices and how many values each
// holds, under m's read lock.
func (m *threadSafeMap) indexStatuses() []IndexStatus {
	m.lock.RLock()
	defer m.lock.RUnlock()
	out := make([]IndexStatus, 0, len(m.indices.ordered))
	for _, vi := range m.indices.ordered {
		out = append(out, IndexStatus{Name: vi.name, Values: len(vi.byValue)})
	}
	return out
}

// storedCount is how many objects indexer holds: counted directly for
// kcache's own store, from ListKeys for any other.
func storedCount(indexer Indexer) int {
	if counted, ok := indexer.(interface{ count() int }); ok {
		return counted.count()
	}
	return len(indexer.ListKeys())
}
