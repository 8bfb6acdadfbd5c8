package cache

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kcache-go/cache/status"
)

// registerInformer lists s in status.Informers, weakly: the list never
// keeps s alive and drops s once it stopped (see status.Track). It must be
// called once, when s is made.
func registerInformer(s *sharedIndexInformer) {
	status.Track(s, (*sharedIndexInformer).IsStopped, (*sharedIndexInformer).snapshot)
}

// snapshot takes the status of s (its ID is status.Informers' to set). It
// takes s's locks briefly, one at a time, and reads the cache's keys and
// index values, not the objects.
func (s *sharedIndexInformer) snapshot() status.Informer {
	st := status.Informer{
		Name:       s.identifier.Name(),
		Resource:   s.identifier.GroupVersionResource(),
		ObjectType: fmt.Sprintf("%T", s.objectType),
		HasSynced:  s.HasSynced(),
		Objects:    storedCount(s.indexer),
		Handlers:   s.processor.handlerStatuses(),
	}
	st.Indices = indexStatuses(s.indexer)
	slices.SortFunc(st.Indices, func(a, b status.Index) int { return strings.Compare(a.Name, b.Name) })
	s.startedMu.Lock()
	st.Started = s.started
	ctrl, _ := s.controller.(*controller)
	s.startedMu.Unlock()
	if ctrl != nil {
		if r := ctrl.reflector.Load(); r != nil {
			st.Reflector = r.snapshot()
		}
		st.LastSyncResourceVersion = ctrl.LastSyncResourceVersion()
	}
	return st
}

// handlerStatuses describes the registered listeners, under p.mu for reading.
func (p *sharedProcessor) handlerStatuses() []status.Handler {
	p.mu.RLock()
	defer p.mu.RUnlock()
	out := make([]status.Handler, 0, len(p.listeners))
	for _, e := range p.listeners {
		l := e.listener
		out = append(out, status.Handler{
			Name:            l.name,
			Backlog:         l.KcachePendingNotifications(),
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
func indexStatuses(indexer Indexer) []status.Index {
	if listed, ok := indexer.(interface{ indexStatuses() []status.Index }); ok {
		return listed.indexStatuses()
	}
	var out []status.Index
	for name := range indexer.GetIndexers() {
		out = append(out, status.Index{Name: name, Values: len(indexer.ListIndexFuncValues(name))})
	}
	return out
}

// indexStatuses lists the registered indices and how many values each
// holds, under m's read lock.
func (m *threadSafeMap) indexStatuses() []status.Index {
	m.lock.RLock()
	defer m.lock.RUnlock()
	out := make([]status.Index, 0, len(m.indices.ordered))
	for _, vi := range m.indices.ordered {
		out = append(out, status.Index{Name: vi.name, Values: len(vi.byValue)})
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

// snapshot returns the Reflector's status.
func (r *Reflector) snapshot() status.Reflector { return r.metrics.stats.snapshot(r.label) }
