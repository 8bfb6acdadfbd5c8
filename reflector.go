package cache

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/util/watchlist"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// This file holds the Reflector itself: its options and constructors, the
// Run loop, ListAndWatch (initial state, then watching), and the
// resource-version bookkeeping shared by the list, WatchList and watch paths
// (reflector_list.go, watchlist.go, reflector_watch.go).

// The server-side watch timeout is drawn uniformly from
// [minWatchTimeout, 2*minWatchTimeout) so that the watches of many clients do
// not all expire at the same moment.
const reflectorMinWatchTimeout = 5 * time.Minute

// reflectorInternalErrorQuietPeriod is the error-free time after which a new
// streak of internal watch errors gets a fresh MaxInternalErrorRetryDuration.
const reflectorInternalErrorQuietPeriod = time.Minute

// Reflector watches a specified resource and causes all changes to be reflected in the given store.
//
// Invariants: the store only ever receives objects of expectedType (when
// set) and, for unstructured objects, of expectedGVK; a ListAndWatch call
// first brings the store to a complete snapshot with exactly one Replace and
// then applies watch events in the order the server sent them. Only one
// ListAndWatch may run at a time.
//
// rvMu guards lastSyncResourceVersion and resourceVersionUnavailable; every
// other unexported field is set at construction (watchErrorHandler may also
// be set by the informer before Run) or touched only by the goroutine running
// ListAndWatch (pagedFirstList).
type Reflector struct {
	// name identifies the reflector in logs; defaults to the caller's file:line.
	name string
	// typeDescription names the expected type in logs and errors.
	typeDescription string
	// expectedType is the Go type every stored object must have; nil accepts any.
	expectedType reflect.Type
	// expectedGVK is the kind an unstructured object must have; nil accepts any.
	expectedGVK *schema.GroupVersionKind
	// store receives the snapshot and the watch events.
	store ReflectorStore
	// listerWatcher is the source of lists and watches.
	listerWatcher ListerWatcherWithContext
	// logger is the base logger used by Run and ListAndWatch without a context.
	logger klog.Logger
	// resyncPeriod is how often store.Resync is considered; 0 disables resyncs.
	resyncPeriod time.Duration
	// delay yields the wait before the next attempt after a failure.
	delay wait.DelayFunc
	// minWatchTimeout and maxWatchTimeout bound the server-side watch timeout.
	minWatchTimeout time.Duration
	maxWatchTimeout time.Duration
	// clock measures watch durations and drives waits and resync timers.
	clock clock.Clock
	// metrics receives list and watch observations.
	metrics *reflectorMetrics
	// useWatchList is true when the initial state is streamed (WatchListClient
	// gate on and the client supports it).
	useWatchList bool
	// watchErrorHandler is told about every error ListAndWatch returns.
	watchErrorHandler WatchErrorHandlerWithContext
	// pagedFirstList records that the first list (RV "0") came back in pages,
	// which keeps paging on for later relists at an exact resource version.
	pagedFirstList bool

	// rvMu guards the two fields below.
	rvMu sync.RWMutex
	// lastSyncResourceVersion is the resource version the store is synced to.
	lastSyncResourceVersion string
	// resourceVersionUnavailable is true after the server said the last
	// resource version is too old (410) or too new; the next list or WatchList
	// then asks for the most recent state (RV "").
	resourceVersionUnavailable bool

	// WatchListPageSize is the requested chunk size of initial and resync watch lists.
	// If unset, for consistent reads (RV="") or reads that opt-into arbitrarily old data
	// (RV="0") it will default to pager.PageSize, for the rest (RV != "" && RV != "0")
	// it will turn off pagination to allow serving them from watch cache.
	// NOTE: It should be used carefully as paginated lists are always served directly from
	// etcd, which is significantly less efficient and may lead to serious performance and
	// scalability problems.
	WatchListPageSize int64
	// ShouldResync is invoked periodically and whenever it returns `true` the Store's Resync operation is invoked
	ShouldResync func() bool
	// MaxInternalErrorRetryDuration defines how long we should retry internal errors returned by watch.
	MaxInternalErrorRetryDuration time.Duration
}

