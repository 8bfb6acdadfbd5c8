package cache

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// SharedInformer provides eventually consistent linkage of its clients to
// the authoritative state of one collection of objects (one API group and
// kind/resource, possibly restricted to a namespace or by selectors).
//
// The informer keeps a local cache (GetStore, or GetIndexer for a
// SharedIndexInformer) that starts empty, is filled during Run and is
// eventually consistent with the authoritative state: the states an object
// goes through in the cache are a subsequence of its authoritative states,
// in order, with no ordering promise between different objects. Keys are
// namespace/name (or name for cluster-scoped objects); see
// MetaNamespaceKeyFunc and SplitMetaNamespaceKey.
//
// Clients are ResourceEventHandlers. Every client is notified of every cache
// update that happens after it was added (a client added after Run first
// gets one add per object then in the cache) unless the informer stops
// first. Notifications follow the cache (and index) update they describe;
// for one client they are delivered one at a time and, per object, in
// order. Because ObjectMeta.UID is not part of an object's identity, a
// delete and re-create under the same name may reach a client as one update.
// A client falling behind delays only itself: its notifications queue up in
// its own unbounded buffer.
type SharedInformer interface {
	// Run runs the informer until stopCh closes and returns once it stopped.
	//
	// Code that logs through a context's logger calls RunWithContext.
	Run(stopCh <-chan struct{})

	// RunWithContext runs the informer until ctx ends and returns once it
	// stopped.
	RunWithContext(ctx context.Context)

	// IsStopped reports whether the informer ran and stopped. A stopped
	// informer never runs again and accepts no new handlers.
	IsStopped() bool

	// HasSynced reports whether the cache has received at least one complete
	// list from the server. It says nothing about resyncs, nor about
	// whether a given handler caught up: ask its registration for that.
	HasSynced() bool

	// HasSyncedChecker is HasSynced as a DoneChecker, for WaitFor. As with
	// HasSynced, use a registration's checker to wait for one handler.
	HasSyncedChecker() DoneChecker

	// LastSyncResourceVersion returns the resource version last seen from
	// the server. It is not synchronised with reads of the cache.
	LastSyncResourceVersion() string

	// GetStore returns the local cache.
	GetStore() Store

	// GetController returns a Controller view of the informer: its Run
	// methods do nothing, HasSynced reports the informer's, and
	// LastSyncResourceVersion the informer's while client-go's
	// InformerResourceVersion feature gate is on and "" while it is off
	// (read at each call, as client-go's view does).
	GetController() Controller

	// SetTransform installs the function applied to every object before it
	// is queued, cached and handed to handlers, e.g. to drop fields nobody
	// reads and save memory. It fails once the informer has started. See
	// TransformFunc for the rules it must follow.
	SetTransform(handler TransformFunc) error

	// SetWatchErrorHandler installs the function told about every error
	// that ends a list-and-watch round; the informer then backs off and
	// retries. Without one, errors are logged at a level chosen by their
	// kind. The last call wins; it fails once the informer has started.
	// The function should return quickly and is meant for visibility.
	//
	// Code that logs through a context's logger sets its handler with
	// SetWatchErrorHandlerWithContext.
	SetWatchErrorHandler(handler WatchErrorHandler) error

	// SetWatchErrorHandlerWithContext is SetWatchErrorHandler for a
	// function that also receives a context.
	SetWatchErrorHandlerWithContext(handler WatchErrorHandlerWithContext) error

	// AddEventHandler registers handler with the informer's default resync
	// period. One handler's notifications arrive one at a time and in
	// order; different handlers are not coordinated. The registration can
	// be removed again and tells whether the handler has seen its whole
	// initial list.
	//
	// Code that logs through a context's logger registers with
	// AddEventHandlerWithOptions and puts its logger in the options.
	AddEventHandler(handler ResourceEventHandler) (ResourceEventHandlerRegistration, error)

	// AddEventHandlerWithResyncPeriod registers handler asking for
	// resyncs every resyncPeriod (zero: no resyncs). A resync re-delivers
	// every cached object as an update of itself; it never contacts the
	// server. An informer created without a resync period never resyncs;
	// otherwise the period a handler gets is at least the one it asked for
	// and may be longer, and actual intervals stretch with load.
	//
	// Code that logs through a context's logger registers with
	// AddEventHandlerWithOptions (ResyncPeriod and Logger in the options).
	AddEventHandlerWithResyncPeriod(handler ResourceEventHandler, resyncPeriod time.Duration) (ResourceEventHandlerRegistration, error)

	// AddEventHandlerWithOptions registers handler with the settings in
	// options (resync period, logger).
	AddEventHandlerWithOptions(handler ResourceEventHandler, options HandlerOptions) (ResourceEventHandlerRegistration, error)

	// RemoveEventHandler unregisters the handler of handle. Safe for
	// concurrent use; removing again, or after the informer stopped, is
	// harmless; a handle that is not one of the informer's kind of
	// registration (nil included) is an error. Once it returned, the
	// handler is handed at most the one notification it was being handed.
	RemoveEventHandler(handle ResourceEventHandlerRegistration) error
}

