// Package ring holds the two first-in first-out buffers of kcache's queues:
// Queue, behind the pending lists of RealFIFO, DeltaFIFO and FIFO, and
// Backlog, behind each event handler's list of notifications not yet
// delivered.
//
// # Terminology
//
// A ring is a slice used circularly: its length is the capacity, the head is
// the index of the oldest element, and the live elements are the n slots
// from the head on, indices taken modulo the capacity. A slot outside the
// live range is free. Growing or shrinking is a resize: the live elements
// move, in order, to the front of a new slice.
//
// # Layout
//
// Both types are three words and a slice header: buf, head and a count.
// The capacity is zero or a power of two, so the slot of the i-th oldest
// element is (head+i) & (cap-1): a mask, never a division or a branch for
// the wrap-around.
//
// # Invariants
//
//   - len(buf) is zero or a power of two, and at least the count;
//   - every free slot holds the zero value of the element type, so that a
//     popped object is not kept alive by the buffer;
//   - an empty ring has head 0.
//
// Neither type is safe for concurrent use: the queue or the listener that
// owns one guards it with its own lock.
//
// # Why not a plain slice
//
// The usual Go queue, q = append(q, v) to push and q = q[1:] to pop, never
// reuses the consumed prefix: the popped slots stay allocated (and, unless
// cleared, keep their objects reachable) until the next append reallocates,
// and a steady load that never empties the queue reallocates again and
// again. A ring pushes and pops in place, so a steady load allocates nothing.
//
// # Giving memory back
//
// A queue's load comes in bursts (a relist queues every object at once, a
// slow handler falls behind by thousands of notifications), and a buffer
// that only grows would pin the peak of the largest burst for the life of
// the informer. So each type shrinks, and the two do so differently because
// their loads differ:
//
//   - Queue starts at one slot and, when a pop leaves a buffer of at least
//     4096 slots at most 1/8 full, quarters it. A queue is popped one
//     element at a time, and a quarter of a buffer 1/8 full is 1/2 full.
//   - Backlog starts at 64 slots, is popped in batches, and never gives back
//     a buffer of up to 1024 slots, so that the steady load of a handler
//     allocates nothing. A larger buffer left at most 1/8 full is dropped
//     when empty, and otherwise replaced by the smallest power of two, at
//     least 2048, that holds four times the elements left.
//
// The gap between the grow point (full) and the shrink point (1/8 full)
// rules out thrashing: after a shrink the elements must at least double
// before the next grow, and after a grow most of them must be popped before
// the next shrink, so each copy is paid for by as many pushes or pops.
package ring