// ResourceVersionUpdater is an interface that allows store implementation to
// track the current resource version of the reflector. This is especially
// important if storage bookmarks are enabled.
type ResourceVersionUpdater interface {
	// UpdateResourceVersion is called each time current resource version of the reflector
	// is updated.
	UpdateResourceVersion(resourceVersion string)
}

// ReflectorBookmarkStore is an optional interface that allows a store to be
// informed of bookmark events received by the reflector.
type ReflectorBookmarkStore interface {
	Bookmark(resourceVersion string) error
}

// transformedReplacer is implemented by kcache's own stores and queues whose
// Replace applies their Transformer to every object. The Reflector, having
// already run that transformer on each listed object (page by page, to keep
// the peak memory of a large list low), calls replaceTransformed instead of
// Replace so that no object is transformed twice. replaceTransformed must
// behave exactly like Replace(list, resourceVersion) except that it does not
// call the transformer. Stores that do not implement it receive the
// untransformed objects through Replace, as with client-go.
type transformedReplacer interface {
	TransformingStore
	replaceTransformed(list []interface{}, resourceVersion string) error
}

// The WatchErrorHandler is called whenever ListAndWatch drops the
// connection with an error. After calling this handler, the informer
// will backoff and retry.
//
// The default implementation looks at the error type and tries to log
// the error message at an appropriate level.
//
// Implementations of this handler may display the error message in other
// ways. Implementations should return quickly - any expensive processing
// should be offloaded.
type WatchErrorHandler func(r *Reflector, err error)

// The WatchErrorHandler is called whenever ListAndWatch drops the
// connection with an error. After calling this handler, the informer
// will backoff and retry.
//
// The default implementation looks at the error type and tries to log
// the error message at an appropriate level.
//
// Implementations of this handler may display the error message in other
// ways. Implementations should return quickly - any expensive processing
// should be offloaded.
type WatchErrorHandlerWithContext func(ctx context.Context, r *Reflector, err error)

// DefaultWatchErrorHandler is the default implementation of WatchErrorHandlerWithContext.
// Expected endings of a watch (the resource version expired, the stream
// ended) are logged at a debug verbosity; everything else is reported
// through utilruntime.HandleErrorWithContext.
func DefaultWatchErrorHandler(ctx context.Context, r *Reflector, err error) {
	logger := klog.FromContext(ctx)
	switch {
	case isExpiredError(err):
		logger.V(4).Info("Watch ended because the resource version expired", "reflector", r.name, "type", r.typeDescription, "err", err)
	case errors.Is(err, io.EOF):
		logger.V(4).Info("Watch ended with EOF", "reflector", r.name, "type", r.typeDescription)
	case errors.Is(err, io.ErrUnexpectedEOF):
		logger.V(1).Info("Watch ended with an unexpected EOF", "reflector", r.name, "type", r.typeDescription, "err", err)
	default:
		utilruntime.HandleErrorWithContext(ctx, err, "Failed to watch", "reflector", r.name, "type", r.typeDescription)
	}
}

// VeryShortWatchError is returned when the watch result channel is closed
// within one second, without having sent any events.
type VeryShortWatchError struct {
	// Name of the Reflector
	Name string
}

// Error implements the error interface
func (e *VeryShortWatchError) Error() string {
	return "very short watch: " + e.Name + ": Unexpected watch close - watch lasted less than a second and no items received"
}

// ReflectorOptions configures a Reflector.
type ReflectorOptions struct {
	// Logger, if not nil, is used instead of klog.Background() for logging.
	// The name of the reflector gets added automatically.
	Logger *klog.Logger

	// Name is the Reflector's name. If unset/unspecified, the name defaults to the closest source_file.go:line
	// in the call stack that is outside this package.
	Name string

	// TypeDescription is the Reflector's type description. If unset/unspecified, the type description is defaulted
	// using the following rules: if the expectedType passed to NewReflectorWithOptions was nil, the type description is
	// "<unspecified>". If the expectedType is an instance of *unstructured.Unstructured and its apiVersion and kind fields
	// are set, the type description is the string encoding of those. Otherwise, the type description is set to the
	// go type of expectedType..
	TypeDescription string

	// ResyncPeriod is the Reflector's resync period. If unset/unspecified, the resync period defaults to 0
	// (do not resync).
	ResyncPeriod time.Duration

	// MinWatchTimeout, if non-zero, defines the minimum timeout for watch requests send to kube-apiserver.
	// However, values lower than 5m will not be honored to avoid negative performance impact on controlplane.
	MinWatchTimeout time.Duration

	// Clock allows tests to control time. If unset defaults to clock.RealClock{}
	Clock clock.Clock

	// Backoff is an optional custom backoff configuration.
	// If set, it will be used instead of the default exponential backoff.
	// DelayWithReset(clock, resetDuration) will be called on it to create the delay function.
	Backoff *wait.Backoff
}

