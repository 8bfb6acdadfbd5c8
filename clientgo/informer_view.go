package clientgo

import (
	"context"
	"fmt"
	"time"

	clientgocache "k8s.io/client-go/tools/cache"

	kcache "github.com/kcache-go/cache"
)

// InformerView returns a kcache SharedIndexInformer as client-go's
// cache.SharedIndexInformer. Every method forwards to inf; handlers added
// through the view receive client-go's DeletedFinalStateUnknown instead of
// kcache's, and the registrations, DoneCheckers, Store, Indexer and
// Controller it returns are views of kcache's. A nil inf gives nil.
func InformerView(inf kcache.SharedIndexInformer) clientgocache.SharedIndexInformer {
	if inf == nil {
		return nil
	}
	return &informerView{inf: inf}
}

// KcacheInformer returns the kcache informer behind a view made by this
// package, also when client-go v0.37's typed wrapper wraps the view (as
// OnKcache returns it there); ok is false for any other informer (a
// client-go one, say). It is how a program, or a test, proves which
// library runs an informer.
func KcacheInformer(inf clientgocache.SharedInformer) (kcache.SharedIndexInformer, bool) {
	if wrapped, _, isWrapper := clientGoTypedWrapper(inf); isWrapper {
		return KcacheInformer(wrapped)
	}
	v, ok := inf.(*informerView)
	if !ok {
		return nil, false
	}
	return v.inf, true
}

// informerView is the client-go face of one kcache informer. inf is set
// once; errorReflectors (see watch_error_handler.go) guards itself.
type informerView struct {
	inf             kcache.SharedIndexInformer
	errorReflectors standInReflectors
}

// AddEventHandler registers handler with the informer's default resync.
func (v *informerView) AddEventHandler(handler clientgocache.ResourceEventHandler) (clientgocache.ResourceEventHandlerRegistration, error) {
	return v.wrapRegistration(v.inf.AddEventHandler(adaptHandler(handler)))
}

// AddEventHandlerWithResyncPeriod registers handler with resyncPeriod.
func (v *informerView) AddEventHandlerWithResyncPeriod(handler clientgocache.ResourceEventHandler, resyncPeriod time.Duration) (clientgocache.ResourceEventHandlerRegistration, error) {
	return v.wrapRegistration(v.inf.AddEventHandlerWithResyncPeriod(adaptHandler(handler), resyncPeriod))
}

// AddEventHandlerWithOptions registers handler with options converted field
// by field.
func (v *informerView) AddEventHandlerWithOptions(handler clientgocache.ResourceEventHandler, options clientgocache.HandlerOptions) (clientgocache.ResourceEventHandlerRegistration, error) {
	opts := kcache.HandlerOptions{Logger: options.Logger, ResyncPeriod: options.ResyncPeriod}
	return v.wrapRegistration(v.inf.AddEventHandlerWithOptions(adaptHandler(handler), opts))
}

// RemoveEventHandler unregisters a registration this view (or another view
// of the same informer) returned. Any other handle is the error kcache
// gives for a handle that is not a registration.
func (v *informerView) RemoveEventHandler(handle clientgocache.ResourceEventHandlerRegistration) error {
	r, ok := handle.(registrationView)
	if !ok {
		return fmt.Errorf("invalid key type %t", handle)
	}
	return v.inf.RemoveEventHandler(r.reg)
}

// GetStore returns the informer's cache as a client-go Store.
func (v *informerView) GetStore() clientgocache.Store { return IndexerView(v.inf.GetIndexer()) }

// GetIndexer returns the informer's cache as a client-go Indexer.
func (v *informerView) GetIndexer() clientgocache.Indexer { return IndexerView(v.inf.GetIndexer()) }

// GetController returns a view of the informer's Controller.
func (v *informerView) GetController() clientgocache.Controller {
	return controllerView{v.inf.GetController()}
}

// AddIndexers adds index functions (before the informer starts, as kcache
// requires).
func (v *informerView) AddIndexers(indexers clientgocache.Indexers) error {
	return v.inf.AddIndexers(toKcacheIndexers(indexers))
}

// Run runs the kcache informer until stopCh closes.
func (v *informerView) Run(stopCh <-chan struct{}) { v.inf.Run(stopCh) }

// RunWithContext runs the kcache informer until ctx is done.
func (v *informerView) RunWithContext(ctx context.Context) { v.inf.RunWithContext(ctx) }

// HasSynced forwards.
func (v *informerView) HasSynced() bool { return v.inf.HasSynced() }

// HasSyncedChecker forwards; kcache's DoneChecker has client-go's method set.
func (v *informerView) HasSyncedChecker() clientgocache.DoneChecker { return v.inf.HasSyncedChecker() }

// LastSyncResourceVersion forwards.
func (v *informerView) LastSyncResourceVersion() string { return v.inf.LastSyncResourceVersion() }

// IsStopped forwards.
func (v *informerView) IsStopped() bool { return v.inf.IsStopped() }

// SetTransform installs handler (before start, as kcache requires).
func (v *informerView) SetTransform(handler clientgocache.TransformFunc) error {
	return v.inf.SetTransform(kcache.TransformFunc(handler))
}

// SetWatchErrorHandler installs handler; it receives a stand-in client-go
// Reflector (see standInReflectors) for the kcache Reflector that failed.
func (v *informerView) SetWatchErrorHandler(handler clientgocache.WatchErrorHandler) error {
	if handler == nil {
		return v.inf.SetWatchErrorHandler(nil)
	}
	return v.inf.SetWatchErrorHandler(func(r *kcache.Reflector, err error) {
		handler(v.errorReflectors.standIn(r), err)
	})
}

// SetWatchErrorHandlerWithContext is SetWatchErrorHandler with a context.
func (v *informerView) SetWatchErrorHandlerWithContext(handler clientgocache.WatchErrorHandlerWithContext) error {
	if handler == nil {
		return v.inf.SetWatchErrorHandlerWithContext(nil)
	}
	return v.inf.SetWatchErrorHandlerWithContext(func(ctx context.Context, r *kcache.Reflector, err error) {
		handler(ctx, v.errorReflectors.standIn(r), err)
	})
}
