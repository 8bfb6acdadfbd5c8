package cache

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilcache "k8s.io/apimachinery/pkg/util/cache"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
)

// defaultMutationTTL is how long a mutation is kept when the options say 0.
const defaultMutationTTL = 5 * time.Minute

// MutationCacheOptions are the settings of
// NewIntegerResourceVersionMutationCacheWithOptions; the zero value is valid.
type MutationCacheOptions struct {
	// Indexer answers ByIndex; nil makes ByIndex fail.
	Indexer Indexer

	// TTL is how long a recorded mutation is kept; zero means 5 minutes, a
	// negative TTL expires it at once.
	TTL time.Duration

	// IncludeAdds returns recorded objects the backing store does not hold
	// (yet). Only safe if the caller copes with such an entry staying for
	// up to TTL after a quick delete.
	IncludeAdds bool

	// MaxCacheSize is how many mutations are kept at most, the least
	// recently used dropped first; zero means 100. A negative size panics.
	MaxCacheSize int
}

// NewIntegerResourceVersionMutationCache returns a MutationCache that
// understands how to deal with objects whose resource version is an
// unsigned integer that grows with every update and is comparable between
// objects of one resource in a namespace, as with most backends.
//
// It is NewIntegerResourceVersionMutationCacheWithOptions with at most 100
// recorded mutations; as there, a zero ttl means 5 minutes (client-go
// v0.37; before, a zero ttl expired every mutation at once).
func NewIntegerResourceVersionMutationCache(logger klog.Logger, backingCache Store, indexer Indexer, ttl time.Duration, includeAdds bool) MutationCache {
	return NewIntegerResourceVersionMutationCacheWithOptions(logger, backingCache, MutationCacheOptions{
		Indexer:      indexer,
		TTL:          ttl,
		IncludeAdds:  includeAdds,
		MaxCacheSize: mutationCacheCapacity,
	})
}

// NewIntegerResourceVersionMutationCacheWithOptions returns a MutationCache
// over backingCache for objects whose resource version is an unsigned
// integer that grows with every update and is comparable between objects
// of one resource in a namespace, as with most backends.
//
// Calling OnAddOrUpdate and OnDelete from the informer's event handlers
// drops a recorded object as soon as the informer has caught up with it,
// and keeps a deleted object from reappearing while the backing store
// still holds an older copy. Objects the caller added and deleted again
// before the informer saw them are not covered: with IncludeAdds such an
// entry stays until TTL, so check that it still exists after that.
func NewIntegerResourceVersionMutationCacheWithOptions(logger klog.Logger, backingCache Store, options MutationCacheOptions) MutationCache {
	ttl := options.TTL
	if ttl == 0 {
		ttl = defaultMutationTTL
	}
	size := options.MaxCacheSize
	if size == 0 {
		size = mutationCacheCapacity
	}
	return newMutationCache(logger, backingCache, options.Indexer, ttl, options.IncludeAdds, utilcache.NewLRUExpireCache(size))
}

// internal marks mutationCache as this package's MutationCache.
func (c *mutationCache) internal() {}

// OnAddOrUpdate drops the mutation recorded under obj's key (an object or
// a deletion, not a DeletedFinalStateUnknown) when obj's resource version
// is at least as new; the lookup counts as a use for the LRU order. An
// object without a key is reported through the logger and ignored. It
// panics when a compared resource version is not an integer.
func (c *mutationCache) OnAddOrUpdate(obj runtime.Object) {
	key, err := DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		utilruntime.HandleErrorWithLogger(c.logger, err, "DeletionHandlingMetaNamespaceKeyFunc")
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	recorded, ok := c.recordedObjectLocked(key)
	if ok && c.versions.CompareResourceVersion(obj, recorded) >= 0 {
		c.recent.Remove(key)
	}
}

// OnDelete records, for the TTL, that obj was deleted, replacing what was
// recorded under its key, except a recorded object or deletion of another
// UID with a strictly greater resource version (obj is then an older
// object of that name, gone before the recorded one was written), as in
// client-go v0.37.2; comparing panics when a resource version is not an
// integer, obj's parsed first. While the backing store still holds an
// older version, GetByKey and ByIndex return the deletion record (a
// runtime.Object with obj's namespace, name, resource version and UID)
// instead; Mutation replaces it only with an object of another UID and a
// greater resource version; an OnAddOrUpdate at least as new drops it. An
// object without metadata is ignored.
func (c *mutationCache) OnDelete(obj runtime.Object) {
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	deleted := &mutationTombstone{ObjectMeta: metav1.ObjectMeta{
		Namespace:       accessor.GetNamespace(),
		Name:            accessor.GetName(),
		ResourceVersion: accessor.GetResourceVersion(),
		UID:             accessor.GetUID(),
	}}
	key := deleted.Name
	if deleted.Namespace != "" {
		key = deleted.Namespace + "/" + key
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.recordedOutlivesDeletionLocked(key, obj) {
		return
	}
	c.recent.Add(key, deleted, c.ttl)
}

// recordedOutlivesDeletionLocked reports whether the object or deletion
// recorded under key is of another UID than deleted and has a strictly
// greater resource version, so that OnDelete keeps it. The lookup counts as
// a use for the LRU order. c.mu must be held.
func (c *mutationCache) recordedOutlivesDeletionLocked(key string, deleted runtime.Object) bool {
	existing, ok := c.recordedObjectLocked(key)
	if !ok {
		return false
	}
	return c.versions.CompareResourceVersion(deleted, existing) < 0 && !sameUID(deleted, existing)
}
