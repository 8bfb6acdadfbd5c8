package cache

import (
	"runtime"
	"sort"
	"sync"
	"weak"
)

// liveInformers is the process-wide registry of shared informers, read by
// InformerStatuses. It holds weak pointers only, so it never keeps an
// informer alive: an entry is removed when its informer is garbage
// collected (a cleanup registered with runtime.AddCleanup), or when a
// listing finds the informer stopped.
//
// mu guards next and byID.
var liveInformers = struct {
	mu sync.Mutex
	// next is the number the next registered informer gets.
	next uint64
	// byID maps each registered informer's number to it.
	byID map[uint64]weak.Pointer[sharedIndexInformer]
}{byID: map[uint64]weak.Pointer[sharedIndexInformer]{}}

// registerInformer adds s to the registry and numbers it (s.registryID).
// It must be called once, before s is shared.
func registerInformer(s *sharedIndexInformer) {
	liveInformers.mu.Lock()
	liveInformers.next++
	id := liveInformers.next
	s.registryID = id // NB: before s is listed; listings read it under mu
	liveInformers.byID[id] = weak.Make(s)
	liveInformers.mu.Unlock()
	runtime.AddCleanup(s, forgetInformer, id)
}

// forgetInformer removes the entry numbered id.
func forgetInformer(id uint64) {
	liveInformers.mu.Lock()
	defer liveInformers.mu.Unlock()
	delete(liveInformers.byID, id)
}

// registeredInformers returns the registered informers that are still
// reachable and not stopped, in registration order; stopped ones are
// dropped from the registry.
func registeredInformers() []*sharedIndexInformer {
	liveInformers.mu.Lock()
	defer liveInformers.mu.Unlock()
	out := make([]*sharedIndexInformer, 0, len(liveInformers.byID))
	for id, wp := range liveInformers.byID {
		s := wp.Value()
		if s == nil {
			continue // collected; its cleanup removes the entry
		}
		if s.IsStopped() {
			delete(liveInformers.byID, id)
			continue
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].registryID < out[j].registryID })
	return out
}
