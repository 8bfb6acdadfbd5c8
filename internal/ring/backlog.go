package ring

// backlogMinSize is the capacity a backlog starts with once it receives its
// first element.
const backlogMinSize = 64

// backlogShrinkAbove is the capacity up to which a backlog keeps its buffer
// however empty it gets; only a larger buffer is ever given back.
const backlogShrinkAbove = 1024

// Backlog is an unbounded FIFO of T, popped in batches, backed by a
// circular slice whose capacity is zero or a power of two. It holds an event
// handler's notifications not yet delivered; the zero Backlog is empty and
// ready to use. Push doubles the buffer when full. PopInto gives the memory
// of a burst back: when a pop leaves a buffer larger than backlogShrinkAbove
// slots at most 1/8 full, the backlog releases the buffer entirely if it is
// empty (the next Push starts again at backlogMinSize) and otherwise moves
// the items into the smallest power of two that holds four times as many,
// but never fewer than 2*backlogShrinkAbove slots. So a drained burst leaves
// no buffer, a burst drained to a few items at most 2*backlogShrinkAbove
// slots, and a standing backlog at most 8 slots per item.
//
// NB: the gap between the grow point (full) and the shrink point (1/8
// full, leaving the new buffer at most 1/4 full) is what rules out
// thrashing: after a shrink the items must quadruple before the next grow,
// and after a grow 3/4 of them must be popped before the next shrink, so
// each copy is paid for by that many pushes or pops. A buffer of at most
// backlogShrinkAbove slots is never given back, so a steady load
// that fits in it allocates nothing on push or pop; partial shrinks stop
// above that size so that the buffer is still released once empty.
//
// It is not safe for concurrent use; its owner guards it.
type Backlog[T any] struct {
	// buf holds the items; its length is the capacity, zero or a power of
	// two.
	buf []T
	// head is the index of the oldest item.
	head int
	// count is the number of items held.
	count int
}

// Len returns the number of queued elements.
func (r *Backlog[T]) Len() int { return r.count }

// Push appends v at the tail, growing the buffer when it is full.
func (r *Backlog[T]) Push(v T) {
	if r.count == len(r.buf) {
		r.grow()
	}
	r.buf[(r.head+r.count)&(len(r.buf)-1)] = v
	r.count++
}

// PopInto moves up to len(dst) elements from the head into dst and
// returns how many it moved. Vacated slots are cleared so that the backlog
// holds no reference to popped elements.
func (r *Backlog[T]) PopInto(dst []T) int {
	var zero T
	n := min(len(dst), r.count)
	mask := len(r.buf) - 1
	for i := 0; i < n; i++ {
		slot := &r.buf[(r.head+i)&mask]
		dst[i] = *slot
		*slot = zero
	}
	if n > 0 {
		r.head = (r.head + n) & mask
		r.count -= n
	}
	if r.count == 0 {
		r.head = 0
	}
	if len(r.buf) > backlogShrinkAbove && r.count <= len(r.buf)/8 {
		r.shrink()
	}
	return n
}

// shrink gives back a mostly empty buffer (see Backlog): it drops an empty
// one and moves the items of another into the smallest power of two, at
// least 2*backlogShrinkAbove, with room for four times as many.
func (r *Backlog[T]) shrink() {
	if r.count == 0 {
		r.buf, r.head = nil, 0
		return
	}
	size := 2 * backlogShrinkAbove
	for size < 4*r.count {
		size *= 2
	}
	if size < len(r.buf) {
		r.resize(size)
	}
}

// grow doubles the capacity, keeping the items in order.
func (r *Backlog[T]) grow() {
	r.resize(max(backlogMinSize, 2*len(r.buf)))
}

// resize moves the items, in order, into a new buffer of size slots
// (a power of two, at least count) starting at index 0.
func (r *Backlog[T]) resize(size int) {
	next := make([]T, size)
	if r.count > 0 {
		tail := copy(next[:r.count], r.buf[r.head:])
		if tail < r.count {
			copy(next[tail:r.count], r.buf[:r.count-tail])
		}
	}
	r.buf = next
	r.head = 0
}
