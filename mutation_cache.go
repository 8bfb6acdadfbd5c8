package cache

import (
	"errors"
	"slices"
	"strconv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilcache "k8s.io/apimachinery/pkg/util/cache"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
)

// mutationCacheCapacity is how many recent mutations a MutationCache keeps;
// the least recently used one is dropped beyond that.
const mutationCacheCapacity = 100

// errNoMutationIndexer is ByIndex's error when the cache has no Indexer.
var errNoMutationIndexer = errors.New("no indexer has been provided to the mutation cache")

// MutationCache remembers, for a short while, the objects a controller just
// wrote (Mutation), so that its reads (GetByKey, ByIndex) see its own writes
// before the informer's cache catches up. Deciding which of two versions is
// newer needs an interpretation of resource versions. Implementations are
// safe for concurrent use. Calling OnAddOrUpdate and OnDelete from the
// informer's event handlers makes the cache more accurate. As in client-go
// v0.37, only this package can implement it.
type MutationCache interface {
	// Mutation records an object the caller just wrote.
	Mutation(interface{})
	// GetByKey reads one object, preferring a newer recorded one.
	GetByKey(key string) (interface{}, bool, error)
	// ByIndex reads an index, overlaid with recorded objects.
	ByIndex(indexName, indexKey string) ([]interface{}, error)
	// OnAddOrUpdate tells the cache the informer saw obj added or updated.
	OnAddOrUpdate(obj runtime.Object)
	// OnDelete tells the cache the informer saw obj deleted.
	OnDelete(obj runtime.Object)

	// internal keeps implementations inside this package.
	internal()
}

// mutationCache overlays recently written objects on a backing cache.
//
// recent maps the DeletionHandlingMetaNamespaceKeyFunc key of each recorded
// mutation to the object (or tombstone) written. A recorded runtime.Object
// is returned instead of the backing one only while its resource version is
// strictly greater; as soon as a lookup finds the backing object at least
// as new, the mutation is dropped. mu serialises every compare-then-update
// of recent, so a mutation never replaces a strictly newer one; recent does
// its own locking for plain reads.
type mutationCache struct {
	// logger reports mutations that have no key or no index value.
	logger klog.Logger
	// backing is the authoritative store (normally an informer's).
	backing Store
	// indexer answers ByIndex; nil when none was given.
	indexer Indexer
	// ttl is how long a recorded mutation stays.
	ttl time.Duration
	// includeAdds returns mutations of objects the backing store lacks.
	includeAdds bool
	// versions orders two versions of one object.
	versions ResourceVersionComparator
	// mu serialises compare-then-update sequences on recent.
	mu sync.Mutex
	// recent holds the recorded mutations, by key, with expiry and LRU order.
	recent *utilcache.LRUExpireCache
}

// newMutationCache builds a mutationCache over recent (tests pass one with a
// fake clock).
func newMutationCache(logger klog.Logger, backing Store, indexer Indexer, ttl time.Duration, includeAdds bool, recent *utilcache.LRUExpireCache) *mutationCache {
	return &mutationCache{
		logger:      logger,
		backing:     backing,
		indexer:     indexer,
		ttl:         ttl,
		includeAdds: includeAdds,
		versions:    integerResourceVersions{},
		recent:      recent,
	}
}

// GetByKey returns the backing object stored under key, or the recorded
// mutation when it is strictly newer. With includeAdds, a key the backing
// store lacks yields the recorded mutation; a recorded object (not a
// tombstone) is then returned once and dropped, since nothing backs it. A
// backing error is returned as (nil, false, err).
func (c *mutationCache) GetByKey(key string) (interface{}, bool, error) {
	obj, exists, err := c.backing.GetByKey(key)
	if err != nil {
		return nil, false, err
	}
	if !exists {
		if !c.includeAdds {
			return nil, false, nil
		}
		if obj, exists = c.recent.Get(key); !exists || isMutationTombstone(obj) {
			return nil, false, nil
		}
	}
	current, ok := obj.(runtime.Object)
	if !ok {
		return obj, true, nil
	}
	return c.newest(key, current), true, nil
}

