package records

import (
	"hash/maphash"
	"math/bits"
	"strings"
)

// Key is a record's storage key as two string headers, so that a key
// computed from an object's metadata needs no allocation of its own: the
// key is rest when prefix is "", and prefix + "/" + rest otherwise.
//
// A key the store computed itself (see Named) is (namespace, name), both
// headers taken from the object's own metadata strings; a cluster-scoped
// object's key is ("", name). Any other key k (given to a ThreadSafeStore,
// an ExplicitKey, a tombstone's key, one made by another KeyFunc) is
// ("", k). Two Keys name the same key exactly when their renderings
// are equal, whatever their split, so no flag tells the forms apart, and a
// record's key may be re-pointed to another split of the same key.
//
// NB: the headers never follow a later change of the object's metadata in
// place: strings are immutable, and the record keeps the headers it was
// given.
type Key struct {
	prefix, rest string
}

// Plain is the Key of a key given as one string.
func Plain(key string) Key { return Key{rest: key} }

// Named is the Key of the key MetaNamespaceKeyFunc gives an object
// with namespace and name, without building that string.
func Named(namespace, name string) Key {
	return Key{prefix: namespace, rest: name}
}

// In returns the value m holds under k's rendering, and whether it holds
// one (-1 and false when not). It allocates nothing for a whole key, or a
// split one short enough to render in a stack buffer, and renders nothing
// when m is empty.
func (k Key) In(m map[string]int32) (int32, bool) {
	if len(m) == 0 {
		return -1, false
	}
	if k.prefix == "" {
		v, ok := m[k.rest]
		return v, ok
	}
	var buf [128]byte
	v, ok := m[string(k.AppendTo(buf[:0]))]
	return v, ok
}

// Splits returns every Key that renders as rendering: the plain one, and
// one split at each '/' but a leading one (a Key with an empty prefix is
// the plain one). It is for tests, which check that all of them hash and
// compare alike.
func Splits(rendering string) []Key {
	forms := []Key{Plain(rendering)}
	for i := 1; i < len(rendering); i++ {
		if rendering[i] == '/' {
			forms = append(forms, Named(rendering[:i], rendering[i+1:]))
		}
	}
	return forms
}

// Len returns the length of k's rendering.
func (k Key) Len() int {
	if k.prefix == "" {
		return len(k.rest)
	}
	return len(k.prefix) + 1 + len(k.rest)
}

// String renders k: rest itself when prefix is "" (no allocation), a new
// string otherwise.
func (k Key) String() string {
	if k.prefix == "" {
		return k.rest
	}
	return k.prefix + "/" + k.rest
}

// AppendTo appends k's rendering to dst.
func (k Key) AppendTo(dst []byte) []byte {
	if k.prefix == "" {
		return append(dst, k.rest...)
	}
	return append(append(append(dst, k.prefix...), '/'), k.rest...)
}

// Equal reports whether k and o render the same key. It never allocates.
func (k Key) Equal(o Key) bool {
	if len(k.prefix) == len(o.prefix) {
		return k.prefix == o.prefix && k.rest == o.rest
	}
	if k.Len() != o.Len() {
		return false
	}
	if o.prefix == "" {
		return k.hasAt(0, o.rest)
	}
	return k.hasAt(0, o.prefix) && k.hasAt(len(o.prefix), "/") && k.hasAt(len(o.prefix)+1, o.rest)
}

// hasAt reports whether s occurs in k's rendering at byte offset off; the
// caller ensures off+len(s) is at most k.Len().
func (k Key) hasAt(off int, s string) bool {
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

// Hash returns a hash of k's rendering under seed, which depends only on
// the rendering, however it is split: the rendering is cut at its first
// '/', and the two sides are hashed apart and mixed (a rendering without '/'
// is hashed whole). A split key whose prefix holds no '/', the usual
// namespace/name, is thus hashed from its two headers, with neither a
// rendering nor a streaming hash.
func (k Key) Hash(seed maphash.Seed) uint64 {
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
