package cache

import "hash/maphash"

// recordKey is a record's storage key as two string headers, so that a key
// computed from an object's metadata needs no allocation of its own: the
// key is rest when prefix is "", and prefix + "/" + rest otherwise.
//
// A key the store computed itself (see namedMeta) is (namespace, name), both
// headers taken from the object's own metadata strings; a cluster-scoped
// object's key is ("", name). Any other key k (given to a ThreadSafeStore,
// an ExplicitKey, a tombstone's key, one made by another KeyFunc) is
// ("", k). Two recordKeys name the same key exactly when their renderings
// are equal, whatever their split, so no flag tells the forms apart, and a
// record's key may be re-pointed to another split of the same key.
//
// NB: the headers never follow a later change of the object's metadata in
// place: strings are immutable, and the record keeps the headers it was
// given.
type recordKey struct {
	prefix, rest string
}

// plainKey is the recordKey of a key given as one string.
func plainKey(key string) recordKey { return recordKey{rest: key} }

// namedKey is the recordKey of the key MetaNamespaceKeyFunc gives an object
// with namespace and name, without building that string.
func namedKey(namespace, name string) recordKey {
	return recordKey{prefix: namespace, rest: name}
}

// len returns the length of k's rendering.
func (k recordKey) len() int {
	if k.prefix == "" {
		return len(k.rest)
	}
	return len(k.prefix) + 1 + len(k.rest)
}

// String renders k: rest itself when prefix is "" (no allocation), a new
// string otherwise.
func (k recordKey) String() string {
	if k.prefix == "" {
		return k.rest
	}
	return k.prefix + "/" + k.rest
}

// appendTo appends k's rendering to dst.
func (k recordKey) appendTo(dst []byte) []byte {
	if k.prefix == "" {
		return append(dst, k.rest...)
	}
	return append(append(append(dst, k.prefix...), '/'), k.rest...)
}

// equal reports whether k and o render the same key. It never allocates.
func (k recordKey) equal(o recordKey) bool {
	if len(k.prefix) == len(o.prefix) {
		return k.prefix == o.prefix && k.rest == o.rest
	}
	if k.len() != o.len() {
		return false
	}
	if o.prefix == "" {
		return k.hasAt(0, o.rest)
	}
	return k.hasAt(0, o.prefix) && k.hasAt(len(o.prefix), "/") && k.hasAt(len(o.prefix)+1, o.rest)
}

// hasAt reports whether s occurs in k's rendering at byte offset off; the
// caller ensures off+len(s) is at most k.len().
func (k recordKey) hasAt(off int, s string) bool {
	if k.prefix == "" {
		return k.rest[off:off+len(s)] == s
	}
	lp := len(k.prefix)
	for len(s) > 0 {
		switch {
		case off < lp:
			n := min(len(s), lp-off)
			if k.prefix[off:off+n] != s[:n] {
				return false
			}
			off, s = off+n, s[n:]
		case off == lp:
			if s[0] != '/' {
				return false
			}
			off, s = off+1, s[1:]
		default:
			i := off - lp - 1
			return k.rest[i:i+len(s)] == s
		}
	}
	return true
}

// hash returns the hash of k's rendering under seed: the same value as
// maphash.String(seed, k.String()), since maphash's result depends only on
// the bytes written, not on how they were split.
func (k recordKey) hash(seed maphash.Seed) uint64 {
	if k.prefix == "" {
		return maphash.String(seed, k.rest)
	}
	var h maphash.Hash
	h.SetSeed(seed)
	h.WriteString(k.prefix)
	h.WriteByte('/')
	h.WriteString(k.rest)
	return h.Sum64()
}