// ResourceEventHandlerRegistration is the handle AddEventHandler returns:
// pass it to the same informer's RemoveEventHandler to unregister the
// handler, or ask it whether the handler has synced, i.e. has been handed
// every object of its initial list.
//
// The registrations kcache returns also have a
// KcachePendingNotifications() int method reporting the handler's backlog.
type ResourceEventHandlerRegistration interface {
	// HasSyncedChecker is HasSynced as a DoneChecker, whose channel closes
	// at the moment HasSynced turns true.
	HasSyncedChecker() DoneChecker

	// HasSynced reports whether the informer has synced and the handler
	// has been given every notification of the initial list.
	HasSynced() bool
}

// HandlerOptions are the optional settings of
// [SharedInformer.AddEventHandlerWithOptions]; the zero value is valid.
type HandlerOptions struct {
	// Logger replaces klog.Background() for this handler's messages.
	Logger *klog.Logger

	// ResyncPeriod asks for resyncs at this period (zero: none); nil takes
	// the informer's default. See
	// [SharedInformer.AddEventHandlerWithResyncPeriod] for what a handler
	// actually gets.
	ResyncPeriod *time.Duration
}

// SharedIndexInformer is a SharedInformer whose cache is an Indexer: index
// functions can be added before it starts and the Indexer read at any time.
type SharedIndexInformer interface {
	GetIndexer() Indexer

	// AddIndexers add indexers to the informer before it starts.
	AddIndexers(indexers Indexers) error
	SharedInformer
}

// SharedIndexInformerOptions are the settings of
// NewSharedIndexInformerWithOptions; the zero value is valid.
type SharedIndexInformerOptions struct {
	// ResyncPeriod is both the handlers' default resync period and the
	// initial check period; zero disables resyncs.
	ResyncPeriod time.Duration

	// Indexers are the cache's indexes; nil means none.
	Indexers Indexers

	// ObjectDescription becomes the reflector's type description.
	ObjectDescription string

	// Identifier names the informer's queue for metrics and logs; the zero
	// value publishes no metrics.
	Identifier InformerNameAndResource

	// InformerMetricsProvider creates the queue's metrics and, when it also
	// implements KcacheInformerMetricsProvider, each handler's backlog and
	// delivery metrics; nil uses the provider set with
	// SetInformerMetricsProvider, or none. The store's resource-version
	// gauge is created only from a provider given here, as in client-go.
	InformerMetricsProvider InformerMetricsProvider
}

// minimumResyncPeriod is the shortest resync period a handler can get.
const minimumResyncPeriod = 1 * time.Second

// errInformerStarted is returned by setters that only work before Run.
var errInformerStarted = errors.New("informer has already started")

// sharedIndexInformer is the SharedIndexInformer implementation. Run builds
// the queue and the controller; the controller pops deltas into
// handleDeltas/handleBatchDeltas, which update the indexer and hand the
// notifications to the processor.
//
// startedMu guards started, stopped, controller, resyncCheckPeriod,
// watchErrorHandler and transform. deltasMu is held while a popped item is
// applied and distributed, and while a handler is added or removed after
// start, so that a late handler sees the cache exactly once: either in its
// synthetic adds or through the notifications that follow them. The
// remaining fields are set at construction.
type sharedIndexInformer struct {
	// indexer is the informer's cache.
	indexer Indexer
	// processor fans notifications out to the handlers.
	processor *sharedProcessor
	// listerWatcher is the source handed to the reflector.
	listerWatcher ListerWatcher
	// objectType is the example object handed to the reflector.
	objectType runtime.Object
	// objectDescription is the reflector's type description.
	objectDescription string
	// defaultEventHandlerResyncPeriod is used by AddEventHandler.
	defaultEventHandlerResyncPeriod time.Duration
	// clock drives resync decisions and the reflector's timers.
	clock clock.Clock
	// identifier names the informer for metrics.
	identifier InformerNameAndResource
	// metricsProvider creates the informer's metrics; never nil.
	metricsProvider InformerMetricsProvider
	// mutationDetector, when enabled by its environment variable, checks
	// that nobody mutates cached objects.
	mutationDetector MutationDetector
	// synced is closed once the controller has synced; see HasSyncedChecker.
	synced chan struct{}

	// startedMu guards the fields below up to deltasMu.
	startedMu sync.Mutex
	// started is true once Run began; it never goes back.
	started bool
	// stopped is true once Run returned from the controller.
	stopped bool
	// controller is created by Run; nil before.
	controller Controller
	// resyncCheckPeriod is how often the reflector asks whether a resync is due.
	resyncCheckPeriod time.Duration
	// watchErrorHandler, when set, replaces the reflector's default one.
	watchErrorHandler WatchErrorHandlerWithContext
	// transform is applied to objects before they are queued.
	transform TransformFunc

	// deltasMu serialises delta processing with late handler changes.
	deltasMu sync.Mutex
}

