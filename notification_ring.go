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

// notificationRing is an unbounded FIFO of notifications backed by a
// circular slice that doubles when full and never shrinks below its
// high-water mark until it drains completely.
//
// It is not safe for concurrent use; its owner guards it.
type notificationRing struct {
	// buf holds the items; its length is the capacity and a power of two.
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
	return n
}

// grow doubles the capacity, keeping the items in order.
func (r *notificationRing) grow() {
	size := max(notificationRingMinSize, 2*len(r.buf))
	next := make([]notification, size)
	if r.count > 0 {
		tail := copy(next, r.buf[r.head:])
		if tail < r.count {
			copy(next[tail:], r.buf[:r.count-tail])
		}
	}
	r.buf = next
	r.head = 0
}
