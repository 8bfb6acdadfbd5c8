package cache

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgofeatures "k8s.io/client-go/features"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// Config holds everything New needs to build a low-level controller: where
// objects come from, the queue between the reflector and the processing,
// and how popped items are processed.
type Config struct {
	// Queue receives what the reflector reads and is popped by the
	// controller; Process must understand what its Pop returns (Deltas
	// for RealFIFO and DeltaFIFO).
	Queue

	// ListerWatcher is the source of the objects.
	ListerWatcher

	// Process handles one popped item. Its errors are dropped, as in
	// client-go; a panic in it is handled by utilruntime (logged through
	// the context's logger) and processing resumes a second later.
	Process ProcessFunc

	// ProcessBatch handles several popped deltas at once and returns a
	// *TransactionError when only some were applied. It is used only when
	// it is set, Queue implements QueueWithBatch and the client-go
	// InOrderInformersBatchProcess feature gate is on; otherwise every
	// item goes through Process.
	ProcessBatch ProcessBatchFunc

	// ObjectType is an example of the objects the source returns.
	ObjectType runtime.Object

	// ObjectDescription names the object type in log messages.
	ObjectDescription string

	// FullResyncPeriod is how often ShouldResync is asked.
	FullResyncPeriod time.Duration

	// MinWatchTimeout is the least server-side timeout of a watch request;
	// values under five minutes (also the default) are raised to five
	// minutes.
	MinWatchTimeout time.Duration

	// ShouldResync is asked every FullResyncPeriod whether the queue
	// should be resynced; nil means always.
	ShouldResync ShouldResyncFunc

	// WatchErrorHandler is told about every error that ends a
	// list-and-watch round. Code that logs through a context's logger
	// sets WatchErrorHandlerWithContext instead.
	WatchErrorHandler WatchErrorHandler

	// WatchErrorHandlerWithContext is used instead when WatchErrorHandler
	// is nil.
	WatchErrorHandlerWithContext WatchErrorHandlerWithContext

	// WatchListPageSize is the page size of the initial list and relists.
	WatchListPageSize int64
}

// Controller is the low-level engine under an informer: a reflector filling
// a queue and a loop processing what it pops.
type Controller interface {
	// LastSyncResourceVersion returns the reflector's last resource
	// version, or "" before Run.
	LastSyncResourceVersion() string

	// HasSyncedChecker returns the queue's checker, usable with WaitFor.
	HasSyncedChecker() DoneChecker

	// HasSynced reports the queue's HasSynced.
	HasSynced() bool

	// RunWithContext runs a reflector that feeds the Config's Queue from
	// its ListerWatcher (resyncing the queue when due) and a loop that pops
	// from the queue into the Config's Process, both until ctx is canceled.
	// It blocks, and must be called only once.
	RunWithContext(ctx context.Context)

	// Run is RunWithContext stopped by closing stopCh.
	//
	// Code that logs through a context's logger calls RunWithContext.
	Run(stopCh <-chan struct{})
}

// controller runs one Reflector filling Config.Queue and one loop popping
// from it into Config.Process (or Config.ProcessBatch).
//
// config and clock are set before Run and then only read; reflector is an
// atomic pointer, published by Run.
type controller struct {
	// config is the configuration given to New.
	config Config
	// clock drives the reflector's timers.
	clock clock.Clock

	// reflector is set when Run starts; nil before.
	reflector atomic.Pointer[Reflector]
}

// New returns a Controller that runs with a copy of *c; it starts nothing
// until Run.
func New(c *Config) Controller {
	return &controller{config: *c, clock: clock.RealClock{}}
}

// Run begins processing items, and will continue until a value is sent down stopCh or it is closed.
// It's an error to call Run more than once.
// Run blocks; call via go.
func (c *controller) Run(stopCh <-chan struct{}) {
	c.RunWithContext(wait.ContextForChannel(stopCh))
}

// RunWithContext starts the reflector and the processing loop and returns
// once ctx is canceled and both have stopped. Canceling ctx closes the queue,
// which ends a blocked Pop.
func (c *controller) RunWithContext(ctx context.Context) {
	defer utilruntime.HandleCrashWithContext(ctx)
	stopCloser := context.AfterFunc(ctx, c.config.Queue.Close)
	defer stopCloser()

	r := c.newReflector(klog.FromContext(ctx))
	c.reflector.Store(r)

	var reflectorDone sync.WaitGroup
	reflectorDone.Go(func() { r.RunWithContext(ctx) })
	wait.UntilWithContext(ctx, c.processLoop, time.Second)
	reflectorDone.Wait()
}

// newReflector builds the reflector described by the config; it logs
// through logger (the controller's context logger), as client-go's does.
func (c *controller) newReflector(logger klog.Logger) *Reflector {
	cfg := &c.config
	options := ReflectorOptions{Clock: c.clock, TypeDescription: cfg.ObjectDescription, Logger: &logger}
	options.ResyncPeriod, options.MinWatchTimeout = cfg.FullResyncPeriod, cfg.MinWatchTimeout
	r := NewReflectorWithOptions(cfg.ListerWatcher, cfg.ObjectType, cfg.Queue, options)
	r.ShouldResync = c.config.ShouldResync
	r.WatchListPageSize = c.config.WatchListPageSize
	switch {
	case c.config.WatchErrorHandler != nil:
		legacy := c.config.WatchErrorHandler
		r.watchErrorHandler = func(_ context.Context, r *Reflector, err error) { legacy(r, err) }
	case c.config.WatchErrorHandlerWithContext != nil:
		r.watchErrorHandler = c.config.WatchErrorHandlerWithContext
	}
	return r
}

// HasSynced reports whether the queue has delivered the initial list (the
// queue's HasSynced).
func (c *controller) HasSynced() bool {
	return c.config.Queue.HasSynced()
}

// HasSyncedChecker delegates to the queue's checker.
func (c *controller) HasSyncedChecker() DoneChecker {
	return c.config.Queue.HasSyncedChecker()
}

// LastSyncResourceVersion returns the reflector's last synced resource
// version, or "" before Run.
func (c *controller) LastSyncResourceVersion() string {
	if r := c.reflector.Load(); r != nil {
		return r.LastSyncResourceVersion()
	}
	return ""
}

// processLoop drains the queue until it is closed. Processing errors are
// dropped silently, as client-go does: Process is expected to handle its own
// errors.
func (c *controller) processLoop(ctx context.Context) {
	batchQueue, batching := c.batchQueue()
	for ctx.Err() == nil {
		var err error
		if batching {
			err = batchQueue.PopBatch(c.config.ProcessBatch, PopProcessFunc(c.config.Process))
		} else {
			_, err = c.config.Queue.Pop(PopProcessFunc(c.config.Process))
		}
		if err != nil && errors.Is(err, ErrFIFOClosed) {
			return
		}
	}
}

// batchQueue returns the queue as a QueueWithBatch when batch processing
// applies: ProcessBatch is set, the queue supports it and the
// InOrderInformersBatchProcess gate is on.
func (c *controller) batchQueue() (QueueWithBatch, bool) {
	if c.config.ProcessBatch == nil {
		return nil, false
	}
	q, ok := c.config.Queue.(QueueWithBatch)
	if !ok {
		return nil, false
	}
	return q, clientgofeatures.FeatureGates().Enabled(clientgofeatures.InOrderInformersBatchProcess)
}

// ShouldResyncFunc tells a reflector whether to resync its store now; a
// shared informer uses it to honour per-handler resync periods.
type ShouldResyncFunc func() bool

// ProcessFunc processes a single object.
type ProcessFunc func(obj interface{}, isInInitialList bool) error