var _ SharedIndexInformer = &sharedIndexInformer{}

// newSharedIndexInformer builds an informer that uses clk for resync timing.
func newSharedIndexInformer(lw ListerWatcher, exampleObject runtime.Object, options SharedIndexInformerOptions, clk clock.Clock) *sharedIndexInformer {
	metrics := options.InformerMetricsProvider
	if metrics == nil {
		metrics = defaultInformerMetricsProvider()
	}
	return &sharedIndexInformer{
		// NB: the store publishes its resource version only through a provider
		// given in the options, never the process-wide one, as client-go's does.
		indexer:                         NewIndexer(DeletionHandlingMetaNamespaceKeyFunc, options.Indexers, WithStoreMetrics(options.Identifier, options.InformerMetricsProvider)),
		processor:                       &sharedProcessor{clock: clk},
		listerWatcher:                   lw,
		objectType:                      exampleObject,
		objectDescription:               options.ObjectDescription,
		defaultEventHandlerResyncPeriod: options.ResyncPeriod,
		clock:                           clk,
		identifier:                      options.Identifier,
		metricsProvider:                 metrics,
		mutationDetector:                NewCacheMutationDetector(fmt.Sprintf("%T", exampleObject)),
		synced:                          make(chan struct{}),
		resyncCheckPeriod:               options.ResyncPeriod,
	}
}

// SetWatchErrorHandler sets the handler told about ListAndWatch errors; it
// fails once the informer started.
func (s *sharedIndexInformer) SetWatchErrorHandler(handler WatchErrorHandler) error {
	if handler == nil {
		return s.SetWatchErrorHandlerWithContext(nil)
	}
	return s.SetWatchErrorHandlerWithContext(func(_ context.Context, r *Reflector, err error) { handler(r, err) })
}

// SetWatchErrorHandlerWithContext sets the handler told about ListAndWatch
// errors; it fails once the informer started.
func (s *sharedIndexInformer) SetWatchErrorHandlerWithContext(handler WatchErrorHandlerWithContext) error {
	return s.configureBeforeStart(func() { s.watchErrorHandler = handler })
}

// SetTransform sets the function applied to objects before they are queued;
// it fails once the informer started.
func (s *sharedIndexInformer) SetTransform(handler TransformFunc) error {
	return s.configureBeforeStart(func() { s.transform = handler })
}

// Run runs the informer until stopCh closes.
func (s *sharedIndexInformer) Run(stopCh <-chan struct{}) {
	s.RunWithContext(wait.ContextForChannel(stopCh))
}

// configureBeforeStart applies set under startedMu, or fails with
// errInformerStarted once the informer has started.
func (s *sharedIndexInformer) configureBeforeStart(set func()) error {
	s.startedMu.Lock()
	defer s.startedMu.Unlock()
	if s.started {
		return errInformerStarted
	}
	set()
	return nil
}

// RunWithContext runs the informer until ctx ends. A second call, even after
// the first returned, logs a warning and returns at once.
//
// Order of events: the queue and controller are built (reading the feature
// gates), the processor starts, the controller runs; once it returned the
// informer is marked stopped and only then the processor and its handler
// goroutines are stopped and waited for: each handler finishes at most the
// notification it is being handed, queued ones are dropped.
func (s *sharedIndexInformer) RunWithContext(ctx context.Context) {
	defer utilruntime.HandleCrashWithContext(ctx)
	logger := klog.FromContext(ctx)
	ctrl, ok := s.start(logger)
	if !ok {
		logger.Info("Warning: the sharedIndexInformer has started, run more than once is not allowed")
		return
	}

	processorCtx, stopProcessor := context.WithCancel(context.WithoutCancel(ctx))
	var background sync.WaitGroup
	defer background.Wait()
	defer stopProcessor()
	background.Go(func() { s.processor.run(processorCtx) })
	background.Go(func() { s.mutationDetector.Run(processorCtx.Done()) })
	background.Go(func() { s.announceSync(processorCtx, ctrl) })
	defer s.markStopped()
	ctrl.RunWithContext(ctx)
}

