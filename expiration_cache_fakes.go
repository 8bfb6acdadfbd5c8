package cache

import (
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/clock"
)

// NewFakeExpirationStore returns an ExpirationCache for tests. Entries are
// stamped with cacheClock, and the key of every entry purged because it
// expired is sent to deletedKeys (a blocking send made while the
// cache is locked). When deletedKeys is nil, expired entries are never
// purged: reads skip them but they stay stored, and ListKeys names them.
// Explicit deletes are not reported.
func NewFakeExpirationStore(keyFunc KeyFunc, deletedKeys chan<- string, expirationPolicy ExpirationPolicy, cacheClock clock.Clock) Store {
	if deletedKeys == nil {
		c := newExpirationCache(keyFunc, expirationPolicy, cacheClock, nil)
		c.retainExpired = true
		return c
	}
	return newExpirationCache(keyFunc, expirationPolicy, cacheClock, func(key string) { deletedKeys <- key })
}

// FakeExpirationPolicy expires every entry except those whose key is in
// NeverExpire.
type FakeExpirationPolicy struct {
	// NeverExpire holds the keys that never expire.
	NeverExpire sets.Set[string]
	// RetrieveKeyFunc computes an entry's key; it receives the *TimestampedEntry.
	RetrieveKeyFunc KeyFunc
}

// IsExpired reports whether obj's key is missing from NeverExpire. The
// key comes from RetrieveKeyFunc; its error is ignored (the key returned
// with it is still used).
func (p *FakeExpirationPolicy) IsExpired(obj *TimestampedEntry) bool {
	if key, _ := p.RetrieveKeyFunc(obj); p.NeverExpire.Has(key) {
		return false
	}
	return true
}
