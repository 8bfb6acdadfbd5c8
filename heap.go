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

// LessFunc is used to compare two objects in the heap.
type LessFunc func(interface{}, interface{}) bool

// Heap is a thread-safe producer/consumer queue that implements a heap data
// structure. It can be used to implement priority queues and similar data
// structures.
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
	if e, ok := h.byKey[key]; ok {
		if replace {
			e.obj = obj
			heap.Fix(h, e.pos)
		}
		return nil
	}
	heap.Push(h, &heapEntry{key: key, obj: obj})
	return nil
}

// NewHeap returns a Heap which can be used to queue up items to process.
func NewHeap(keyFn KeyFunc, lessFn LessFunc) *Heap {
	h := &Heap{entries: heapEntries{byKey: map[string]*heapEntry{}, keyFunc: keyFn, less: lessFn}}
	h.cond.L = &h.lock
	return h
}

// Close the Heap and signals condition variables that may be waiting to pop
// items from the heap.
func (h *Heap) Close() {
	h.lock.Lock()
	defer h.lock.Unlock()
	h.closed = true
	h.cond.Broadcast()
}

// Add inserts an item, and puts it in the queue. The item is updated if it
// already exists.
func (h *Heap) Add(obj interface{}) error {
	return h.insert(obj, true)
}

// AddIfNotPresent inserts an item, and puts it in the queue. If an item with
// the key is present in the map, no changes is made to the item.
//
// This is useful in a single producer/consumer scenario so that the consumer
// can safely retry items without contending with the producer and potentially
// enqueueing stale items.
func (h *Heap) AddIfNotPresent(obj interface{}) error {
	return h.insert(obj, false)
}

// Update is the same as Add in this implementation. When the item does not
// exist, it is added.
func (h *Heap) Update(obj interface{}) error {
	return h.insert(obj, true)
}

// insert is Add (replace) or AddIfNotPresent (!replace).
func (h *Heap) insert(obj interface{}, replace bool) error {
	h.lock.Lock()
	defer h.lock.Unlock()
	if h.closed {
		return errHeapClosed
	}
	if err := h.entries.put(obj, replace); err != nil {
		return err
	}
	h.cond.Broadcast()
	return nil
}

// BulkAdd adds all the items in the list to the queue and then signals the
// condition variable. It is useful when the caller would like to add all of
// the items to the queue before consumer starts processing them. A key error
// stops it; the items before it stay added.
func (h *Heap) BulkAdd(list []interface{}) error {
	h.lock.Lock()
	defer h.lock.Unlock()
	if h.closed {
		return errHeapClosed
	}
	for _, obj := range list {
		if err := h.entries.put(obj, true); err != nil {
			return err
		}
	}
	h.cond.Broadcast()
	return nil
}

// Delete removes an item.
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

// Pop waits until an item is ready. If multiple items are ready, they are
// returned in the order given by the heap's LessFunc. Once the heap is
// closed and empty it returns an error.
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

// List returns a list of all the items, in heap-array order.
func (h *Heap) List() []interface{} {
	h.lock.Lock()
	defer h.lock.Unlock()
	out := make([]interface{}, len(h.entries.list))
	for i, e := range h.entries.list {
		out[i] = e.obj
	}
	return out
}

// ListKeys returns a list of all the keys of the objects currently in the
// Heap, in heap-array order.
func (h *Heap) ListKeys() []string {
	h.lock.Lock()
	defer h.lock.Unlock()
	out := make([]string, len(h.entries.list))
	for i, e := range h.entries.list {
		out[i] = e.key
	}
	return out
}

// Get returns the requested item, or sets exists=false.
func (h *Heap) Get(obj interface{}) (interface{}, bool, error) {
	key, err := h.entries.keyOf(obj)
	if err != nil {
		return nil, false, err
	}
	return h.GetByKey(key)
}

// GetByKey returns the requested item, or sets exists=false.
func (h *Heap) GetByKey(key string) (interface{}, bool, error) {
	h.lock.Lock()
	defer h.lock.Unlock()
	e, ok := h.entries.byKey[key]
	if !ok {
		return nil, false, nil
	}
	return e.obj, true, nil
}

// IsClosed returns true if the queue is closed.
func (h *Heap) IsClosed() bool {
	h.lock.Lock()
	defer h.lock.Unlock()
	return h.closed
}