// NewNamespaceKeyedIndexerAndReflector creates an Indexer and a Reflector
// The indexer is configured to key on namespace
func NewNamespaceKeyedIndexerAndReflector(lw ListerWatcher, expectedType interface{}, resyncPeriod time.Duration) (indexer Indexer, reflector *Reflector) {
	indexer = NewIndexer(MetaNamespaceKeyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc})
	reflector = NewReflectorWithOptions(lw, expectedType, indexer, ReflectorOptions{ResyncPeriod: resyncPeriod})
	return indexer, reflector
}

// NewReflector creates a new Reflector with its name defaulted to the closest source_file.go:line in the call stack
// that is outside this package. See NewReflectorWithOptions for further information.
func NewReflector(lw ListerWatcher, expectedType interface{}, store ReflectorStore, resyncPeriod time.Duration) *Reflector {
	return NewReflectorWithOptions(lw, expectedType, store, ReflectorOptions{ResyncPeriod: resyncPeriod})
}

// NewNamedReflector creates a new Reflector with the specified name. See NewReflectorWithOptions for further
// information.
func NewNamedReflector(name string, lw ListerWatcher, expectedType interface{}, store ReflectorStore, resyncPeriod time.Duration) *Reflector {
	return NewReflectorWithOptions(lw, expectedType, store, ReflectorOptions{Name: name, ResyncPeriod: resyncPeriod})
}

// NewReflectorWithOptions creates a new Reflector object which will keep the
// given store up to date with the server's contents for the given
// resource. Reflector promises to only put things in the store that
// have the type of expectedType, unless expectedType is nil. If
// resyncPeriod is non-zero, then the reflector will periodically
// consult its ShouldResync function to determine whether to invoke
// the Store's Resync operation; `ShouldResync==nil` means always
// "yes".  This enables you to use reflectors to periodically process
// everything as well as incrementally processing the things that
// change.
func NewReflectorWithOptions(lw ListerWatcher, expectedType interface{}, store ReflectorStore, options ReflectorOptions) *Reflector {
	c := options.Clock
	if c == nil {
		c = clock.RealClock{}
	}
	name := options.Name
	if name == "" {
		name = callerName()
	}
	minTimeout := max(options.MinWatchTimeout, reflectorMinWatchTimeout)
	r := &Reflector{
		name:              name,
		typeDescription:   options.TypeDescription,
		expectedType:      reflect.TypeOf(expectedType),
		expectedGVK:       expectedGVKOf(expectedType),
		store:             store,
		listerWatcher:     ToListerWatcherWithContext(lw),
		logger:            reflectorLogger(options.Logger, name),
		resyncPeriod:      options.ResyncPeriod,
		delay:             newReflectorDelay(options.Backoff, c),
		minWatchTimeout:   minTimeout,
		maxWatchTimeout:   2 * minTimeout,
		clock:             c,
		metrics:           newReflectorMetrics(name),
		watchErrorHandler: DefaultWatchErrorHandler,
	}
	if r.typeDescription == "" {
		r.typeDescription = typeDescriptionOf(expectedType)
	}
	r.useWatchList = r.decideWatchList(lw)
	return r
}

// reflectorLogger returns the logger a Reflector called name logs with.
func reflectorLogger(base *klog.Logger, name string) klog.Logger {
	logger := klog.Background()
	if base != nil {
		logger = *base
	}
	return klog.LoggerWithName(logger, name)
}