// start builds the queue and controller and marks the informer started. It
// returns false if the informer had been started before.
func (s *sharedIndexInformer) start(logger klog.Logger) (Controller, bool) {
	s.startedMu.Lock()
	defer s.startedMu.Unlock()
	if s.started {
		return nil, false
	}
	queue := newInformerQueue(logger, s.objectType, s.indexer, s.transform, s.identifier, s.metricsProvider)
	cfg := &Config{
		Queue:                        queue,
		ListerWatcher:                s.listerWatcher,
		ObjectType:                   s.objectType,
		ObjectDescription:            s.objectDescription,
		FullResyncPeriod:             s.resyncCheckPeriod,
		ShouldResync:                 s.processor.shouldResync,
		Process:                      s.handleDeltas,
		ProcessBatch:                 s.handleBatchDeltas,
		WatchErrorHandlerWithContext: s.watchErrorHandler,
	}
	ctrl := &controller{config: *cfg, clock: s.clock}
	s.controller = ctrl
	s.started = true
	return ctrl, true
}

// announceSync closes s.synced once ctrl has synced, unless ctx ends first.
func (s *sharedIndexInformer) announceSync(ctx context.Context, ctrl Controller) {
	select {
	case <-ctrl.HasSyncedChecker().Done():
		close(s.synced)
		s.processor.upstreamSynced()
	case <-ctx.Done():
	}
}

// markStopped records that the controller returned.
func (s *sharedIndexInformer) markStopped() {
	s.startedMu.Lock()
	defer s.startedMu.Unlock()
	s.stopped = true
}

// HasStarted reports whether Run was called.
func (s *sharedIndexInformer) HasStarted() bool {
	s.startedMu.Lock()
	defer s.startedMu.Unlock()
	return s.started
}

// IsStopped reports whether the informer ran and stopped.
func (s *sharedIndexInformer) IsStopped() bool {
	s.startedMu.Lock()
	defer s.startedMu.Unlock()
	return s.stopped
}

// HasSynced reports whether the first list has been fully processed; false
// before Run.
func (s *sharedIndexInformer) HasSynced() bool {
	s.startedMu.Lock()
	defer s.startedMu.Unlock()
	if s.controller == nil {
		return false
	}
	return s.controller.HasSynced()
}

// HasSyncedChecker returns a checker that completes when HasSynced turns
// true; it is usable before Run.
func (s *sharedIndexInformer) HasSyncedChecker() DoneChecker {
	return informerSyncChecker{s}
}

// informerSyncChecker is the DoneChecker view of an informer's sync state.
type informerSyncChecker struct {
	// s is the informer whose sync state is reported.
	s *sharedIndexInformer
}

// Name is "SharedIndexInformer" followed by the example object's type.
func (c informerSyncChecker) Name() string {
	return fmt.Sprintf("SharedIndexInformer %T", c.s.objectType)
}

// Done is closed once the informer has synced.
func (c informerSyncChecker) Done() <-chan struct{} { return c.s.synced }

// LastSyncResourceVersion returns the reflector's last synced resource
// version, "" before Run.
func (s *sharedIndexInformer) LastSyncResourceVersion() string {
	s.startedMu.Lock()
	defer s.startedMu.Unlock()
	if s.controller == nil {
		return ""
	}
	return s.controller.LastSyncResourceVersion()
}

// GetStore returns the informer's cache.
func (s *sharedIndexInformer) GetStore() Store { return s.indexer }

// GetIndexer returns the informer's cache.
func (s *sharedIndexInformer) GetIndexer() Indexer { return s.indexer }

// GetController returns a view of the informer as a Controller whose Run
// methods do nothing.
func (s *sharedIndexInformer) GetController() Controller { return informerControllerView{s} }

