package main

import (
	"sync"

	"k8s.io/apimachinery/pkg/watch"
)

// simulatedWatcher is one watch of the simulated cluster. Events are queued
// without bound and forwarded by one goroutine, so the cluster never waits
// for a slow client.
//
// mu guards pending and stopped.
type simulatedWatcher struct {
	// cluster is told when the watch stops.
	cluster *simulatedCluster
	// result is the channel ResultChan returns; closed when the watch ends.
	result chan watch.Event
	// wake signals the forwarder (capacity one).
	wake chan struct{}
	// done is closed by Stop.
	done chan struct{}

	// mu guards pending and stopped.
	mu sync.Mutex
	// pending are the events not yet forwarded, oldest first.
	pending []watch.Event
	// stopped is set by the first Stop.
	stopped bool
}

func newSimulatedWatcher(c *simulatedCluster) *simulatedWatcher {
	w := &simulatedWatcher{cluster: c, result: make(chan watch.Event), wake: make(chan struct{}, 1), done: make(chan struct{})}
	go w.forward()
	return w
}

// send queues ev; it never blocks.
func (w *simulatedWatcher) send(ev watch.Event) {
	w.mu.Lock()
	w.pending = append(w.pending, ev)
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// forward delivers queued events in order until Stop.
func (w *simulatedWatcher) forward() {
	defer close(w.result)
	for {
		w.mu.Lock()
		batch := w.pending
		w.pending = nil
		w.mu.Unlock()
		for _, ev := range batch {
			select {
			case w.result <- ev:
			case <-w.done:
				return
			}
		}
		select {
		case <-w.wake:
		case <-w.done:
			return
		}
	}
}

// Stop ends the watch; it may be called more than once.
func (w *simulatedWatcher) Stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	w.stopped = true
	close(w.done)
	go w.cluster.forget(w)
}

// ResultChan returns the event channel.
func (w *simulatedWatcher) ResultChan() <-chan watch.Event { return w.result }