// decideWatchList reports whether the initial state should be streamed: the
// WatchListClient gate is read now, as client-go does, and a client that
// says it does not support WatchList semantics turns it off.
func (r *Reflector) decideWatchList(lw ListerWatcher) bool {
	if !clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient) {
		return false
	}
	if watchlist.DoesClientNotSupportWatchListSemantics(lw) {
		r.logger.V(2).Info("The client does not support WatchList semantics; using List instead", "feature", clientfeatures.WatchListClient)
		return false
	}
	return true
}

// Name returns the name of the reflector.
func (r *Reflector) Name() string {
	return r.name
}

// TypeDescription returns the description of the type the reflector expects.
func (r *Reflector) TypeDescription() string {
	return r.typeDescription
}

// Run repeatedly uses the reflector's ListAndWatch to fetch all the
// objects and subsequent deltas.
// Run will exit when stopCh is closed.
//
// Contextual logging: RunWithContext should be used instead of Run in code which supports contextual logging.
func (r *Reflector) Run(stopCh <-chan struct{}) {
	r.RunWithContext(klog.NewContext(wait.ContextForChannel(stopCh), r.logger))
}

// RunWithContext repeatedly uses the reflector's ListAndWatch to fetch all the
// objects and subsequent deltas.
// Run will exit when the context is canceled.
//
// Every round that returns an error is passed to the watch error handler;
// the next round starts after the reflector's backoff delay, measured from
// the end of the previous round.
func (r *Reflector) RunWithContext(ctx context.Context) {
	logger := klog.FromContext(ctx)
	logger.V(3).Info("Starting reflector", "type", r.typeDescription, "resyncPeriod", r.resyncPeriod, "reflector", r.name)
	_ = r.delay.Until(ctx, true, true, func(ctx context.Context) (bool, error) {
		if err := r.ListAndWatchWithContext(ctx); err != nil {
			r.watchErrorHandler(ctx, r, err)
		}
		return false, nil
	})
	logger.V(3).Info("Stopping reflector", "type", r.typeDescription, "resyncPeriod", r.resyncPeriod, "reflector", r.name)
}

// ListAndWatch first lists all items and get the resource version at the moment of call,
// and then use the resource version to watch.
// It returns error if ListAndWatch didn't even try to initialize watch.
//
// Contextual logging: ListAndWatchWithContext should be used instead of ListAndWatch in code which supports contextual logging.
func (r *Reflector) ListAndWatch(stopCh <-chan struct{}) error {
	return r.ListAndWatchWithContext(klog.NewContext(wait.ContextForChannel(stopCh), r.logger))
}

// ListAndWatchWithContext first lists all items and get the resource version at the moment of call,
// and then use the resource version to watch.
// It returns error if ListAndWatchWithContext didn't even try to initialize watch.
//
// With WatchList in use the initial state is streamed and the same watch
// continues afterwards; if streaming fails for a reason other than stopping,
// a regular List is made instead. It returns nil when ctx is cancelled.
func (r *Reflector) ListAndWatchWithContext(ctx context.Context) error {
	logger := klog.FromContext(ctx)
	logger.V(3).Info("Listing and watching", "type", r.typeDescription, "reflector", r.name)
	var w watch.Interface
	if r.useWatchList {
		var err error
		w, err = r.watchList(ctx)
		if err != nil {
			logger.V(4).Info("WatchList failed, falling back to a regular list", "reflector", r.name, "err", err)
		} else if w == nil {
			return nil // stopped while streaming
		}
	}
	if w == nil {
		if err := r.list(ctx); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
	}
	logger.V(2).Info("Caches populated", "type", r.typeDescription, "reflector", r.name)
	return r.watchWithResync(ctx, w)
}

// watchWithResync runs the resync timer next to the watch loop and returns
// when the watch loop does; the resync goroutine has ended by then.
func (r *Reflector) watchWithResync(ctx context.Context, w watch.Interface) error {
	resyncCtx, cancel := context.WithCancel(ctx)
	resyncErrs := make(chan error, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.resyncUntilDone(resyncCtx, resyncErrs)
	}()
	defer func() {
		cancel()
		<-done
	}()
	return r.watchLoop(ctx, w, resyncErrs)
}

