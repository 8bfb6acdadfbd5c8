package cache

import (
	"context"
	"errors"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgofeatures "k8s.io/client-go/features"
	"k8s.io/utils/clock"
)

// Config contains all the settings for one of these low-level controllers.
type Config struct {
	// The queue for your objects - has to be a DeltaFIFO due to
	// assumptions in the implementation. Your Process() function
	// should accept the output of this Queue's Pop() method.
	Queue

	// Something that can list and watch your objects.
	ListerWatcher

	// Process can process a popped Deltas.
	Process ProcessFunc

	// ProcessBatch can process a batch of popped Deltas, which should return `TransactionError` if not all items
	// in the batch were successfully processed.
	//
	// For batch processing to be used:
	// * ProcessBatch must be non-nil
	// * Queue must implement QueueWithBatch
	// * The client InOrderInformersBatchProcess feature gate must be enabled
	//
	// If any of those are false, Process is used and no batch processing is done.
	ProcessBatch ProcessBatchFunc

	// ObjectType is an example object of the type this controller is
	// expected to handle.
	ObjectType runtime.Object

	// ObjectDescription is the description to use when logging type-specific information about this controller.
	ObjectDescription string

	// FullResyncPeriod is the period at which ShouldResync is considered.
	FullResyncPeriod time.Duration

	// MinWatchTimeout, if set, will define the minimum timeout for watch requests send
	// to kube-apiserver. However, values lower than 5m will not be honored to avoid
	// negative performance impact on controlplane.
	// Optional - if unset a default value of 5m will be used.
	MinWatchTimeout time.Duration

	// ShouldResync is periodically used by the reflector to determine
	// whether to Resync the Queue. If ShouldResync is `nil` or
	// returns true, it means the reflector should proceed with the
	// resync.
	ShouldResync ShouldResyncFunc

	// Called whenever the ListAndWatch drops the connection with an error.
	//
	// Contextual logging: WatchErrorHandlerWithContext should be used instead of WatchErrorHandler in code which supports contextual logging.
	WatchErrorHandler WatchErrorHandler

	// Called whenever the ListAndWatch drops the connection with an error
	// and WatchErrorHandler is not set.
	WatchErrorHandlerWithContext WatchErrorHandlerWithContext

	// WatchListPageSize is the requested chunk size of initial and relist watch lists.
	WatchListPageSize int64
}

// ShouldResyncFunc is a type of function that indicates if a reflector should perform a
// resync or not. It can be used by a shared informer to support multiple event handlers with custom
// resync periods.
type ShouldResyncFunc func() bool

// ProcessFunc processes a single object.
type ProcessFunc func(obj interface{}, isInInitialList bool) error

// Controller is a low-level controller that is parameterized by a
// Config and used in sharedIndexInformer.
type Controller interface {
	// RunWithContext does two things.  One is to construct and run a Reflector
	// to pump objects/notifications from the Config's ListerWatcher
	// to the Config's Queue and possibly invoke the occasional Resync
	// on that Queue.  The other is to repeatedly Pop from the Queue
	// and process with the Config's ProcessFunc.  Both of these
	// continue until the context is canceled.
	//
	// It's an error to call RunWithContext more than once.
	// RunWithContext blocks; call via go.
	RunWithContext(ctx context.Context)

	// Run does the same as RunWithContext with a stop channel instead of
	// a context.
	//
	// Contextual logging: RunWithcontext should be used instead of Run in code which supports contextual logging.
	Run(stopCh <-chan struct{})

	// HasSynced delegates to the Config's Queue
	HasSynced() bool

	// HasSyncedChecker enables waiting for syncing without polling.
	// The returned DoneChecker can be passed to WaitFor.
	// It delegates to the Config's Queue.
	HasSyncedChecker() DoneChecker

	// LastSyncResourceVersion delegates to the Reflector when there
	// is one, otherwise returns the empty string
	LastSyncResourceVersion() string
}

// controller runs one Reflector filling Config.Queue and one loop popping
// from it into Config.Process (or Config.ProcessBatch).
//
// reflectorMu guards reflector; config and clock are set before Run and then
// only read.
type controller struct {
	// config is the configuration given to New.
	config Config
	// clock drives the reflector's timers.
	clock clock.Clock

	// reflectorMu guards reflector.
	reflectorMu sync.RWMutex
	// reflector is set when Run starts; nil before.
	reflector *Reflector
}

// New makes a new Controller from the given Config.
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

	r := c.newReflector()
	c.reflectorMu.Lock()
	c.reflector = r
	c.reflectorMu.Unlock()

	var reflectorDone sync.WaitGroup
	reflectorDone.Go(func() { r.RunWithContext(ctx) })
	wait.UntilWithContext(ctx, c.processLoop, time.Second)
	reflectorDone.Wait()
}

// newReflector builds the reflector described by the config.
func (c *controller) newReflector() *Reflector {
	r := NewReflectorWithOptions(c.config.ListerWatcher, c.config.ObjectType, c.config.Queue, ReflectorOptions{
		ResyncPeriod:    c.config.FullResyncPeriod,
		MinWatchTimeout: c.config.MinWatchTimeout,
		TypeDescription: c.config.ObjectDescription,
		Clock:           c.clock,
	})
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

// Returns true once this controller has completed an initial resource listing
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
	c.reflectorMu.RLock()
	defer c.reflectorMu.RUnlock()
	if c.reflector == nil {
		return ""
	}
	return c.reflector.LastSyncResourceVersion()
}

// processLoop drains the queue until it is closed. Processing errors are
// reported and do not stop the loop.
func (c *controller) processLoop(ctx context.Context) {
	batchQueue, batching := c.batchQueue()
	for ctx.Err() == nil {
		var err error
		if batching {
			err = batchQueue.PopBatch(c.config.ProcessBatch, PopProcessFunc(c.config.Process))
		} else {
			_, err = c.config.Queue.Pop(PopProcessFunc(c.config.Process))
		}
		if err == nil {
			continue
		}
		if errors.Is(err, ErrFIFOClosed) {
			return
		}
		utilruntime.HandleErrorWithContext(ctx, err, "Failed to process a popped item")
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
