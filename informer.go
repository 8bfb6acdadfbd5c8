package cache

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clientgofeatures "k8s.io/client-go/features"
	"k8s.io/klog/v2"
)

// InformerOptions are the settings of NewInformerWithOptions.
type InformerOptions struct {
	// Logger replaces klog.Background() when set.
	Logger *klog.Logger

	// ListerWatcher is the source of the objects.
	ListerWatcher ListerWatcher

	// ObjectType is an example of the objects the source returns.
	ObjectType runtime.Object

	// Handler is told about every change to the store.
	Handler ResourceEventHandler

	// ResyncPeriod, when non-zero, makes the handler receive an update of
	// every stored object to itself at this period, even when nothing
	// changed (useful to re-apply external configuration). Zero: never.
	ResyncPeriod time.Duration

	// MinWatchTimeout is the least server-side timeout of a watch request;
	// values under five minutes (also the default) are raised to five
	// minutes.
	MinWatchTimeout time.Duration

	// Indexers are the store's indexes; nil means none.
	Indexers Indexers

	// Transform, when set, is applied to every object before it is stored
	// and handed to the handler.
	Transform TransformFunc

	// Identifier names the queue for metrics and logs; the zero value
	// publishes no metrics.
	Identifier InformerNameAndResource

	// InformerMetricsProvider creates the queue's metrics; nil means none.
	InformerMetricsProvider InformerMetricsProvider
}

// NewInformer returns a store and the controller that fills it from lw and
// tells h about every change. Only read from the store: writing to it
// would make the notifications wrong.
//
// Deprecated: Use NewInformerWithOptions instead.
func NewInformer(lw ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h ResourceEventHandler) (Store, Controller) {
	return NewInformerWithOptions(InformerOptions{ListerWatcher: lw, ObjectType: objType, Handler: h, ResyncPeriod: resyncPeriod})
}

// NewIndexerInformer is NewInformer with an indexed store. Only read from
// the indexer.
//
// Deprecated: Use NewInformerWithOptions instead.
func NewIndexerInformer(lw ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h ResourceEventHandler, indexers Indexers) (Indexer, Controller) {
	return newIndexerInformer(InformerOptions{ListerWatcher: lw, ObjectType: objType, Handler: h, ResyncPeriod: resyncPeriod, Indexers: indexers})
}

// NewTransformingInformer is NewInformer with transformer applied to every
// object before it is stored and handed to h.
//
// Deprecated: Use NewInformerWithOptions instead.
func NewTransformingInformer(lw ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h ResourceEventHandler, transformer TransformFunc) (Store, Controller) {
	return NewInformerWithOptions(InformerOptions{ListerWatcher: lw, ObjectType: objType, Handler: h, ResyncPeriod: resyncPeriod, Transform: transformer})
}

// NewTransformingIndexerInformer is NewIndexerInformer with transformer
// applied to every object before it is stored and handed to h.
//
// Deprecated: Use NewInformerWithOptions instead.
func NewTransformingIndexerInformer(lw ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h ResourceEventHandler, indexers Indexers, transformer TransformFunc) (Indexer, Controller) {
	return newIndexerInformer(InformerOptions{ListerWatcher: lw, ObjectType: objType, Handler: h, ResyncPeriod: resyncPeriod, Indexers: indexers, Transform: transformer})
}

// NewInformerWithOptions returns a store and the controller that fills it
// as options say and tells options.Handler about every change. Only read
// from the store: writing to it would make the notifications wrong. The
// store is an Indexer keyed by DeletionHandlingMetaNamespaceKeyFunc; its
// GetIndexers is options.Indexers, or an empty map when that is nil, as
// NewStore's (NewIndexerInformer keeps a nil one nil), as in client-go.
func NewInformerWithOptions(options InformerOptions) (Store, Controller) {
	if options.Indexers == nil {
		options.Indexers = Indexers{}
	}
	return newIndexerInformer(options)
}

// newIndexerInformer builds the store (an Indexer keyed by
// DeletionHandlingMetaNamespaceKeyFunc), the queue chosen by the feature
// gates and the controller that connects them to options.Handler.
func newIndexerInformer(options InformerOptions) (Indexer, Controller) {
	logger := klog.Background()
	if options.Logger != nil {
		logger = *options.Logger
	}
	store := NewIndexer(DeletionHandlingMetaNamespaceKeyFunc, options.Indexers)
	queue := newInformerQueue(logger, options.ObjectType, store, options.Transform, options.Identifier, options.InformerMetricsProvider)
	handler := options.Handler
	cfg := &Config{
		Queue:            queue,
		ListerWatcher:    options.ListerWatcher,
		ObjectType:       options.ObjectType,
		FullResyncPeriod: options.ResyncPeriod,
		MinWatchTimeout:  options.MinWatchTimeout,
		Process: func(obj interface{}, isInInitialList bool) error {
			deltas, ok := obj.(Deltas)
			if !ok {
				return errNotDeltas
			}
			return processDeltas(handler, store, deltas, isInInitialList)
		},
		ProcessBatch: func(deltas []Delta, isInInitialList bool) error {
			return processBatchDeltas(handler, store, deltas, isInInitialList)
		},
	}
	return store, New(cfg)
}

// newInformerQueue builds the queue an informer reads from, as the client-go
// feature gates say at the time of the call:
//
//   - InOrderInformers on (the default, locked in 1.36): a RealFIFO, in
//     atomic mode (one ReplacedAll per Replace, one SyncAll per Resync,
//     Bookmark deltas) when AtomicFIFO is on, otherwise per-object mode
//     reading the known objects from store; in atomic mode the queue lock is
//     released during processing when UnlockWhileProcessingFIFO is on.
//   - InOrderInformers off: a DeltaFIFO named "DeltaFIFO <type>" that knows the objects of store and
//     emits Replaced deltas.
func newInformerQueue(logger klog.Logger, objType runtime.Object, store Indexer, transform TransformFunc, id InformerNameAndResource, metrics InformerMetricsProvider) Queue {
	gates := clientgofeatures.FeatureGates()
	if !gates.Enabled(clientgofeatures.InOrderInformers) {
		return NewDeltaFIFOWithOptions(DeltaFIFOOptions{
			Logger:                &logger,
			Name:                  fmt.Sprintf("DeltaFIFO %T", objType),
			KnownObjects:          store,
			EmitDeltaTypeReplaced: true,
			Transformer:           transform,
		})
	}
	atomic := gates.Enabled(clientgofeatures.AtomicFIFO)
	opts := RealFIFOOptions{
		Logger:                &logger,
		Name:                  fmt.Sprintf("RealFIFO %T", objType),
		KeyFunction:           MetaNamespaceKeyFunc,
		Transformer:           transform,
		AtomicEvents:          atomic,
		UnlockWhileProcessing: atomic && gates.Enabled(clientgofeatures.UnlockWhileProcessingFIFO),
		EmitDeltaTypeBookmark: atomic,
		Identifier:            id,
		MetricsProvider:       metrics,
	}
	if !atomic {
		opts.KnownObjects = store
	}
	return NewRealFIFOWithOptions(opts)
}
