package cache

import (
	"context"
	"io"
	"math/rand/v2"
	"reflect"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/util/watchlist"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// This file holds the Reflector itself: its options and constructors and
// the resource-version bookkeeping shared by the list, WatchList and watch
// paths (reflector_list.go, watchlist.go, reflector_watch.go). The loop
// that drives them is in reflector_run.go, the errors it classifies in
// reflector_errors.go.

// The server-side watch timeout is drawn uniformly from
// [minWatchTimeout, 2*minWatchTimeout) so that the watches of many clients do
// not all expire at the same moment.
const reflectorMinWatchTimeout = 5 * time.Minute

// reflectorInternalErrorQuietPeriod is the error-free time after which a new
// streak of internal watch errors gets a fresh MaxInternalErrorRetryDuration.
const reflectorInternalErrorQuietPeriod = time.Minute

// Reflector mirrors one collection of the API server into a store: it
// takes a snapshot (List or WatchList) and then applies the changes a watch
// reports, retrying, backing off and relisting as the errors demand.
//
// Invariants: the store only ever receives objects of the expected Go type
// (when set) and, for unstructured objects, of the expected kind; a
// ListAndWatch call first brings the store to a complete snapshot with
// exactly one Replace and then applies watch events in the order the server
// sent them. Only one ListAndWatch may run at a time.
//
// rvMu guards syncedRV and rvUnavailable. pagedFirstList is touched only by
// the goroutine running ListAndWatch. watchErrorHandler may be replaced by
// the informer before Run. Every other unexported field is fixed at
// construction.
type Reflector struct {
	source ListerWatcherWithContext // where lists and watches come from
	sink   ReflectorStore           // receives the snapshot and the watch events

	label      string                   // the name, for logs; defaults to the caller's file:line
	typeLabel  string                   // the expected type, for logs and errors
	objectType reflect.Type             // the Go type stored objects must have; nil accepts any
	objectKind *schema.GroupVersionKind // the kind unstructured objects must have; nil accepts any

	clock           clock.Clock    // drives waits and resync timers, measures watches
	delay           wait.DelayFunc // the wait before the next attempt after a failure
	resyncEvery     time.Duration  // how often store.Resync is considered; 0 never
	watchTimeoutMin time.Duration  // the least server-side watch timeout
	watchTimeoutMax time.Duration  // the greatest server-side watch timeout

	baseLogger         klog.Logger                  // used by Run and ListAndWatch without a context
	metrics            *reflectorMetrics            // receives list and watch observations
	watchErrorHandler  WatchErrorHandlerWithContext // told about every error a round returns
	streamInitialState bool                         // WatchList in use (gate on, client supports it)

	// pagedFirstList records that the first list (RV "0") came back in
	// pages, which keeps paging on for later relists at an exact RV.
	pagedFirstList bool

	rvMu sync.RWMutex // guards syncedRV and rvUnavailable
	// syncedRV is the resource version the store is synced to.
	syncedRV string
	// rvUnavailable is set after the server called the last resource
	// version too old (410) or too new; the next List or WatchList then asks
	// for the most recent state (RV "").
	rvUnavailable bool

	// WatchListPageSize is the page size of every List. Zero means 500 for
	// lists at RV "" or "0" and no paging for a relist at an exact RV (which
	// the watch cache can serve), unless the first list came back paged.
	// Paged lists are served from etcd, so set it with care.
	WatchListPageSize int64
	// ShouldResync is asked every resync period whether to call the store's
	// Resync; nil means always.
	ShouldResync func() bool
	// MaxInternalErrorRetryDuration is how long a watch ending in internal
	// errors is reopened in place before the Reflector relists; zero never.
	MaxInternalErrorRetryDuration time.Duration
}

// ResourceVersionUpdater is an optional interface of a store that wants to
// follow the Reflector's resource version as watch events (bookmarks
// included) move it forward.
type ResourceVersionUpdater interface {
	// UpdateResourceVersion receives every new resource version the
	// Reflector records from a watch event.
	UpdateResourceVersion(resourceVersion string)
}

// ReflectorBookmarkStore is an optional interface of a store that wants to
// see the bookmark events of the watch.
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
//
// replacePartlyTransformed is Replace for a list whose objects before failAt
// went through the transformer, which then refused list[failAt] with
// failure (the objects from failAt on are untransformed; failure is nil when
// the Reflector stopped transforming because checkReplaceKey failed on
// list[failAt]): it must leave the store exactly as Replace leaves it then,
// and return what Replace returns, without calling the transformer.
// checkReplaceKey returns the key error Replace would stop at for obj
// before transforming it (nil when Replace does not key objects);
// keysBeforeTransform says Replace keys every object before transforming
// any (else it keys and transforms one object after the other).
type transformedReplacer interface {
	TransformingStore
	replaceTransformed(list []interface{}, resourceVersion string) error
	replacePartlyTransformed(list []interface{}, resourceVersion string, failAt int, failure error) error
	checkReplaceKey(obj interface{}) error
	keysBeforeTransform() bool
}

// refusingAfter returns a transform that passes its first n objects through
// unchanged and refuses the next with failure (every further one passes
// when failure is nil): what replaying a transform that already ran on a
// list up to where it stopped looks like.
func refusingAfter(n int, failure error) TransformFunc {
	calls := 0
	return func(obj interface{}) (interface{}, error) {
		if calls >= n && failure != nil {
			return nil, failure
		}
		calls++
		return obj, nil
	}
}

// WatchErrorHandler is told about every error a ListAndWatch round ends
// with; the Reflector then waits its backoff delay and starts a new round.
// It must return quickly (hand expensive work to another goroutine).
// DefaultWatchErrorHandler only logs.
type WatchErrorHandler func(r *Reflector, err error)

// WatchErrorHandlerWithContext is WatchErrorHandler with the context of the
// round, for contextual logging. It must return quickly.
type WatchErrorHandlerWithContext func(ctx context.Context, r *Reflector, err error)

// DefaultWatchErrorHandler is the handler a Reflector starts with; it logs
// err at a level that fits its kind: an expired resource version at V(4),
// a bare io.EOF not at all (the stream ended), a bare io.ErrUnexpectedEOF at
// V(1); everything else (wrapped EOFs included) is reported through
// utilruntime.HandleErrorWithContext.
func DefaultWatchErrorHandler(ctx context.Context, r *Reflector, err error) {
	logger := klog.FromContext(ctx)
	switch {
	case isExpiredError(err):
		logger.V(4).Info("Watch closed", "reflector", r.label, "type", r.typeLabel, "err", err)
	case err == io.EOF: //nolint:errorlint // NB: only the bare EOF is the normal end; a wrapped one is reported, as in client-go
		// The watch ended normally: nothing to report.
	case err == io.ErrUnexpectedEOF: //nolint:errorlint // only the bare one, as above
		logger.V(1).Info("Watch closed with unexpected EOF", "reflector", r.label, "type", r.typeLabel, "err", err)
	default:
		utilruntime.HandleErrorWithContext(ctx, err, "Failed to watch", "reflector", r.label, "type", r.typeLabel)
	}
}

// ReflectorOptions are the settings NewReflectorWithOptions accepts; the
// zero value of each field picks its default.
type ReflectorOptions struct {
	// Logger replaces klog.Background() as the base logger (the name is added).
	Logger *klog.Logger
	// Name identifies the Reflector in logs; default: the nearest caller's
	// file:line outside this package. TypeDescription names the expected
	// type in logs; default: "<unspecified>" for nil, "group/version,
	// Kind=kind" for an *unstructured.Unstructured naming a kind or version,
	// else the Go type.
	Name, TypeDescription string
	// ResyncPeriod is how often the store's Resync is considered (0: never).
	// MinWatchTimeout is the least server-side watch timeout; each watch
	// draws from [MinWatchTimeout, 2*MinWatchTimeout). Values under the
	// 5-minute default are raised to it, to spare the control plane.
	ResyncPeriod, MinWatchTimeout time.Duration
	// Clock drives timers and time measurements; default clock.RealClock{}.
	Clock clock.Clock
	// Backoff replaces the default delay policy (800ms doubling to 30s,
	// jitter 1.0); DelayWithReset(clock, 2m) is called on it.
	Backoff *wait.Backoff
}

// NewNamespaceKeyedIndexerAndReflector returns an Indexer keyed by
// namespace/name with the namespace index, and a Reflector filling it from
// lw. The Reflector is named after the caller's file:line.
func NewNamespaceKeyedIndexerAndReflector(lw ListerWatcher, expectedType interface{}, resyncPeriod time.Duration) (indexer Indexer, reflector *Reflector) {
	indexer = NewIndexer(MetaNamespaceKeyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc})
	reflector = NewReflectorWithOptions(lw, expectedType, indexer, ReflectorOptions{ResyncPeriod: resyncPeriod})
	return indexer, reflector
}

