package cache

import (
	"container/heap"
	"errors"
	"sync"
)

// errHeapClosed is returned by Heap operations after Close.
var errHeapClosed = errors.New("heap is closed")

// errHeapNotFound is returned by Heap.Delete for an absent key.
var errHeapNotFound = errors.New("object not found")

// LessFunc orders a Heap: it reports whether the first object must pop
// before the second.
type LessFunc func(interface{}, interface{}) bool

// Heap is a keyed priority queue safe for concurrent producers and
// consumers: at most one object per key, and Pop always yields the least
// object by its LessFunc, waiting while the heap is empty.
//
// Locking: lock guards entries and closed; cond (on lock) wakes Pop when an
// item arrives or the heap closes.
type Heap struct {
	// lock guards entries and closed.
	lock sync.Mutex
	// cond signals waiting Pop calls; its Locker is &lock.
	cond sync.Cond
	// entries is the keyed binary heap of objects.
	entries heapEntries
	// closed is set by Close.
	closed bool
}

// heapEntry is one object in the heap.
type heapEntry struct {
	// key is the object's key.
	key string
	// obj is the object.
	obj interface{}
	// pos is the entry's index in heapEntries.list.
	pos int
}

// heapEntries is a binary min-heap (by less) of entries with a key index. It
// implements container/heap.Interface; it does no locking.
//
// Invariants: byKey[e.key] == e and list[e.pos] == e for every entry e.
type heapEntries struct {
	// list is the heap array.
	list []*heapEntry
	// byKey finds an entry by key.
	byKey map[string]*heapEntry
	// keyFunc computes an object's key.
	keyFunc KeyFunc
	// less orders objects; the least pops first.
	less LessFunc
}

// Len implements heap.Interface.
func (h *heapEntries) Len() int { return len(h.list) }

// Less implements heap.Interface.
func (h *heapEntries) Less(i, j int) bool { return h.less(h.list[i].obj, h.list[j].obj) }

// Swap implements heap.Interface and keeps positions current.
func (h *heapEntries) Swap(i, j int) {
	h.list[i], h.list[j] = h.list[j], h.list[i]
	h.list[i].pos = i
	h.list[j].pos = j
}

// Push implements heap.Interface; x is a *heapEntry.
func (h *heapEntries) Push(x interface{}) {
	e := x.(*heapEntry)
	e.pos = len(h.list)
	h.list = append(h.list, e)
	h.byKey[e.key] = e
}

// Pop implements heap.Interface: it removes the last entry of the array.
func (h *heapEntries) Pop() interface{} {
	last := len(h.list) - 1
	e := h.list[last]
	h.list[last] = nil
	h.list = h.list[:last]
	delete(h.byKey, e.key)
	return e
}

// keyOf computes obj's key, wrapping a failure in a KeyError.
func (h *heapEntries) keyOf(obj interface{}) (string, error) {
	key, err := h.keyFunc(obj)
	if err != nil {
		return "", KeyError{Obj: obj, Err: err}
	}
	return key, nil
}

// put inserts obj, or replaces the object under its key and restores the
// heap order when replace is set.
func (h *heapEntries) put(obj interface{}, replace bool) error {
	key, err := h.keyOf(obj)
	if err != nil {
		return err
	}
	h.putKeyed(key, obj, replace)
	return nil
}

// putKeyed is put for an object whose key is known.
func (h *heapEntries) putKeyed(key string, obj interface{}, replace bool) {
	if e, ok := h.byKey[key]; ok {
		if replace {
			e.obj = obj
			heap.Fix(h, e.pos)
		}
		return
	}
	heap.Push(h, &heapEntry{key: key, obj: obj})
}

// NewHeap returns an empty Heap keyed by keyFn and ordered by lessFn.
func NewHeap(keyFn KeyFunc, lessFn LessFunc) *Heap {
	h := &Heap{entries: heapEntries{byKey: map[string]*heapEntry{}, keyFunc: keyFn, less: lessFn}}
	h.cond.L = &h.lock
	return h
}

// Close marks the heap closed and wakes waiting Pop calls. Afterwards writes
// fail ("heap is closed"; Add, Update and AddIfNotPresent report a key
// error first) and Pop fails once the heap is empty.
func (h *Heap) Close() {
	h.lock.Lock()
	h.closed = true
	h.lock.Unlock()
	h.cond.Broadcast() // waiters re-check closed under the lock
}

