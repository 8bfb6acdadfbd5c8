package cache

import (
	"hash/maphash"
	"math/bits"
	"strings"
)

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

// hash returns a hash of k's rendering under seed, which depends only on
// the rendering, however it is split: the rendering is cut at its first
// '/', and the two sides are hashed apart and mixed (a rendering without '/'
// is hashed whole). A split key whose prefix holds no '/', the usual
// namespace/name, is thus hashed from its two headers, with neither a
// rendering nor a streaming hash.
func (k recordKey) hash(seed maphash.Seed) uint64 {
	if k.prefix == "" {
		if i := strings.IndexByte(k.rest, '/'); i >= 0 {
			return mixKeyHalves(maphash.String(seed, k.rest[:i]), maphash.String(seed, k.rest[i+1:]))
		}
		return maphash.String(seed, k.rest)
	}
	i := strings.IndexByte(k.prefix, '/')
	if i < 0 {
		return mixKeyHalves(maphash.String(seed, k.prefix), maphash.String(seed, k.rest))
	}
	// NB: the rendering's first '/' is inside prefix, so its second half
	// spans both headers: maphash gives the same hash for the same bytes,
	// however they were written.
	var h maphash.Hash
	h.SetSeed(seed)
	h.WriteString(k.prefix[i+1:])
	h.WriteByte('/')
	h.WriteString(k.rest)
	return mixKeyHalves(maphash.String(seed, k.prefix[:i]), h.Sum64())
}

// mixKeyHalves combines the hashes of the two sides of a key's first '/'.
// It is not symmetric, so a/b and b/a differ.
func mixKeyHalves(first, second uint64) uint64 {
	return (first ^ bits.RotateLeft64(second, 31)) * 0x9e3779b97f4a7c15
}
