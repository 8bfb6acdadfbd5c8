package ring

// Queue is a growable first-in first-out ring buffer of T, popped one
// element at a time (see the package doc). It backs the queues' pending
// lists so that pushing and popping reuse one backing array instead of
// re-slicing (which leaks the consumed prefix's capacity until the next
// reallocation). The zero Queue is empty and ready to use.
//
// Invariants: len(buf) is zero or a power of two; the live elements are
// buf[head], buf[head+1], ... (indices modulo len(buf)), n of them; every
// slot outside the live range holds the zero value, so popped objects are not
// kept alive by the buffer.
//
// Queue does no locking; its owner guards it.
type Queue[T any] struct {
	// buf is the backing array; its length is the capacity.
	buf []T
	// head is the index in buf of the oldest element.
	head int
	// n is the number of live elements.
	n int
}

// queueMinCap is the capacity allocated on the first push.
const queueMinCap = 1

// Len returns the number of queued elements.
func (r *Queue[T]) Len() int { return r.n }

// Push appends v at the tail, growing the buffer when it is full.
func (r *Queue[T]) Push(v T) {
	if r.n == len(r.buf) {
		r.grow(r.n + 1)
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = v
	r.n++
}

// Pop removes and returns the oldest element. It must not be called on an
// empty ring.
func (r *Queue[T]) Pop() T {
	var zero T
	v := r.buf[r.head]
	r.buf[r.head] = zero
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.n--
	if r.n == 0 {
		r.head = 0
	}
	r.shrinkIfSparse()
	return v
}

// At returns the i-th oldest element, 0 <= i < Len().
func (r *Queue[T]) At(i int) T {
	return r.buf[(r.head+i)&(len(r.buf)-1)]
}

// Reserve makes room for at least extra more elements without further
// growth.
func (r *Queue[T]) Reserve(extra int) {
	if r.n+extra > len(r.buf) {
		r.grow(r.n + extra)
	}
}

// grow reallocates the buffer to the smallest power of two (at least
// queueMinCap and at least the current capacity) holding need elements.
func (r *Queue[T]) grow(need int) {
	c := max(len(r.buf), queueMinCap)
	for c < need {
		c <<= 1
	}
	r.resize(c)
}

// queueShrinkCap is the capacity from which a mostly empty ring gives
// memory back: below it the buffer is kept for reuse.
const queueShrinkCap = 4096

// shrinkIfSparse halves the buffer twice over when a large ring is at most
// one-eighth full, so that a burst (a non-atomic Replace of many objects)
// does not pin its peak memory for the life of the queue.
func (r *Queue[T]) shrinkIfSparse() {
	if len(r.buf) >= queueShrinkCap && r.n <= len(r.buf)/8 {
		r.resize(len(r.buf) / 4)
	}
}

// resize moves the live elements to the front of a new buffer of capacity
// c, a power of two not below n.
func (r *Queue[T]) resize(c int) {
	buf := make([]T, c)
	if r.n > 0 {
		first := copy(buf, r.buf[r.head:min(r.head+r.n, len(r.buf))])
		copy(buf[first:r.n], r.buf[:r.n-first])
	}
	r.buf = buf
	r.head = 0
}

// Reset drops every element, keeping the buffer for reuse.
func (r *Queue[T]) Reset() {
	clear(r.buf)
	r.head, r.n = 0, 0
}