// resyncUntilDone calls store.Resync every resyncPeriod while ShouldResync
// (nil means always) agrees, until ctx is done. A Resync error is sent on
// errs, which ends the current watch, and stops the timer.
func (r *Reflector) resyncUntilDone(ctx context.Context, errs chan<- error) {
	if r.resyncPeriod == 0 {
		<-ctx.Done()
		return
	}
	for {
		timer := r.clock.NewTimer(r.resyncPeriod)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C():
		}
		if r.ShouldResync == nil || r.ShouldResync() {
			klog.FromContext(ctx).V(4).Info("Forcing resync", "reflector", r.name)
			if err := r.store.Resync(); err != nil {
				errs <- err
				return
			}
		}
	}
}

// LastSyncResourceVersion is the resource version observed when last sync with the underlying store
// The value returned is not synchronized with access to the underlying store and is not thread-safe
func (r *Reflector) LastSyncResourceVersion() string {
	r.rvMu.RLock()
	defer r.rvMu.RUnlock()
	return r.lastSyncResourceVersion
}

// setLastSyncResourceVersion records rv as the version the store is synced to.
func (r *Reflector) setLastSyncResourceVersion(rv string) {
	r.rvMu.Lock()
	r.lastSyncResourceVersion = rv
	r.rvMu.Unlock()
	r.metrics.observeResourceVersion(rv)
}

// setResourceVersionUnavailable records whether the last resource version
// was refused by the server.
func (r *Reflector) setResourceVersionUnavailable(unavailable bool) {
	r.rvMu.Lock()
	defer r.rvMu.Unlock()
	r.resourceVersionUnavailable = unavailable
}

// relistResourceVersion is the resource version a List asks for: "0" (any
// cached state) before the first sync, the last synced version afterwards,
// and "" (the most recent state) once that version became unavailable.
func (r *Reflector) relistResourceVersion() string {
	r.rvMu.RLock()
	defer r.rvMu.RUnlock()
	switch {
	case r.resourceVersionUnavailable:
		return ""
	case r.lastSyncResourceVersion == "":
		return "0"
	default:
		return r.lastSyncResourceVersion
	}
}

// rewatchResourceVersion is the resource version a WatchList asks for: the
// last synced version, or "" (the most recent state) before the first sync or
// once that version became unavailable.
func (r *Reflector) rewatchResourceVersion() string {
	r.rvMu.RLock()
	defer r.rvMu.RUnlock()
	if r.resourceVersionUnavailable {
		return ""
	}
	return r.lastSyncResourceVersion
}

// watchTimeoutSeconds draws the server-side timeout of one watch request
// from [minWatchTimeout, maxWatchTimeout).
func (r *Reflector) watchTimeoutSeconds() *int64 {
	span := r.maxWatchTimeout - r.minWatchTimeout
	timeout := r.minWatchTimeout + time.Duration(rand.Int64N(int64(span)+1))
	seconds := int64(timeout.Seconds())
	return &seconds
}

// waitDelay waits for the reflector's next backoff delay and reports false
// when ctx was cancelled first.
func (r *Reflector) waitDelay(ctx context.Context) bool {
	timer := r.clock.NewTimer(r.delay())
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C():
		return true
	}
}

// isExpiredError reports whether the server said the requested resource
// version is too old (410 Gone or Expired).
func isExpiredError(err error) bool {
	return apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
}

// isTooLargeResourceVersionError reports whether the server said the
// requested resource version is newer than what it has: a status cause of
// type ResourceVersionTooLarge, or a timeout saying so in its message.
func isTooLargeResourceVersionError(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return false
	}
	details := status.Status().Details
	if details != nil {
		for _, cause := range details.Causes {
			if cause.Type == metav1.CauseTypeResourceVersionTooLarge {
				return true
			}
		}
	}
	return apierrors.IsTimeout(err) && strings.Contains(status.Status().Message, "Too large resource version")
}

// isResourceVersionUnavailable reports whether err means the requested
// resource version cannot be served, too old or too new.
func isResourceVersionUnavailable(err error) bool {
	return isExpiredError(err) || isTooLargeResourceVersionError(err)
}

// errStopRequested is returned by the event loop when ctx was cancelled.
var errStopRequested = errors.New("stop requested")
