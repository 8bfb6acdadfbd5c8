package cache

// notificationKind says which handler method a notification is for.
type notificationKind uint8

const (
	// notifyAdd is delivered through OnAdd(newObj, initial).
	notifyAdd notificationKind = iota
	// notifyUpdate is delivered through OnUpdate(oldObj, newObj).
	notifyUpdate
	// notifyDelete is delivered through OnDelete(oldObj).
	notifyDelete
)

// notification is one event waiting for a handler. It is stored by value so
// that queueing it allocates nothing.
type notification struct {
	// oldObj is the previous object of an update or the deleted object.
	oldObj interface{}
	// newObj is the added object or the new object of an update.
	newObj interface{}
	// kind selects the handler method.
	kind notificationKind
	// initial is the isInInitialList flag of an add; false otherwise.
	initial bool
}

// deliverTo calls the handler method that matches the notification's kind.
// Updates come first: after the initial list they are the common case.
func (n *notification) deliverTo(handler ResourceEventHandler) {
	if n.kind == notifyUpdate {
		handler.OnUpdate(n.oldObj, n.newObj)
	} else if n.kind == notifyAdd {
		handler.OnAdd(n.newObj, n.initial)
	} else if n.kind == notifyDelete {
		handler.OnDelete(n.oldObj)
	}
}

// notificationRingMinSize is the capacity a ring starts with once it
// receives its first notification.
const notificationRingMinSize = 64

// notificationRingShrinkAbove is the capacity up to which a ring keeps its
// buffer however empty it gets; only a larger buffer is ever given back.
const notificationRingShrinkAbove = 1024

// notificationRing is an unbounded FIFO of notifications backed by a
// circular slice whose capacity is zero or a power of two. push doubles it
// when full. popInto gives the memory of a burst back: when a pop leaves a
// buffer larger than notificationRingShrinkAbove slots at most 1/8 full, the
// ring releases the buffer entirely if it is empty (the next push starts
// again at notificationRingMinSize) and otherwise moves the items into the
// smallest power of two that holds four times as many, but never fewer than
// 2*notificationRingShrinkAbove slots. So a drained burst leaves no buffer,
// a burst drained to a few items at most 2*notificationRingShrinkAbove
// slots, and a standing backlog at most 8 slots per item.
//
// NB: the gap between the grow point (full) and the shrink point (1/8
// full, leaving the new buffer at most 1/4 full) is what rules out
// thrashing: after a shrink the items must quadruple before the next grow,
// and after a grow 3/4 of them must be popped before the next shrink, so
// each copy is paid for by that many pushes or pops. A buffer of at most
// notificationRingShrinkAbove slots is never given back, so a steady load
// that fits in it allocates nothing on push or pop; partial shrinks stop
// above that size so that the buffer is still released once empty.
//
// It is not safe for concurrent use; its owner guards it.
type notificationRing struct {
	// buf holds the items; its length is the capacity, zero or a power of
	// two.
	buf []notification
	// head is the index of the oldest item.
	head int
	// count is the number of items held.
	count int
}

// len returns the number of queued notifications.
func (r *notificationRing) len() int { return r.count }

// push appends n at the tail, growing the buffer when it is full.
func (r *notificationRing) push(n notification) {
	if r.count == len(r.buf) {
		r.grow()
	}
	r.buf[(r.head+r.count)&(len(r.buf)-1)] = n
	r.count++
}

// popInto moves up to len(dst) notifications from the head into dst and
// returns how many it moved. Vacated slots are cleared so that the ring
// holds no reference to delivered objects.
func (r *notificationRing) popInto(dst []notification) int {
	n := min(len(dst), r.count)
	mask := len(r.buf) - 1
	for i := 0; i < n; i++ {
		slot := &r.buf[(r.head+i)&mask]
		dst[i] = *slot
		*slot = notification{}
	}
	if n > 0 {
		r.head = (r.head + n) & mask
		r.count -= n
	}
	if r.count == 0 {
		r.head = 0
	}
	if len(r.buf) > notificationRingShrinkAbove && r.count <= len(r.buf)/8 {
		r.shrink()
	}
	return n
}

// shrink gives back a mostly empty buffer (see notificationRing): it drops
// an empty one and moves the items of another into the smallest power of
// two, at least 2*notificationRingShrinkAbove, with room for four times as
// many.
func (r *notificationRing) shrink() {
	if r.count == 0 {
		r.buf, r.head = nil, 0
		return
	}
	size := 2 * notificationRingShrinkAbove
	for size < 4*r.count {
		size *= 2
	}
	if size < len(r.buf) {
		r.resize(size)
	}
}

// grow doubles the capacity, keeping the items in order.
func (r *notificationRing) grow() {
	r.resize(max(notificationRingMinSize, 2*len(r.buf)))
}

// resize moves the items, in order, into a new buffer of size slots
// (a power of two, at least count) starting at index 0.
func (r *notificationRing) resize(size int) {
	next := make([]notification, size)
	if r.count > 0 {
		tail := copy(next[:r.count], r.buf[r.head:])
		if tail < r.count {
			copy(next[tail:r.count], r.buf[:r.count-tail])
		}
	}
	r.buf = next
	r.head = 0
}
