package cache

import "weak"

// weakEntry is one canonical value of the interning and sharing tables:
// its backing object, held weakly, and its length (a string's bytes, a
// slice's elements; 0 for other values).
type weakEntry struct {
	obj weak.Pointer[byte]
	n   int
}

// weakEntries are the canonical values of one table by content hash;
// several per hash only when unequal values collide. Not safe for
// concurrent use: the table's mutex guards it.
type weakEntries map[uint64][]weakEntry

// forget removes the entry whose object is obj from the values of hash,
// and the hash once it has none: what a table's cleanup does once obj was
// collected.
func (es weakEntries) forget(hash uint64, obj weak.Pointer[byte]) {
	list := es[hash]
	for i, e := range list {
		if e.obj == obj {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(es, hash)
	} else {
		es[hash] = list
	}
}
