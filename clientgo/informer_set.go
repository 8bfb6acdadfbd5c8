package clientgo

import (
	"context"
	"fmt"
	"sync"

	clientgocache "k8s.io/client-go/tools/cache"
)

// informerSet is the Start / WaitForCacheSync / Shutdown bookkeeping the
// factories share. Each informer requested is a member, found by its key
// (object type or resource); a member carries the channel its goroutine
// closes on return, which is also how the set tells started members from
// the others.
//
// mu guards members and closed; a member's exited is written under mu once
// (nil to a channel) and closed only by the member's goroutine.
type informerSet[K comparable] struct {
	mu      sync.Mutex
	members map[K]*setMember
	closed  bool
}

// setMember is one informer of a set.
type setMember struct {
	informer clientgocache.SharedIndexInformer
	// exited is nil until the member is started, then closed once its run
	// returned.
	exited chan struct{}
}

// getOrAdd returns the informer of key, building it with build (under mu,
// so at most once per key) when there is none.
func (s *informerSet[K]) getOrAdd(key K, build func() clientgocache.SharedIndexInformer) clientgocache.SharedIndexInformer {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.members[key]; ok {
		return m.informer
	}
	if s.members == nil {
		s.members = map[K]*setMember{}
	}
	m := &setMember{informer: build()}
	s.members[key] = m
	return m.informer
}

// start launches run(informer) in a goroutine of its own for every member
// not started yet; once shutdown was called it launches nothing. The
// goroutines start after mu is released.
func (s *informerSet[K]) start(run func(clientgocache.SharedIndexInformer)) {
	var fresh []*setMember
	s.mu.Lock()
	if !s.closed {
		for _, m := range s.members {
			if m.exited == nil {
				m.exited = make(chan struct{})
				fresh = append(fresh, m)
			}
		}
	}
	s.mu.Unlock()
	for _, m := range fresh {
		go func() {
			defer close(m.exited)
			run(m.informer)
		}()
	}
}

// startedMembers returns a snapshot of the started members by key.
func (s *informerSet[K]) startedMembers() map[K]*setMember {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[K]*setMember, len(s.members))
	for key, m := range s.members {
		if m.exited != nil {
			out[key] = m
		}
	}
	return out
}

// waitForCacheSync tells, per started member, whether it synced before
// stopCh closed (cache.WaitForCacheSync on each in turn).
func (s *informerSet[K]) waitForCacheSync(stopCh <-chan struct{}) map[K]bool {
	started := s.startedMembers()
	out := make(map[K]bool, len(started))
	for key, m := range started {
		out[key] = clientgocache.WaitForCacheSync(stopCh, m.informer.HasSynced)
	}
	return out
}

// waitForCacheSyncWithContext waits without polling until every started
// member synced or ctx is done; the error is ctx's cause when not all
// synced. It logs nothing, as client-go's factories.
func (s *informerSet[K]) waitForCacheSyncWithContext(ctx context.Context) (map[K]bool, error) {
	started := s.startedMembers()
	allSynced := true
	for _, m := range started {
		if !waitDone(ctx, m.informer.HasSyncedChecker()) {
			allSynced = false
			break
		}
	}
	out := make(map[K]bool, len(started))
	for key, m := range started {
		out[key] = m.informer.HasSynced()
	}
	if allSynced {
		return out, nil
	}
	if cause := context.Cause(ctx); cause != nil {
		return out, cause
	}
	return out, fmt.Errorf("caches did not sync: %d informers", len(started))
}

// waitDone blocks until c is done (true) or ctx is (false, unless c is
// done too). It logs nothing, unlike cache.WaitFor.
func waitDone(ctx context.Context, c clientgocache.DoneChecker) bool {
	select {
	case <-c.Done():
		return true
	case <-ctx.Done():
		select {
		case <-c.Done():
			return true
		default:
			return false
		}
	}
}

// shutdown makes later starts no-ops, then blocks until the goroutine of
// every started member returned (their stop channel or context must be done
// by then, or it blocks for good).
func (s *informerSet[K]) shutdown() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	for _, m := range s.startedMembers() {
		<-m.exited
	}
}