// ByIndex returns the objects of the indexer's indexName index that have
// indexKey, each replaced by its recorded mutation when that is strictly
// newer. With includeAdds, it then appends, least recently used first, the
// recorded mutations under other keys that the index function maps to
// indexKey (an index function error skips the mutation and is logged at
// V(4)); those are read
// first, so the indexed keys' mutations become the most recently used. It fails when the
// cache has no indexer or the index does not exist.
func (c *mutationCache) ByIndex(indexName, indexKey string) ([]interface{}, error) {
	if c.indexer == nil {
		return nil, errNoMutationIndexer
	}
	keys, err := c.indexer.IndexKeys(indexName, indexKey)
	if err != nil {
		return nil, err
	}
	// NB: the recorded mutations are read (which refreshes their place in
	// the LRU order) before the indexed keys, as client-go does, so that
	// the indexed keys' mutations end up the most recently used.
	var adds []interface{}
	if c.includeAdds {
		adds = c.appendIndexedMutations(nil, sets.New(keys...), indexName, indexKey)
	}
	var items []interface{}
	for _, key := range keys {
		obj, exists, err := c.indexer.GetByKey(key)
		if err != nil {
			return nil, err
		}
		if !exists {
			continue
		}
		if current, ok := obj.(runtime.Object); ok {
			obj = c.newest(key, current)
		}
		items = append(items, obj)
	}
	return append(items, adds...), nil
}

// appendIndexedMutations appends the recorded mutations whose key is not in
// skip and whose indexName values include indexKey.
func (c *mutationCache) appendIndexedMutations(items []interface{}, skip sets.Set[string], indexName, indexKey string) []interface{} {
	indexFunc := indexFuncNamed(c.indexer, indexName)
	if indexFunc == nil {
		return items
	}
	for _, k := range c.recent.Keys() {
		key := k.(string)
		if skip.Has(key) {
			continue
		}
		obj, ok := c.recent.Get(key)
		if !ok || isMutationTombstone(obj) {
			continue
		}
		values, err := indexFunc(obj)
		if err != nil {
			c.logger.V(4).Info("Unable to calculate an index entry for mutation cache entry", "key", key, "err", err)
			continue
		}
		if !slices.Contains(values, indexKey) {
			continue
		}
		items = append(items, obj)
	}
	return items
}

// indexFuncNamed returns the function indexer's Indexers map has under
// name, as GetIndexers()[name] does; for a store of this package it looks
// it up under the store's lock, since the map is the caller's and an
// AddIndexers may be writing to it meanwhile.
func indexFuncNamed(indexer Indexer, name string) IndexFunc {
	if locked, ok := indexer.(interface{ indexFuncNamed(string) IndexFunc }); ok {
		return locked.indexFuncNamed(name)
	}
	return indexer.GetIndexers()[name]
}

// newest returns the recorded mutation under key when it is an object
// strictly newer than current, else current; a recorded object that is not
// newer is dropped. A recorded tombstone is kept and never returned here.
// It panics when a resource version is not an integer.
func (c *mutationCache) newest(key string, current runtime.Object) runtime.Object {
	c.mu.Lock()
	defer c.mu.Unlock()
	mutated, ok := c.recordedObjectLocked(key)
	switch {
	case !ok:
		return current
	case c.versions.CompareResourceVersion(current, mutated) < 0:
		return mutated
	}
	c.recent.Remove(key)
	return current
}

// recordedObjectLocked returns the live mutation recorded under key when it
// is a runtime.Object (not a tombstone). c.mu must be held.
func (c *mutationCache) recordedObjectLocked(key string) (runtime.Object, bool) {
	recorded, found := c.recent.Get(key)
	if !found {
		return nil, false
	}
	obj, isObject := recorded.(runtime.Object)
	return obj, isObject
}

