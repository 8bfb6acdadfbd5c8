package cache

import (
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/clock"
)

// FakeExpirationPolicy expires every entry except those whose key is in
// NeverExpire.
type FakeExpirationPolicy struct {
	NeverExpire     sets.Set[string]
	RetrieveKeyFunc KeyFunc
}

// IsExpired reports true for every entry whose key (as
// RetrieveKeyFunc computes it from the *TimestampedEntry; an error is
// ignored) is not in NeverExpire has expired.
func (p *FakeExpirationPolicy) IsExpired(obj *TimestampedEntry) bool {
	key, _ := p.RetrieveKeyFunc(obj)
	return !p.NeverExpire.Has(key)
}

// NewFakeExpirationStore returns an ExpirationCache for tests. Entries are stamped with cacheClock, and the key of every entry purged
// because it expired is sent to deletedKeys (a blocking send made while the
// cache is locked; nothing is sent when deletedKeys is nil). Explicit
// deletes are not reported.
func NewFakeExpirationStore(keyFunc KeyFunc, deletedKeys chan<- string, expirationPolicy ExpirationPolicy, cacheClock clock.Clock) Store {
	var report func(string)
	if deletedKeys != nil {
		report = func(key string) { deletedKeys <- key }
	}
	return newExpirationCache(keyFunc, expirationPolicy, cacheClock, report)
}
