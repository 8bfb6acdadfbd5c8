package clientgo

import (
	"context"
	"errors"
	"fmt"
	"strings"
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
	v, ok := viewOf(inf)
	if !ok {
		return nil, false
	}
	return v.inf, true
}

// viewOf returns the view inf is, also behind client-go v0.37's typed
// wrapper; false for any other informer.
func viewOf(inf clientgocache.SharedInformer) (*informerView, bool) {
	if wrapped, _, isWrapper := clientGoTypedWrapper(inf); isWrapper {
		return viewOf(wrapped)
	}
	v, ok := inf.(*informerView)
	return v, ok
}

// informerView is the client-go face of one kcache informer. inf is set
// once; errorReflectors (see watch_error_handler.go) and carried (see
// carried_handlers.go) guard themselves. transformSet is set, if at all, by
// the factory that built the view before it hands the view out, and never
// changed after.
type informerView struct {
	inf             kcache.SharedIndexInformer
	errorReflectors standInReflectors
	carried         carriedRegistrations
	// transformSet, when not nil, is called after every SetTransform the
	// informer accepts (see earlyFactoryTransform).
	transformSet func()
}

// AddEventHandler registers handler with the informer's default resync.
func (v *informerView) AddEventHandler(handler clientgocache.ResourceEventHandler) (clientgocache.ResourceEventHandlerRegistration, error) {
	return v.addHandler(handler, v.inf.AddEventHandler)
}

// AddEventHandlerWithResyncPeriod registers handler with resyncPeriod.
func (v *informerView) AddEventHandlerWithResyncPeriod(handler clientgocache.ResourceEventHandler, resyncPeriod time.Duration) (clientgocache.ResourceEventHandlerRegistration, error) {
	return v.addHandler(handler, func(h kcache.ResourceEventHandler) (kcache.ResourceEventHandlerRegistration, error) {
		return v.inf.AddEventHandlerWithResyncPeriod(h, resyncPeriod)
	})
}

// AddEventHandlerWithOptions registers handler with options converted field
// by field.
func (v *informerView) AddEventHandlerWithOptions(handler clientgocache.ResourceEventHandler, options clientgocache.HandlerOptions) (clientgocache.ResourceEventHandlerRegistration, error) {
	opts := kcache.HandlerOptions{Logger: options.Logger, ResyncPeriod: options.ResyncPeriod}
	return v.addHandler(handler, func(h kcache.ResourceEventHandler) (kcache.ResourceEventHandlerRegistration, error) {
		return v.inf.AddEventHandlerWithOptions(h, opts)
	})
}

// addHandler registers the kcache adapter of handler through add and wraps
// the registration. An error (kcache's refusal once the informer stopped)
// names handler, the caller's value, where kcache's names the adapter, so
// it reads as client-go's.
func (v *informerView) addHandler(handler clientgocache.ResourceEventHandler, add func(kcache.ResourceEventHandler) (kcache.ResourceEventHandlerRegistration, error)) (clientgocache.ResourceEventHandlerRegistration, error) {
	adapted := adaptHandler(handler)
	reg, err := add(adapted)
	if err != nil {
		err = namedAfterCaller(err, adapted, handler)
	}
	return v.wrapRegistration(reg, err)
}

// namedAfterCaller returns err with the first rendering (%v) of adapted in
// its message replaced by that of handler; err itself when the two render
// alike or the message does not contain adapted's. kcache's errors of
// AddEventHandler wrap nothing, so no chain is lost.
func namedAfterCaller(err error, adapted kcache.ResourceEventHandler, handler clientgocache.ResourceEventHandler) error {
	theirs, ours := fmt.Sprintf("%v", adapted), fmt.Sprintf("%v", handler)
	if theirs == ours || !strings.Contains(err.Error(), theirs) {
		return err
	}
	return errors.New(strings.Replace(err.Error(), theirs, ours, 1))
}

// RemoveEventHandler unregisters a registration this view (or another view
// of the same informer) returned, or the client-go registration of a
// handler carried to this view (see carryHandlers). A registration of
// another informer, a client-go one included, is nil and does nothing, as
// in client-go. Any other handle, nil included, is the error client-go
// gives for a handle that is not a registration.
func (v *informerView) RemoveEventHandler(handle clientgocache.ResourceEventHandlerRegistration) error {
	if r, ok := handle.(registrationView); ok {
		return v.inf.RemoveEventHandler(r.reg)
	}
	if isClientGoRegistration(handle) {
		if r, ok := v.carried.get(handle); ok {
			return v.inf.RemoveEventHandler(r.reg)
		}
		return nil
	}
	return fmt.Errorf("invalid key type %t", handle)
}

// GetStore returns the informer's cache as a client-go Store.
func (v *informerView) GetStore() clientgocache.Store { return IndexerView(v.inf.GetIndexer()) }

// GetIndexer returns the informer's cache as a client-go Indexer.
func (v *informerView) GetIndexer() clientgocache.Indexer { return IndexerView(v.inf.GetIndexer()) }

// GetController returns a view of the informer's Controller (see
// controllerView.LastSyncResourceVersion for the feature gate it reads).
func (v *informerView) GetController() clientgocache.Controller {
	return controllerView{c: v.inf.GetController(), ofInformer: true}
}

// AddIndexers hands indexers, the same map (see asKcacheIndexers), to the
// kcache informer's AddIndexers.
func (v *informerView) AddIndexers(indexers clientgocache.Indexers) error {
	return v.inf.AddIndexers(asKcacheIndexers(indexers))
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
	if err := v.inf.SetTransform(kcache.TransformFunc(handler)); err != nil {
		return err
	}
	if v.transformSet != nil {
		v.transformSet()
	}
	return nil
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
