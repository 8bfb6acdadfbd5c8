package clientgo

import (
	"reflect"
	"sync"
	"time"

	clientgocache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/kcache-go/cache/internal/privatefield"
)

// installedHandler is one event handler added to a client-go informer, as
// it was added: the registration client-go returned for it, the caller's
// handler, the resync period asked for and the logger given (klog's
// background logger when none was).
type installedHandler struct {
	registration clientgocache.ResourceEventHandlerRegistration
	handler      clientgocache.ResourceEventHandler
	resync       time.Duration
	logger       klog.Logger
}

// installedHandlers reads the event handlers added to built, a client-go
// informer never run (its processor's listeners), and its watch-error
// handler (nil when none was set); ok is false when any of them cannot be
// read (a client-go version this package does not support). It only
// reads built.
func installedHandlers(built clientgocache.SharedIndexInformer) (handlers []installedHandler, onWatchError clientgocache.WatchErrorHandlerWithContext, ok bool) {
	onWatchError, ok = privatefield.Read[clientgocache.WatchErrorHandlerWithContext](built, "watchErrorHandler")
	if !ok {
		return nil, nil, false
	}
	listeners, ok := privatefield.Value(built, "processor", "listeners")
	if !ok || listeners.Kind() != reflect.Map {
		return nil, nil, false
	}
	for it := listeners.MapRange(); it.Next(); {
		h, ok := installedHandlerOf(it.Key().Interface())
		if !ok {
			return nil, nil, false
		}
		handlers = append(handlers, h)
	}
	return handlers, onWatchError, true
}

// installedHandlerOf reads what listener, one of a client-go informer's
// processor listeners, was added with; false when it cannot be read.
func installedHandlerOf(listener any) (installedHandler, bool) {
	var h installedHandler
	var ok [4]bool
	h.registration, ok[0] = listener.(clientgocache.ResourceEventHandlerRegistration)
	h.handler, ok[1] = privatefield.Read[clientgocache.ResourceEventHandler](listener, "handler")
	h.resync, ok[2] = privatefield.Read[time.Duration](listener, "requestedResyncPeriod")
	h.logger, ok[3] = privatefield.Read[klog.Logger](listener, "logger")
	return h, ok == [4]bool{true, true, true, true}
}

// carryHandlers adds to view the event handlers and the watch-error
// handler installed on built, the client-go informer view takes over, so
// they run on kcache as they would have on built: same handler values,
// resync periods and loggers. The registrations client-go returned for
// them stay usable with view's RemoveEventHandler (see
// carriedRegistrations); their own HasSynced cannot follow the kcache
// informer and stays false. ok is false, and view is left without any of
// them, when they cannot all be read or added.
func carryHandlers(built clientgocache.SharedIndexInformer, view *informerView) bool {
	handlers, onWatchError, ok := installedHandlers(built)
	if !ok {
		return false
	}
	if onWatchError != nil {
		if err := view.SetWatchErrorHandlerWithContext(onWatchError); err != nil {
			return false
		}
	}
	for _, h := range handlers {
		reg, err := view.AddEventHandlerWithOptions(h.handler, clientgocache.HandlerOptions{Logger: &h.logger, ResyncPeriod: &h.resync})
		if err != nil {
			return false
		}
		view.carried.put(h.registration, reg.(registrationView))
	}
	return true
}

// carriedRegistrations maps the client-go registrations of handlers carried
// to a view (see carryHandlers) to their registrations on the view. mu
// guards byClientGo.
type carriedRegistrations struct {
	mu         sync.Mutex
	byClientGo map[clientgocache.ResourceEventHandlerRegistration]registrationView
}

// put records that client-go's registration cg is reg on the view.
func (c *carriedRegistrations) put(cg clientgocache.ResourceEventHandlerRegistration, reg registrationView) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byClientGo == nil {
		c.byClientGo = map[clientgocache.ResourceEventHandlerRegistration]registrationView{}
	}
	c.byClientGo[cg] = reg
}

// get returns the view's registration of client-go's registration cg.
func (c *carriedRegistrations) get(cg clientgocache.ResourceEventHandlerRegistration) (registrationView, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	reg, ok := c.byClientGo[cg]
	return reg, ok
}