// NewReflector returns a Reflector named after the caller's file:line; see
// NewReflectorWithOptions.
func NewReflector(lw ListerWatcher, expectedType interface{}, store ReflectorStore, resyncPeriod time.Duration) *Reflector {
	// An empty name makes NewReflectorWithOptions name it after the caller.
	return NewNamedReflector("", lw, expectedType, store, resyncPeriod)
}

// NewNamedReflector returns a Reflector with the given name; see
// NewReflectorWithOptions.
func NewNamedReflector(name string, lw ListerWatcher, expectedType interface{}, store ReflectorStore, resyncPeriod time.Duration) *Reflector {
	var options ReflectorOptions
	options.Name, options.ResyncPeriod = name, resyncPeriod
	return NewReflectorWithOptions(lw, expectedType, store, options)
}

// NewReflectorWithOptions returns a Reflector that keeps store in step with
// what lw lists and watches. Only objects of expectedType's Go type (and,
// for an unstructured expected type naming a kind, of that kind) reach the
// store; a nil expectedType accepts everything. With a ResyncPeriod the
// Reflector asks ShouldResync (nil: yes) every period and then calls the
// store's Resync. Whether the initial state is streamed (WatchList) is
// decided here, from the WatchListClient feature gate and the client's
// declared support.
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
		label:             name,
		typeLabel:         options.TypeDescription,
		objectType:        reflect.TypeOf(expectedType),
		objectKind:        expectedGVKOf(expectedType),
		sink:              store,
		source:            ToListerWatcherWithContext(lw),
		baseLogger:        reflectorLogger(options.Logger, name),
		resyncEvery:       options.ResyncPeriod,
		delay:             newReflectorDelay(options.Backoff, c),
		watchTimeoutMin:   minTimeout,
		watchTimeoutMax:   2 * minTimeout,
		clock:             c,
		metrics:           newReflectorMetrics(name),
		watchErrorHandler: DefaultWatchErrorHandler,
	}
	if r.typeLabel == "" {
		r.typeLabel = typeDescriptionOf(expectedType)
	}
	r.streamInitialState = r.decideWatchList(lw)
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
		r.baseLogger.V(2).Info("The client used to build this informer/reflector doesn't support WatchList semantics. The feature will be disabled. This is expected in unit tests but not in production. For details, see the documentation of watchlist.DoesClientNotSupportWatchListSemantics().", "feature", clientfeatures.WatchListClient)
		return false
	}
	return true
}