// Add puts obj in the heap, replacing (and re-ordering) the object held
// under the same key.
func (h *Heap) Add(obj interface{}) error {
	return h.insert(obj, true)
}

// AddIfNotPresent puts obj in the heap only if nothing is held under its
// key; a held object is left as it is. A consumer can use it to give back an
// item for retry without overwriting a newer one a producer put meanwhile.
func (h *Heap) AddIfNotPresent(obj interface{}) error {
	return h.insert(obj, false)
}

// Update does exactly what Add does (adding obj if its key is absent).
func (h *Heap) Update(obj interface{}) error {
	return h.insert(obj, true)
}

// insert is Add (replace) or AddIfNotPresent (!replace). A key error comes
// before the closed check, as in client-go: a closed heap given an object
// without a key reports the KeyError.
func (h *Heap) insert(obj interface{}, replace bool) error {
	key, err := h.entries.keyOf(obj)
	if err != nil {
		return err
	}
	h.lock.Lock()
	defer h.lock.Unlock()
	if err := h.writableLocked(); err != nil {
		return err
	}
	h.entries.putKeyed(key, obj, replace)
	h.cond.Broadcast()
	return nil
}

// writableLocked returns errHeapClosed once the heap is closed.
func (h *Heap) writableLocked() error {
	if h.closed {
		return errHeapClosed
	}
	return nil
}

// BulkAdd adds every object of list as Add would, under one lock, and only
// then wakes consumers, so none of them starts before the whole list is in.
// A key error stops it; the objects before it stay added (consumers are
// woken by the next write).
func (h *Heap) BulkAdd(list []interface{}) error {
	h.lock.Lock()
	defer h.lock.Unlock()
	err := h.writableLocked()
	for i := 0; err == nil && i < len(list); i++ {
		err = h.entries.put(list[i], true)
	}
	if err == nil {
		h.cond.Broadcast()
	}
	return err
}

// Delete removes the object held under obj's key; an absent key is an
// error ("object not found").
func (h *Heap) Delete(obj interface{}) error {
	key, err := h.entries.keyOf(obj)
	if err != nil {
		return err
	}
	h.lock.Lock()
	defer h.lock.Unlock()
	e, ok := h.entries.byKey[key]
	if !ok {
		return errHeapNotFound
	}
	heap.Remove(&h.entries, e.pos)
	return nil
}

// Pop waits until the heap holds something, then removes and returns its
// least object. On a closed, empty heap it returns an error.
func (h *Heap) Pop() (interface{}, error) {
	h.lock.Lock()
	defer h.lock.Unlock()
	for h.entries.Len() == 0 {
		if h.closed {
			return nil, errHeapClosed
		}
		h.cond.Wait()
	}
	return heap.Pop(&h.entries).(*heapEntry).obj, nil
}

// List returns the held objects, in heap-array order.
func (h *Heap) List() []interface{} {
	h.lock.Lock()
	defer h.lock.Unlock()
	out := make([]interface{}, len(h.entries.list))
	for i, e := range h.entries.list {
		out[i] = e.obj
	}
	return out
}

// ListKeys returns the keys of the held objects, in heap-array order.
func (h *Heap) ListKeys() []string {
	h.lock.Lock()
	defer h.lock.Unlock()
	out := make([]string, len(h.entries.list))
	for i, e := range h.entries.list {
		out[i] = e.key
	}
	return out
}

// Get looks up the held object with obj's key; found is false when there is
// none. A key error is returned as a KeyError.
func (h *Heap) Get(obj interface{}) (item interface{}, found bool, err error) {
	if key, kerr := h.entries.keyOf(obj); kerr != nil {
		err = kerr
	} else {
		item, found, err = h.GetByKey(key)
	}
	return item, found, err
}

// GetByKey looks up the held object stored under key; found is false when
// there is none. It never fails.
func (h *Heap) GetByKey(key string) (item interface{}, found bool, err error) {
	h.lock.Lock()
	if e := h.entries.byKey[key]; e != nil {
		item, found = e.obj, true
	}
	h.lock.Unlock()
	return item, found, nil
}

// IsClosed reports whether Close was called.
func (h *Heap) IsClosed() bool {
	h.lock.Lock()
	closed := h.closed
	h.lock.Unlock()
	return closed
}
