package transform

import (
	"reflect"
	"sync"
	"unsafe"
	"weak"
)

// canonTable holds the canonical copies of one Go type's values, each
// through a weak pointer to its backing object (a pointer's target, a
// slice's first element, a map's runtime header) in a weakTable that
// tracks addresses, so that a value no object references any more is
// collected and the table's storage for it given back (weakSweeps). Safe
// for concurrent use.
type canonTable struct {
	// mu serialises the writers of values and guards registered; lookups
	// take no lock (weakTable).
	mu sync.Mutex
	// values are the canonical values by contentHash, and by address for
	// the fast path of a part that is canonical already.
	values weakTable
	// registered says whether weakSweeps knows the table.
	registered bool
	// stats decide whether a new value gets an entry at once
	// (share_probation.go).
	stats shareStats
}

// isCanonical reports whether the value whose object is id, of length n,
// is a canonical value of t already.
func (t *canonTable) isCanonical(id unsafe.Pointer, n int) bool {
	n32, ok := weakLen(n)
	if !ok {
		return false
	}
	return t.values.holds(id, n32)
}

// canonical returns the object of the canonical value equal to the value
// whose object is id (length n, content hash h) of the pod owner
// (podOwner): id itself when that value is canonical already, the
// canonical object when equal reports a canonical value (given its
// object) equal to it, id when the pod keeps the value its own (a table in
// probation that saw no other pod with it: shareStats), or else the
// object clone returns, registered as the new canonical value. clone copies the
// value into an object of its own, so that every canonical object is a
// heap allocation of this table (never static data, which weak pointers do
// not accept); it is called with the table locked. equal is called
// without the lock first, and once more under it when no canonical value
// matched. The table never writes to a value. A value longer than a slot can say (weakLen) is
// returned as it is.
func (t *canonTable) canonical(h uint64, id unsafe.Pointer, n int, owner uint32, equal func(unsafe.Pointer) bool, clone func() unsafe.Pointer) unsafe.Pointer {
	n32, ok := weakLen(n)
	if !ok {
		return id
	}
	h32 := weakHash(h)
	match := func(obj unsafe.Pointer) bool { return obj == id || equal(obj) }
	if obj := t.values.find(h32, n32, match); obj != nil {
		t.noteFound(obj, id)
		return obj
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if obj := t.values.find(h32, n32, match); obj != nil {
		t.noteFound(obj, id)
		return obj
	}
	if t.stats.keepOwnLocked(h32, owner) {
		return id
	}
	c := clone()
	t.values.trackAddrs = true
	t.values.insert(h32, n32, weak.Make((*byte)(c)), c)
	noteWeakInsert(t, &t.registered)
	return c
}

// noteFound counts obj, the canonical value found for the value whose
// object is id, as a reuse unless it is that object.
func (t *canonTable) noteFound(obj, id unsafe.Pointer) {
	if obj != id {
		t.stats.noteReuse()
	}
}

// sweep drops the entries of collected values (see weakSweeps).
func (t *canonTable) sweep() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.values.sweep()
}

// size is the number of canonical values alive (for tests).
func (t *canonTable) size() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.values.size()
}

// sharedPointers canonicalises non-nil pointers to T by the value they
// point to.
type sharedPointers[T any] struct{ table canonTable }

// share replaces *p, of the pod owner, by the canonical pointer to a value
// equal to **p, writing *p only when it is not that pointer already (and
// not at all when the pod keeps it: canonical). nil stays nil.
func (s *sharedPointers[T]) share(p **T, owner uint32) {
	v := *p
	if v == nil || s.table.isCanonical(unsafe.Pointer(v), 0) {
		return
	}
	rv := reflect.ValueOf(v).Elem()
	if pinsQuantity(rv) {
		internPartStrings(rv)
		return
	}
	h, ok := contentHash(rv)
	if !ok {
		return
	}
	c := (*T)(s.table.canonical(h, unsafe.Pointer(v), 0, owner,
		func(c unsafe.Pointer) bool { return partsEqual(rv, reflect.ValueOf((*T)(c)).Elem()) },
		func() unsafe.Pointer { return unsafe.Pointer(deepCopyPointer(v)) }))
	if c != v {
		*p = c
	}
}

// sharedSlices canonicalises non-empty slices of type S by their elements.
type sharedSlices[S ~[]E, E any] struct{ table canonTable }

// share replaces *p, of the pod owner, by the canonical slice equal to it
// (same length, its capacity its length, so an append never writes to it),
// writing *p only when it is not that slice already (and not at all when
// the pod keeps it). nil and empty slices stay as they are.
func (s *sharedSlices[S, E]) share(p *S, owner uint32) {
	v := *p
	if len(v) == 0 {
		return
	}
	id := unsafe.Pointer(&v[0])
	if s.table.isCanonical(id, len(v)) {
		return
	}
	rv := reflect.ValueOf(p).Elem()
	if pinsQuantity(rv) {
		internPartStrings(rv)
		return
	}
	h, ok := contentHash(rv)
	if !ok {
		return
	}
	c := s.table.canonical(h, id, len(v), owner,
		func(c unsafe.Pointer) bool { return slicesEqual(v, unsafe.Slice((*E)(c), len(v))) },
		func() unsafe.Pointer { return unsafe.Pointer(&deepCopySlice(v)[0]) })
	if c != id {
		*p = S(unsafe.Slice((*E)(c), len(v)))
	}
}

// slicesEqual is partsEqual for two non-empty slices of one length.
func slicesEqual[S ~[]E, E any](a S, b []E) bool {
	for i := range a {
		if &a[i] != &b[i] && !partsEqual(reflect.ValueOf(&a[i]).Elem(), reflect.ValueOf(&b[i]).Elem()) {
			return false
		}
	}
	return true
}

// sharedMaps canonicalises non-nil maps of type M by their entries.
type sharedMaps[M ~map[K]V, K comparable, V any] struct{ table canonTable }

// share replaces *p, of the pod owner, by the canonical map equal to it,
// writing *p only when it is not that map already (and not at all when the
// pod keeps it). A nil map stays nil, an empty one empty.
// NB: a map value is one pointer to its runtime header, which is the
// object the table holds weakly; mapObject and objectMap convert.
func (s *sharedMaps[M, K, V]) share(p *M, owner uint32) {
	v := *p
	if v == nil {
		return
	}
	id := mapObject(v)
	if s.table.isCanonical(id, 0) {
		return
	}
	rv := reflect.ValueOf(v)
	h, ok := contentHash(rv)
	if !ok {
		return
	}
	c := s.table.canonical(h, id, 0, owner,
		func(c unsafe.Pointer) bool { return partsEqual(rv, reflect.ValueOf(objectMap[M](c))) },
		func() unsafe.Pointer { return mapObject(deepCopyMap(v)) })
	if c != id {
		*p = objectMap[M](c)
	}
}

// mapObject is the runtime header object of map m.
func mapObject[M ~map[K]V, K comparable, V any](m M) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&m))
}

// objectMap is the map whose runtime header object is p.
func objectMap[M ~map[K]V, K comparable, V any](p unsafe.Pointer) M {
	var m M
	*(*unsafe.Pointer)(unsafe.Pointer(&m)) = p
	return m
}