// AddIndexers adds indexers to the cache, back-filling them from the cached
// objects when the informer already runs. It fails once the informer stopped
// or when an index name is taken.
func (s *sharedIndexInformer) AddIndexers(indexers Indexers) error {
	s.startedMu.Lock()
	defer s.startedMu.Unlock()
	if s.stopped {
		return errors.New("indexer was not added because it has stopped already")
	}
	if !s.started {
		return s.indexer.AddIndexers(indexers)
	}
	s.deltasMu.Lock()
	defer s.deltasMu.Unlock()
	return s.indexer.AddIndexers(indexers)
}

// AddEventHandler adds handler with the informer's default resync period.
func (s *sharedIndexInformer) AddEventHandler(handler ResourceEventHandler) (ResourceEventHandlerRegistration, error) {
	return s.AddEventHandlerWithOptions(handler, HandlerOptions{})
}

// AddEventHandlerWithResyncPeriod adds handler asking for resyncPeriod.
func (s *sharedIndexInformer) AddEventHandlerWithResyncPeriod(handler ResourceEventHandler, resyncPeriod time.Duration) (ResourceEventHandlerRegistration, error) {
	return s.AddEventHandlerWithOptions(handler, HandlerOptions{ResyncPeriod: &resyncPeriod})
}

// AddEventHandlerWithOptions registers handler. It fails once the informer
// stopped.
//
// Resync: a requested period below one second becomes one second. Before
// Run, a period shorter than the informer's check period shortens the check
// period (and every listener's period is recomputed); after Run has started
// it is raised to the check period instead. An informer whose check period
// is zero never resyncs.
//
// After Run has started, the handler first receives an add, with
// isInInitialList=true, for every object in the cache, and its registration
// syncs once those have been delivered.
func (s *sharedIndexInformer) AddEventHandlerWithOptions(handler ResourceEventHandler, options HandlerOptions) (ResourceEventHandlerRegistration, error) {
	s.startedMu.Lock()
	defer s.startedMu.Unlock()
	if s.stopped {
		return nil, fmt.Errorf("handler %v was not added to shared informer because it has stopped already", handler)
	}
	logger := klog.Background()
	if options.Logger != nil {
		logger = *options.Logger
	}
	requested := s.defaultEventHandlerResyncPeriod
	if options.ResyncPeriod != nil {
		requested = *options.ResyncPeriod
	}
	requested = s.adjustResyncPeriodLocked(logger, requested)

	l := newProcessListener(logger, handler, requested, s.listenerResyncPeriodLocked(logger, requested), s.clock.Now(), s.HasSyncedChecker(), s.HasSynced)
	l.backlog = pendingNotificationsGauge(s.metricsProvider, s.identifier, l.name)
	l.stats.attachMetrics(s.metricsProvider, s.identifier, l.name)
	if !s.started {
		s.processor.addListener(l)
		return l, nil
	}
	s.deltasMu.Lock()
	defer s.deltasMu.Unlock()
	s.processor.addListener(l)
	for _, obj := range s.indexer.List() {
		l.add(notification{kind: notifyAdd, newObj: obj, initial: true})
	}
	return l, nil
}

// adjustResyncPeriodLocked applies the minimum period and the check-period
// rules of AddEventHandlerWithOptions. startedMu must be held.
func (s *sharedIndexInformer) adjustResyncPeriodLocked(logger klog.Logger, requested time.Duration) time.Duration {
	if requested <= 0 {
		return requested
	}
	if requested < minimumResyncPeriod {
		logger.Info("Warning: resync period is too small. Changing it to the minimum allowed value", "resyncPeriod", requested, "minimumResyncPeriod", minimumResyncPeriod)
		requested = minimumResyncPeriod
	}
	if requested >= s.resyncCheckPeriod {
		return requested
	}
	if s.started {
		logger.Info("Warning: resync period is smaller than resync check period and the informer has already started. Changing it to the resync check period", "resyncPeriod", requested, "resyncCheckPeriod", s.resyncCheckPeriod)
		return s.resyncCheckPeriod
	}
	s.resyncCheckPeriod = requested
	s.processor.resyncCheckPeriodChanged(logger, requested)
	return requested
}

// listenerResyncPeriodLocked is determineResyncPeriod with the check period
// in effect, warning when the informer does not resync at all, or when the
// request (only a negative one gets here) is raised to the check period.
func (s *sharedIndexInformer) listenerResyncPeriodLocked(logger klog.Logger, requested time.Duration) time.Duration {
	switch {
	case requested == 0:
	case s.resyncCheckPeriod == 0:
		logger.Info("Warning: the specified resyncPeriod is invalid because this shared informer doesn't support resyncing", "desired", requested)
	case requested < s.resyncCheckPeriod:
		logger.Info("Warning: the specified resyncPeriod is being increased to the minimum resyncCheckPeriod", "desired", requested, "resyncCheckPeriod", s.resyncCheckPeriod)
	}
	return determineResyncPeriod(requested, s.resyncCheckPeriod)
}

