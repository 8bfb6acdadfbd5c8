package cache

import (
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/clock"
)

// This file holds the exported constructors of the shared informer. They
// build it (shared_informer.go) and then number it in the registry of live
// informers (informer_registry.go), which refers to the informer's type, so
// they sit above both.

// NewSharedInformer is NewSharedIndexInformer without index functions.
func NewSharedInformer(lw ListerWatcher, exampleObject runtime.Object, defaultEventHandlerResyncPeriod time.Duration) SharedInformer {
	return NewSharedIndexInformer(lw, exampleObject, defaultEventHandlerResyncPeriod, Indexers{})
}

// NewSharedIndexInformer is NewSharedIndexInformerWithOptions with
// ResyncPeriod defaultEventHandlerResyncPeriod and Indexers indexers.
func NewSharedIndexInformer(lw ListerWatcher, exampleObject runtime.Object, defaultEventHandlerResyncPeriod time.Duration, indexers Indexers) SharedIndexInformer {
	return NewSharedIndexInformerWithOptions(lw, exampleObject, SharedIndexInformerOptions{
		ResyncPeriod: defaultEventHandlerResyncPeriod,
		Indexers:     indexers,
	})
}

// NewSharedIndexInformerWithOptions creates an informer reading from lw.
//
// Resync: with options.ResyncPeriod zero the informer never resyncs.
// Otherwise the informer checks for due handlers at its check period: the
// shortest of options.ResyncPeriod and the periods requested by handlers
// added before Run, but at least one second. A handler's own period is the
// longer of its request and the check period.
func NewSharedIndexInformerWithOptions(lw ListerWatcher, exampleObject runtime.Object, options SharedIndexInformerOptions) SharedIndexInformer {
	s := newSharedIndexInformer(lw, exampleObject, options, clock.RealClock{})
	registerInformer(s) // for status.Informers; weak, see informer_status.go
	return s
}
