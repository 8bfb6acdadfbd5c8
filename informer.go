package cache

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clientgofeatures "k8s.io/client-go/features"
	"k8s.io/klog/v2"
)

// InformerOptions configure a Reflector.
type InformerOptions struct {
	// Logger, if not nil, is used instead of klog.Background() for logging.
	Logger *klog.Logger

	// ListerWatcher implements List and Watch functions for the source of the resource
	// the informer will be informing about.
	ListerWatcher ListerWatcher

	// ObjectType is an object of the type that informer is expected to receive.
	ObjectType runtime.Object

	// Handler defines functions that should called on object mutations.
	Handler ResourceEventHandler

	// ResyncPeriod is the underlying Reflector's resync period. If non-zero, the store
	// is re-synced with that frequency - Modify events are delivered even if objects
	// didn't change.
	// This is useful for synchronizing objects that configure external resources
	// (e.g. configure cloud provider functionalities).
	// Optional - if unset, store resyncing is not happening periodically.
	ResyncPeriod time.Duration

	// MinWatchTimeout, if set, will define the minimum timeout for watch requests send
	// to kube-apiserver. However, values lower than 5m will not be honored to avoid
	// negative performance impact on controlplane.
	// Optional - if unset a default value of 5m will be used.
	MinWatchTimeout time.Duration

	// Indexers, if set, are the indexers for the received objects to optimize
	// certain queries.
	// Optional - if unset no indexes are maintained.
	Indexers Indexers

	// Transform function, if set, will be called on all objects before they will be
	// put into the Store and corresponding Add/Modify/Delete handlers will be invoked
	// for them.
	// Optional - if unset no additional transforming is happening.
	Transform TransformFunc

	// Identifier is used to identify the FIFO for metrics and logging purposes.
	// If not set, metrics will not be published.
	Identifier InformerNameAndResource

	// InformerMetricsProvider is the metrics provider for the informer.
	// If not set, metrics will be no-ops.
	InformerMetricsProvider InformerMetricsProvider
}

// NewInformer returns a Store and a controller for populating the store
// while also providing event notifications. You should only used the returned
// Store for Get/List operations; Add/Modify/Deletes will cause the event
// notifications to be faulty.
//
// Deprecated: Use NewInformerWithOptions instead.
func NewInformer(lw ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h ResourceEventHandler) (Store, Controller) {
	return NewInformerWithOptions(InformerOptions{ListerWatcher: lw, ObjectType: objType, Handler: h, ResyncPeriod: resyncPeriod})
}

// NewIndexerInformer returns an Indexer and a Controller for populating the index
// while also providing event notifications. You should only used the returned
// Index for Get/List operations; Add/Modify/Deletes will cause the event
// notifications to be faulty.
//
// Deprecated: Use NewInformerWithOptions instead.
func NewIndexerInformer(lw ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h ResourceEventHandler, indexers Indexers) (Indexer, Controller) {
	return newIndexerInformer(InformerOptions{ListerWatcher: lw, ObjectType: objType, Handler: h, ResyncPeriod: resyncPeriod, Indexers: indexers})
}

// NewTransformingInformer returns a Store and a controller for populating
// the store while also providing event notifications. You should only used
// the returned Store for Get/List operations; Add/Modify/Deletes will cause
// the event notifications to be faulty.
// The given transform function will be called on all objects before they will
// put into the Store and corresponding Add/Modify/Delete handlers will
// be invoked for them.
//
// Deprecated: Use NewInformerWithOptions instead.
func NewTransformingInformer(lw ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h ResourceEventHandler, transformer TransformFunc) (Store, Controller) {
	return NewInformerWithOptions(InformerOptions{ListerWatcher: lw, ObjectType: objType, Handler: h, ResyncPeriod: resyncPeriod, Transform: transformer})
}

// NewTransformingIndexerInformer returns an Indexer and a controller for
// populating the index while also providing event notifications. You should
// only used the returned Index for Get/List operations; Add/Modify/Deletes
// will cause the event notifications to be faulty.
// The given transform function will be called on all objects before they will
// be put into the Index and corresponding Add/Modify/Delete handlers will
// be invoked for them.
//
// Deprecated: Use NewInformerWithOptions instead.
func NewTransformingIndexerInformer(lw ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h ResourceEventHandler, indexers Indexers, transformer TransformFunc) (Indexer, Controller) {
	return newIndexerInformer(InformerOptions{ListerWatcher: lw, ObjectType: objType, Handler: h, ResyncPeriod: resyncPeriod, Indexers: indexers, Transform: transformer})
}

// NewInformerWithOptions returns a Store and a controller for populating the store
// while also providing event notifications. You should only used the returned
// Store for Get/List operations; Add/Modify/Deletes will cause the event
// notifications to be faulty.
func NewInformerWithOptions(options InformerOptions) (Store, Controller) {
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
//   - InOrderInformers off: a DeltaFIFO that knows the objects of store and
//     emits Replaced deltas.
func newInformerQueue(logger klog.Logger, objType runtime.Object, store Indexer, transform TransformFunc, id InformerNameAndResource, metrics InformerMetricsProvider) Queue {
	gates := clientgofeatures.FeatureGates()
	if !gates.Enabled(clientgofeatures.InOrderInformers) {
		return NewDeltaFIFOWithOptions(DeltaFIFOOptions{
			Logger:                &logger,
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
