package clientgo

import (
	"context"
	"fmt"
	"sync"

	clientgocache "k8s.io/client-go/tools/cache"
)

// informerSet is the Start / WaitForCacheSync / Shutdown bookkeeping the
// factories share: informers by key (object type or resource), which of
// them were started, and the goroutines running them.
//
// mu guards informers, launched and stopping; wg counts running
// informers.
type informerSet[K comparable] struct {
	mu        sync.Mutex
	informers map[K]clientgocache.SharedIndexInformer
	launched  map[K]bool
	stopping  bool
	wg        sync.WaitGroup
}

// getOrAdd returns the informer of key, building it with build (under mu,
// so at most once per key) when there is none.
func (s *informerSet[K]) getOrAdd(key K, build func() clientgocache.SharedIndexInformer) clientgocache.SharedIndexInformer {
	s.mu.Lock()
	defer s.mu.Unlock()
	if inf, ok := s.informers[key]; ok {
		return inf
	}
	if s.informers == nil {
		s.informers = map[K]clientgocache.SharedIndexInformer{}
		s.launched = map[K]bool{}
	}
	inf := build()
	s.informers[key] = inf
	return inf
}

// start runs every informer not yet started, each in its own goroutine,
// with run; after Shutdown it does nothing.
func (s *informerSet[K]) start(run func(clientgocache.SharedIndexInformer)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		return
	}
	for key, inf := range s.informers {
		if s.launched[key] {
			continue
		}
		s.launched[key] = true
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			run(inf)
		}()
	}
}

// launchedInformers returns the started informers by key.
func (s *informerSet[K]) launchedInformers() map[K]clientgocache.SharedIndexInformer {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[K]clientgocache.SharedIndexInformer, len(s.launched))
	for key := range s.launched {
		out[key] = s.informers[key]
	}
	return out
}

// waitForCacheSync waits, polling as client-go's WaitForCacheSync does,
// until every started informer synced or stopCh closed, and tells which
// synced.
func (s *informerSet[K]) waitForCacheSync(stopCh <-chan struct{}) map[K]bool {
	out := map[K]bool{}
	for key, inf := range s.launchedInformers() {
		out[key] = clientgocache.WaitForCacheSync(stopCh, inf.HasSynced)
	}
	return out
}

// waitForCacheSyncWithContext waits without polling until every started
// informer synced or ctx is done; Err is ctx's cause when not all synced.
func (s *informerSet[K]) waitForCacheSyncWithContext(ctx context.Context) (map[K]bool, error) {
	started := s.launchedInformers()
	checkers := make([]clientgocache.DoneChecker, 0, len(started))
	for _, inf := range started {
		checkers = append(checkers, inf.HasSyncedChecker())
	}
	allSynced := clientgocache.WaitFor(ctx, "caches to sync", checkers...)
	out := make(map[K]bool, len(started))
	for key, inf := range started {
		out[key] = inf.HasSynced()
	}
	if allSynced {
		return out, nil
	}
	if cause := context.Cause(ctx); cause != nil {
		return out, cause
	}
	return out, fmt.Errorf("caches did not sync: %d informers", len(started))
}

// shutdown stops later starts and waits until every started informer
// returned (their stop channel or context must be done by then).
func (s *informerSet[K]) shutdown() {
	s.mu.Lock()
	s.stopping = true
	s.mu.Unlock()
	s.wg.Wait()
}