// Mutation records obj, the result of a write, for ttl. It keeps an already
// recorded object with a strictly greater resource version instead, and a
// deletion recorded by OnDelete whatever the versions. An object without a
// key is reported through the logger and ignored. It panics when a compared
// resource version is not an integer.
func (c *mutationCache) Mutation(obj interface{}) {
	key, err := DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		utilruntime.HandleErrorWithLogger(c.logger, err, "DeletionHandlingMetaNamespaceKeyFunc")
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.recordedIsNewerLocked(key, obj) {
		return
	}
	c.recent.Add(key, obj, c.ttl)
}

// recordedIsNewerLocked reports whether the mutation recorded under key is
// to be kept over obj: an object strictly newer than obj, or a deletion
// recorded by OnDelete, which only an object of another UID with a strictly
// greater resource version replaces (a new object under the same name), as
// in client-go v0.37.2. It panics when either resource version is not an
// integer; obj's is parsed first, so its error is the one reported when
// both fail, as in client-go. c.mu must be held.
func (c *mutationCache) recordedIsNewerLocked(key string, obj interface{}) bool {
	incoming, isObject := obj.(runtime.Object)
	if !isObject {
		return false
	}
	existing, ok := c.recordedObjectLocked(key)
	if !ok {
		return false
	}
	order := c.versions.CompareResourceVersion(incoming, existing)
	if isMutationTombstone(existing) {
		return order <= 0 || sameUID(incoming, existing)
	}
	return order < 0
}

// sameUID reports whether a and b, objects with metadata, have one UID.
func sameUID(a, b runtime.Object) bool {
	am, aErr := meta.Accessor(a)
	bm, bErr := meta.Accessor(b)
	return aErr == nil && bErr == nil && am.GetUID() == bm.GetUID()
}

// ResourceVersionComparator orders two versions of the same object:
// negative when lhs is older than rhs, zero when equal, positive when newer.
type ResourceVersionComparator interface {
	CompareResourceVersion(lhs, rhs runtime.Object) int
}

// integerResourceVersions compares resource versions as unsigned decimal
// integers, the empty version counting as 0.
type integerResourceVersions struct{}

// CompareResourceVersion returns -1, 0 or 1 as lhs's resource version is
// lower than, equal to or greater than rhs's. It panics with the parse error
// (a *strconv.NumError) when a version is not an unsigned integer, and with
// the accessor error for an object without metadata.
func (integerResourceVersions) CompareResourceVersion(lhs, rhs runtime.Object) int {
	l, r := mustIntegerResourceVersion(lhs), mustIntegerResourceVersion(rhs)
	switch {
	case l < r:
		return -1
	case l > r:
		return 1
	}
	return 0
}

// mustIntegerResourceVersion parses obj's resource version.
func mustIntegerResourceVersion(obj runtime.Object) uint64 {
	accessor, err := meta.Accessor(obj)
	if err != nil {
		panic(err)
	}
	rv := accessor.GetResourceVersion()
	if rv == "" {
		return 0
	}
	v, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		panic(err)
	}
	return v
}

// mutationTombstone is what OnDelete records: the identity and resource
// version of a deleted object.
type mutationTombstone struct {
	metav1.ObjectMeta
}

// GetObjectKind returns an empty kind: a deletion record has none.
func (t *mutationTombstone) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// DeepCopyObject returns a copy.
func (t *mutationTombstone) DeepCopyObject() runtime.Object {
	return &mutationTombstone{ObjectMeta: *t.ObjectMeta.DeepCopy()}
}

// isMutationTombstone reports whether a recorded mutation is a deletion
// recorded by OnDelete.
func isMutationTombstone(recorded interface{}) bool {
	_, ok := recorded.(*mutationTombstone)
	return ok
}
