package cache

import (
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// TimestampedEntry is what an ExpirationCache stores for each object: the
// object and the time it was written, read by the ExpirationPolicy. The
// timestamp comes from the cache's clock; timestamps from another machine
// (such as the API server) are not comparable with it.
type TimestampedEntry struct {
	Obj       interface{}
	Timestamp time.Time
	// key is the storage key of Obj, kept so that expiry never recomputes it.
	key string
}

// ExpirationCache is a Store whose entries expire. Every write stamps the
// object with the current time of the cache's clock and stores it, wrapped in
// a TimestampedEntry, under the key computed from the object. Reads (Get,
// GetByKey, List) ask the ExpirationPolicy about each entry they touch: an
// expired entry is purged there and then and never returned; a live one is
// returned unwrapped. Expiry is lazy: nothing runs in the background.
//
// Invariants: entries holds only *TimestampedEntry values whose key field is
// their storage key; an entry the policy calls expired is never returned,
// it is deleted (without touching the recorded resource version) and
// reported through onExpired, except in a fake store made without a
// channel, which keeps it stored (ListKeys still names it), as client-go's
// does. writeLock serialises every write with every
// expiry check, so no object is written while any entry is being expired;
// entries does its own locking for plain reads (ListKeys, resource version).
// Each read that checks expiry takes that exclusive lock, which makes this
// store slower than a plain one.
type ExpirationCache struct {
	// entries stores a *TimestampedEntry per key.
	entries ThreadSafeStore
	// keyFunc computes the key of an object.
	keyFunc KeyFunc
	// clock stamps entries on insert.
	clock clock.Clock
	// policy decides which entries have expired.
	policy ExpirationPolicy
	// writeLock serialises writes with expiry checks.
	writeLock sync.Mutex
	// onExpired, when set, is told the key of every entry removed because it
	// expired; it is called with writeLock held.
	onExpired func(key string)
	// retainExpired keeps expired entries stored (reads still skip them);
	// set only by NewFakeExpirationStore without a channel.
	retainExpired bool
}

// ExpirationPolicy decides whether a stored entry has expired. It exists so
// that tests can decide expiry without the wall clock.
type ExpirationPolicy interface {
	IsExpired(obj *TimestampedEntry) bool
}

// NewTTLStore returns an ExpirationCache whose entries expire ttl after
// their last write, measured by the real clock.
func NewTTLStore(keyFunc KeyFunc, ttl time.Duration) Store {
	return NewExpirationStore(keyFunc, &TTLPolicy{TTL: ttl, Clock: clock.RealClock{}})
}

// NewExpirationStore returns an ExpirationCache that stamps entries with the
// real clock and expires them as expirationPolicy decides.
func NewExpirationStore(keyFunc KeyFunc, expirationPolicy ExpirationPolicy) Store {
	return newExpirationCache(keyFunc, expirationPolicy, clock.RealClock{}, nil)
}

// newExpirationCache returns an empty cache stamping entries with c and
// reporting expired keys to onExpired (which may be nil).
func newExpirationCache(keyFunc KeyFunc, policy ExpirationPolicy, c clock.Clock, onExpired func(string)) *ExpirationCache {
	return &ExpirationCache{
		entries:   NewThreadSafeStore(Indexers{}, Indices{}),
		keyFunc:   keyFunc,
		clock:     c,
		policy:    policy,
		onExpired: onExpired,
	}
}

// keyOf computes obj's key, wrapping a failure in a KeyError.
func (c *ExpirationCache) keyOf(obj interface{}) (string, error) {
	key, err := c.keyFunc(obj)
	if err != nil {
		return "", KeyError{Obj: obj, Err: err}
	}
	return key, nil
}

// liveObjectLocked returns the object of entry unless it expired, in which
// case the entry is deleted and reported (or, with retainExpired, only
// hidden). c.writeLock must be held.
func (c *ExpirationCache) liveObjectLocked(entry *TimestampedEntry) (interface{}, bool) {
	if !c.policy.IsExpired(entry) {
		return entry.Obj, true
	}
	if c.retainExpired {
		return nil, false
	}
	c.entries.Delete(entry.key)
	if c.onExpired != nil {
		c.onExpired(entry.key)
	}
	return nil, false
}

// lookup returns the unexpired object stored under key.
func (c *ExpirationCache) lookup(key string) (interface{}, bool) {
	c.writeLock.Lock()
	defer c.writeLock.Unlock()
	item, exists := c.entries.Get(key)
	if !exists {
		return nil, false
	}
	return c.liveObjectLocked(item.(*TimestampedEntry))
}

// GetByKey returns the object stored under key. An expired entry is purged
// and reported as absent.
func (c *ExpirationCache) GetByKey(key string) (interface{}, bool, error) {
	obj, exists := c.lookup(key)
	return obj, exists, nil
}

// Get returns the object stored under obj's key, if it has not expired; an
// expired entry is purged. A key error is returned as a KeyError.
func (c *ExpirationCache) Get(obj interface{}) (interface{}, bool, error) {
	key, err := c.keyOf(obj)
	if err != nil {
		return nil, false, err
	}
	item, exists := c.lookup(key)
	return item, exists, nil
}

// List returns every unexpired object, purging each expired entry it meets.
func (c *ExpirationCache) List() []interface{} {
	c.writeLock.Lock()
	defer c.writeLock.Unlock()
	stored := c.entries.List()
	live := make([]interface{}, 0, len(stored))
	for _, item := range stored {
		if obj, ok := c.liveObjectLocked(item.(*TimestampedEntry)); ok {
			live = append(live, obj)
		}
	}
	return live
}

// ListKeys returns the keys of every stored entry. It does not check
// expiry, so it may name entries that a read would purge.
func (c *ExpirationCache) ListKeys() []string {
	return c.entries.ListKeys()
}

// Add stores obj stamped with the current time, replacing whatever was
// stored under its key.
func (c *ExpirationCache) Add(obj interface{}) error {
	key, err := c.keyOf(obj)
	if err != nil {
		return err
	}
	c.writeLock.Lock()
	defer c.writeLock.Unlock()
	c.entries.Add(key, &TimestampedEntry{Obj: obj, Timestamp: c.clock.Now(), key: key})
	return nil
}

// Update is Add: the object is stored again with a fresh timestamp.
func (c *ExpirationCache) Update(obj interface{}) error {
	return c.Add(obj)
}

// Delete removes the entry under obj's key and records obj's resource
// version (also when nothing was stored under that key).
func (c *ExpirationCache) Delete(obj interface{}) error {
	key, err := c.keyOf(obj)
	if err != nil {
		return err
	}
	c.writeLock.Lock()
	defer c.writeLock.Unlock()
	c.entries.DeleteWithObject(key, obj)
	return nil
}

// Replace makes list the whole content of the cache, every object stamped
// with the same current time, and records resourceVersion. On a key error
// it returns that error and changes nothing.
func (c *ExpirationCache) Replace(list []interface{}, resourceVersion string) error {
	now := c.clock.Now()
	items := make(map[string]interface{}, len(list))
	for _, obj := range list {
		key, err := c.keyOf(obj)
		if err != nil {
			return err
		}
		items[key] = &TimestampedEntry{Obj: obj, Timestamp: now, key: key}
	}
	c.writeLock.Lock()
	defer c.writeLock.Unlock()
	c.entries.Replace(items, resourceVersion)
	return nil
}

// Resync does nothing and returns nil.
func (c *ExpirationCache) Resync() error {
	return nil
}

// Bookmark records rv as the last resource version seen.
func (c *ExpirationCache) Bookmark(rv string) {
	c.entries.Bookmark(rv)
}

// LastStoreSyncResourceVersion returns the latest resource version that the
// cache has seen: from Replace, Bookmark or a deleted object. Adds do not
// change it (entries are timestamp wrappers, not objects).
func (c *ExpirationCache) LastStoreSyncResourceVersion() string {
	return c.entries.LastStoreSyncResourceVersion()
}

// TTLPolicy expires entries older than a fixed time to live.
type TTLPolicy struct {
	// TTL is the maximum age of an entry; zero or negative keeps entries forever.
	TTL time.Duration

	// Clock measures the age of entries.
	Clock clock.Clock
}

// IsExpired reports whether obj is older than TTL according to Clock. An
// age of exactly TTL is not expired; a zero Timestamp is very old; a TTL <= 0
// never expires anything.
func (p *TTLPolicy) IsExpired(obj *TimestampedEntry) bool {
	if p.TTL <= 0 {
		return false
	}
	return p.Clock.Since(obj.Timestamp) > p.TTL
}