// RemoveEventHandler stops and unregisters the handler of handle. Removing
// twice, removing a registration of another informer or removing after the
// informer stopped does nothing; a handle that is not a registration (nil
// included) is an error, before and after stop alike. Once it returned, the
// handler receives at most the one notification it was being handed.
func (s *sharedIndexInformer) RemoveEventHandler(handle ResourceEventHandlerRegistration) error {
	l, ok := handle.(*processorListener)
	if !ok {
		return fmt.Errorf("invalid key type %t", handle)
	}
	s.startedMu.Lock()
	defer s.startedMu.Unlock()
	if s.stopped {
		return nil
	}
	s.deltasMu.Lock()
	defer s.deltasMu.Unlock()
	s.processor.removeListener(l)
	return nil
}

// handleDeltas is the controller's Process function.
func (s *sharedIndexInformer) handleDeltas(obj interface{}, isInInitialList bool) error {
	s.deltasMu.Lock()
	defer s.deltasMu.Unlock()
	deltas, ok := obj.(Deltas)
	if !ok {
		return errNotDeltas
	}
	return processDeltas(informerNotifier{s}, s.indexer, deltas, isInInitialList)
}

// handleBatchDeltas is the controller's ProcessBatch function.
func (s *sharedIndexInformer) handleBatchDeltas(deltas []Delta, isInInitialList bool) error {
	s.deltasMu.Lock()
	defer s.deltasMu.Unlock()
	return processBatchDeltas(informerNotifier{s}, s.indexer, deltas, isInInitialList)
}

// informerNotifier turns the handler calls of delta processing into
// notifications distributed to the informer's listeners.
type informerNotifier struct {
	// s is the informer whose processor receives the notifications.
	s *sharedIndexInformer
}

// OnAdd distributes an add to every listener.
func (n informerNotifier) OnAdd(obj interface{}, isInInitialList bool) {
	n.s.mutationDetector.AddObject(obj)
	n.s.processor.distribute(notification{kind: notifyAdd, newObj: obj, initial: isInInitialList}, false)
}

// OnUpdate distributes an update. An update that keeps the resource version
// (a resync, or a relist of an unchanged object) only goes to the listeners
// taking part in the current resync.
func (n informerNotifier) OnUpdate(oldObj, newObj interface{}) {
	n.s.mutationDetector.AddObject(newObj)
	n.s.processor.distribute(notification{kind: notifyUpdate, oldObj: oldObj, newObj: newObj}, sameResourceVersion(oldObj, newObj))
}

// OnDelete distributes a delete to every listener.
func (n informerNotifier) OnDelete(obj interface{}) {
	n.s.processor.distribute(notification{kind: notifyDelete, oldObj: obj}, false)
}

// sameResourceVersion reports whether both objects have readable metadata
// with equal resource versions.
func sameResourceVersion(oldObj, newObj interface{}) bool {
	oldMeta, err := meta.Accessor(oldObj)
	if err != nil {
		return false
	}
	newMeta, err := meta.Accessor(newObj)
	if err != nil {
		return false
	}
	return oldMeta.GetResourceVersion() == newMeta.GetResourceVersion()
}

// informerControllerView is what GetController returns: a Controller whose
// Run methods do nothing and whose queries ask the informer.
type informerControllerView struct {
	// s is the informer asked.
	s *sharedIndexInformer
}

// Run does nothing; run the informer instead.
func (informerControllerView) Run(<-chan struct{}) {}

// RunWithContext does nothing; run the informer instead.
func (informerControllerView) RunWithContext(context.Context) {}

// HasSynced reports the informer's HasSynced.
func (v informerControllerView) HasSynced() bool { return v.s.HasSynced() }

// HasSyncedChecker returns the informer's checker.
func (v informerControllerView) HasSyncedChecker() DoneChecker { return v.s.HasSyncedChecker() }

// LastSyncResourceVersion returns the informer's last synced resource
// version while client-go's InformerResourceVersion gate is on, and ""
// while it is off, as client-go's view does.
func (v informerControllerView) LastSyncResourceVersion() string {
	if !clientfeatures.FeatureGates().Enabled(clientfeatures.InformerResourceVersion) {
		return ""
	}
	return v.s.LastSyncResourceVersion()
}