// Name is the Reflector's name, as used in logs.
func (r *Reflector) Name() string {
	return r.label
}

// TypeDescription is the description of the expected type, as used in logs.
func (r *Reflector) TypeDescription() string {
	return r.typeLabel
}

// LastSyncResourceVersion is the resource version of the last snapshot or
// watch event applied to the store. It is safe to call concurrently, but
// the store may already be ahead of or behind the value returned.
func (r *Reflector) LastSyncResourceVersion() string {
	r.rvMu.RLock()
	defer r.rvMu.RUnlock()
	return r.syncedRV
}

// setLastSyncResourceVersion records rv as the version the store is synced to.
func (r *Reflector) setLastSyncResourceVersion(rv string) {
	r.rvMu.Lock()
	r.syncedRV = rv
	r.rvMu.Unlock()
	r.metrics.observeResourceVersion(rv)
}

// setResourceVersionUnavailable records whether the last resource version
// was refused by the server.
func (r *Reflector) setResourceVersionUnavailable(unavailable bool) {
	r.rvMu.Lock()
	defer r.rvMu.Unlock()
	r.rvUnavailable = unavailable
}

// relistResourceVersion is the resource version a List asks for: "0" (any
// cached state) before the first sync, the last synced version afterwards,
// and "" (the most recent state) once that version became unavailable.
func (r *Reflector) relistResourceVersion() string {
	r.rvMu.RLock()
	defer r.rvMu.RUnlock()
	switch {
	case r.rvUnavailable:
		return ""
	case r.syncedRV == "":
		return "0"
	default:
		return r.syncedRV
	}
}

// rewatchResourceVersion is the resource version a WatchList asks for: the
// last synced version, or "" (the most recent state) before the first sync or
// once that version became unavailable.
func (r *Reflector) rewatchResourceVersion() string {
	r.rvMu.RLock()
	defer r.rvMu.RUnlock()
	if r.rvUnavailable {
		return ""
	}
	return r.syncedRV
}

// watchTimeoutSeconds draws the server-side timeout of one watch request
// from [minWatchTimeout, maxWatchTimeout).
func (r *Reflector) watchTimeoutSeconds() *int64 {
	span := r.watchTimeoutMax - r.watchTimeoutMin
	timeout := r.watchTimeoutMin + time.Duration(rand.Int64N(int64(span)+1))
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
