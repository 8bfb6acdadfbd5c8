package e2e

import (
	"context"
	"sync"
	"sync/atomic"

	kcache "github.com/kcache-go/cache"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	cgcache "k8s.io/client-go/tools/cache"
)

// countingLW is the ListerWatcher the tests give an informer: it calls the
// API server and counts what the informer asks for, and it can be cut off
// from the server by a partition.
type countingLW struct {
	// objects is where lists and watches go.
	objects objects
	// partition, when not nil, can hold calls back and end open watches.
	partition *partition
	// lists counts List calls that start a list (no continue token): the
	// initial list and every relist.
	lists atomic.Int64
	// pages counts every List call, continuation pages included.
	pages atomic.Int64
	// streams counts WatchList watches (sendInitialEvents=true): the
	// initial streamed list and every streamed relist.
	streams atomic.Int64
	// watches counts plain watches (resuming from a resourceVersion).
	watches atomic.Int64
}

func (c *countingLW) list(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	if err := c.partition.pass(ctx); err != nil {
		return nil, err
	}
	c.pages.Add(1)
	if opts.Continue == "" {
		c.lists.Add(1)
	}
	return c.objects.listObject(ctx, opts)
}

func (c *countingLW) watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if err := c.partition.pass(ctx); err != nil {
		return nil, err
	}
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents {
		c.streams.Add(1)
	} else {
		c.watches.Add(1)
	}
	w, err := c.objects.watch(ctx, opts)
	if err != nil || c.partition == nil {
		return w, err
	}
	return c.partition.track(w), nil
}

// initialSyncs is the number of full syncs the informer asked for: lists
// plus streamed lists. One is the initial sync; the rest are relists.
func (c *countingLW) initialSyncs() int64 { return c.lists.Load() + c.streams.Load() }

// forKcache returns the ListerWatcher for kcache.
func (c *countingLW) forKcache() *kcache.ListWatch {
	return &kcache.ListWatch{ListWithContextFunc: c.list, WatchFuncWithContext: c.watch}
}

// forClientGo returns the same ListerWatcher for client-go.
func (c *countingLW) forClientGo() *cgcache.ListWatch {
	return &cgcache.ListWatch{ListWithContextFunc: c.list, WatchFuncWithContext: c.watch}
}

// partition simulates a network partition between informers and the API
// server: cut ends every open watch and holds new calls back until heal. A
// nil *partition never interferes.
type partition struct {
	// mu guards blocked and open.
	mu sync.Mutex
	// blocked is closed by heal; nil while the partition is healed.
	blocked chan struct{}
	// open are the watches started through the partition since the last cut.
	open []*severableWatch
}

// pass waits while the partition is cut, or until ctx ends.
func (p *partition) pass(ctx context.Context) error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	blocked := p.blocked
	p.mu.Unlock()
	if blocked == nil {
		return nil
	}
	select {
	case <-blocked:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// track wraps w so that a cut can end it and remembers it.
func (p *partition) track(w watch.Interface) watch.Interface {
	sw := newSeverableWatch(w)
	p.mu.Lock()
	p.open = append(p.open, sw)
	p.mu.Unlock()
	return sw
}

// cut holds new calls back and ends every open watch, so each informer
// resumes from its last resourceVersion once the partition heals.
func (p *partition) cut() {
	p.mu.Lock()
	p.blocked = make(chan struct{})
	open := p.open
	p.open = nil
	p.mu.Unlock()
	for _, w := range open {
		w.sever()
	}
}

// heal lets held-back and new calls through.
func (p *partition) heal() {
	p.mu.Lock()
	close(p.blocked)
	p.blocked = nil
	p.mu.Unlock()
}

// severableWatch passes a server watch's events on until it is severed;
// then its result channel closes, as when the server ends a watch, so the
// watcher resumes from its last resourceVersion. (Stopping the server watch
// from outside instead would race its reader into reporting a decode error,
// making the watcher's reaction differ from run to run.)
type severableWatch struct {
	// inner is the server watch.
	inner watch.Interface
	// out is what the watcher reads; closed when forwarding ends.
	out chan watch.Event
	// severed is closed by the first Stop, sever or severWith.
	severed chan struct{}
	// once guards closing severed and setting final.
	once sync.Once
	// final, set by severWith before severed closes, is the last event
	// sent.
	final *watch.Event
	// stopped is closed by Stop: the watcher reads no more events.
	stopped chan struct{}
	// stopOnce guards closing stopped.
	stopOnce sync.Once
}

func newSeverableWatch(inner watch.Interface) *severableWatch {
	w := &severableWatch{inner: inner, out: make(chan watch.Event), severed: make(chan struct{}), stopped: make(chan struct{})}
	go w.forward()
	return w
}

// forward copies events until the server watch ends or w is severed.
func (w *severableWatch) forward() {
	defer close(w.out)
	defer w.inner.Stop()
	in := w.inner.ResultChan()
	for {
		select {
		case <-w.severed:
			if w.final != nil {
				select {
				case w.out <- *w.final:
				case <-w.stopped:
				}
			}
			return
		case ev, ok := <-in:
			if !ok {
				return
			}
			select {
			case w.out <- ev:
			case <-w.severed:
				return
			}
		}
	}
}

// ResultChan implements watch.Interface.
func (w *severableWatch) ResultChan() <-chan watch.Event { return w.out }

// Stop implements watch.Interface: the watcher is done with it.
func (w *severableWatch) Stop() {
	w.stopOnce.Do(func() { close(w.stopped) })
	w.sever()
}

// sever ends forwarding; the result channel closes soon after.
func (w *severableWatch) sever() { w.once.Do(func() { close(w.severed) }) }

// severWith ends forwarding with ev as the last event (unless the watch
// was severed or stopped before), as the API server ends a watch with an
// Error event.
func (w *severableWatch) severWith(ev watch.Event) {
	w.once.Do(func() {
		w.final = &ev
		close(w.severed)
	})
}
