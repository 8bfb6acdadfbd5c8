package synctrack

import (
	"errors"
	"sync"
)

// errEvaluatePanicked is what waiters of a round see when Evaluate panicked
// in the goroutine running it; they retry with a fresh round.
var errEvaluatePanicked = errors.New("synctrack: Evaluate panicked")

// Lazy caches the value of Evaluate until Notify says it is stale.
//
// Each Notify starts a new generation. Get reuses the round (one call of
// Evaluate) of the current generation, so concurrent Gets of one generation
// share a single call; a Get after Notify starts a new round even if an
// older round is still running, and the older round never replaces the newer
// one. A failed round is forgotten: its caller gets the error (with the
// value Evaluate returned alongside), the Gets that were waiting on it retry
// with a new round. Evaluate may thus run in several goroutines at once
// (for different generations).
//
// mu guards generation and latest; a round's value and err are written once
// by the goroutine running it, before ready is closed.
type Lazy[T any] struct {
	// Evaluate computes the value. It must be set before the first Get.
	Evaluate func() (T, error)

	// mu guards generation and latest.
	mu sync.Mutex
	// generation counts Notify calls.
	generation uint64
	// latest is the newest round that has not failed, nil before the first Get.
	latest *lazyRound[T]
}

// lazyRound is one call of Evaluate, shared by every Get of its generation.
type lazyRound[T any] struct {
	// generation is the Lazy's generation when the round was created.
	generation uint64
	// ready is closed once value and err are final.
	ready chan struct{}
	// value is the result of Evaluate.
	value T
	// err is the error of Evaluate; errEvaluatePanicked until it returns.
	err error
}

// Notify marks the cached value stale: the next Get calls Evaluate again.
// It never blocks on a running Evaluate.
func (z *Lazy[T]) Notify() {
	z.mu.Lock()
	z.generation++
	z.mu.Unlock()
}

// Get returns the value of the current generation, calling Evaluate in this
// goroutine when no round of the current generation exists, or waiting for
// the running one. Errors are never cached: the caller whose Evaluate failed
// gets exactly what it returned (value and error), the callers waiting on
// that round retry.
func (z *Lazy[T]) Get() (T, error) {
	for {
		round, owner := z.roundForCurrentGeneration()
		if owner {
			z.run(round)
		} else {
			<-round.ready
		}
		if round.err == nil {
			return round.value, nil
		}
		z.forget(round)
		if owner {
			return round.value, round.err
		}
	}
}

// roundForCurrentGeneration returns the round Get must use, and whether the
// caller created it and so must run it.
func (z *Lazy[T]) roundForCurrentGeneration() (*lazyRound[T], bool) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if r := z.latest; r != nil && r.generation == z.generation {
		return r, false
	}
	r := &lazyRound[T]{generation: z.generation, ready: make(chan struct{}), err: errEvaluatePanicked}
	z.latest = r
	return r, true
}

// run calls Evaluate for round and publishes the result, also when Evaluate
// panics (the panic then continues in the caller).
func (z *Lazy[T]) run(round *lazyRound[T]) {
	defer close(round.ready)
	round.value, round.err = z.Evaluate()
}

// forget drops a failed round so that the next Get evaluates again.
func (z *Lazy[T]) forget(round *lazyRound[T]) {
	z.mu.Lock()
	if z.latest == round {
		z.latest = nil
	}
	z.mu.Unlock()
}
