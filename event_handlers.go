package cache

// ResourceEventHandler can handle notifications for events that happen to a
// resource. The events are informational only, so you can't return an error.
// The handlers MUST NOT modify the objects received; this concerns not only
// the top level of structure but all the data structures reachable from it.
//   - OnAdd is called when an object is added.
//   - OnUpdate is called when an object is modified. Note that oldObj is the
//     last known state of the object-- it is possible that several changes
//     were combined together, so you can't use this to see every single
//     change. OnUpdate is also called when a re-list happens, and it will
//     get called even if nothing changed. This is useful for periodically
//     evaluating or syncing something.
//   - OnDelete will get the final state of the item if it is known, otherwise
//     it will get an object of type DeletedFinalStateUnknown. This can happen
//     if the watch is closed and misses the delete event and we don't notice
//     the deletion until the subsequent re-list.
type ResourceEventHandler interface {
	OnAdd(obj interface{}, isInInitialList bool)
	OnUpdate(oldObj, newObj interface{})
	OnDelete(obj interface{})
}

// ResourceEventHandlerFuncs is an adaptor to let you easily specify as many or
// as few of the notification functions as you want while still implementing
// ResourceEventHandler. This adapter does not remove the prohibition against
// modifying the objects.
//
// See ResourceEventHandlerDetailedFuncs if your use needs to propagate
// HasSynced.
type ResourceEventHandlerFuncs struct {
	// AddFunc receives every addition; nil ignores them.
	AddFunc func(obj interface{})
	// UpdateFunc receives every update; nil ignores them.
	UpdateFunc func(oldObj, newObj interface{})
	// DeleteFunc receives every deletion; nil ignores them.
	DeleteFunc func(obj interface{})
}

// OnAdd calls AddFunc if it's not nil.
func (r ResourceEventHandlerFuncs) OnAdd(obj interface{}, isInInitialList bool) {
	if r.AddFunc == nil {
		return
	}
	r.AddFunc(obj)
}

// OnUpdate calls UpdateFunc if it's not nil.
func (r ResourceEventHandlerFuncs) OnUpdate(oldObj, newObj interface{}) {
	if r.UpdateFunc == nil {
		return
	}
	r.UpdateFunc(oldObj, newObj)
}

// OnDelete calls DeleteFunc if it's not nil.
func (r ResourceEventHandlerFuncs) OnDelete(obj interface{}) {
	if r.DeleteFunc == nil {
		return
	}
	r.DeleteFunc(obj)
}

// ResourceEventHandlerDetailedFuncs is exactly like ResourceEventHandlerFuncs
// except its AddFunc accepts the isInInitialList parameter, for propagating
// HasSynced.
type ResourceEventHandlerDetailedFuncs struct {
	// AddFunc receives every addition and whether it belongs to the initial
	// list; nil ignores additions.
	AddFunc func(obj interface{}, isInInitialList bool)
	// UpdateFunc receives every update; nil ignores them.
	UpdateFunc func(oldObj, newObj interface{})
	// DeleteFunc receives every deletion; nil ignores them.
	DeleteFunc func(obj interface{})
}

// OnAdd calls AddFunc if it's not nil.
func (r ResourceEventHandlerDetailedFuncs) OnAdd(obj interface{}, isInInitialList bool) {
	if r.AddFunc == nil {
		return
	}
	r.AddFunc(obj, isInInitialList)
}

// OnUpdate calls UpdateFunc if it's not nil.
func (r ResourceEventHandlerDetailedFuncs) OnUpdate(oldObj, newObj interface{}) {
	if r.UpdateFunc == nil {
		return
	}
	r.UpdateFunc(oldObj, newObj)
}

// OnDelete calls DeleteFunc if it's not nil.
func (r ResourceEventHandlerDetailedFuncs) OnDelete(obj interface{}) {
	if r.DeleteFunc == nil {
		return
	}
	r.DeleteFunc(obj)
}

// FilteringResourceEventHandler applies the provided filter to all events
// coming in, ensuring the appropriate nested handler method is invoked. An
// object that starts passing the filter after an update is considered an add,
// and an object that stops passing the filter after an update is considered
// a delete. Like the handlers, the filter MUST NOT modify the objects it is
// given.
type FilteringResourceEventHandler struct {
	// FilterFunc decides whether an object is of interest to Handler.
	FilterFunc func(obj interface{}) bool
	// Handler receives the events that pass FilterFunc.
	Handler ResourceEventHandler
}

// OnAdd calls the nested handler only if the filter succeeds
func (r FilteringResourceEventHandler) OnAdd(obj interface{}, isInInitialList bool) {
	if r.FilterFunc(obj) {
		r.Handler.OnAdd(obj, isInInitialList)
	}
}

// OnUpdate ensures the proper handler is called depending on whether the
// filter matches: passing before and after is an update, passing only after
// is an add, passing only before is a delete of the old object.
func (r FilteringResourceEventHandler) OnUpdate(oldObj, newObj interface{}) {
	wasIn, isIn := r.FilterFunc(oldObj), r.FilterFunc(newObj)
	switch {
	case wasIn && isIn:
		r.Handler.OnUpdate(oldObj, newObj)
	case isIn:
		r.Handler.OnAdd(newObj, false)
	case wasIn:
		r.Handler.OnDelete(oldObj)
	}
}

// OnDelete calls the nested handler only if the filter succeeds
func (r FilteringResourceEventHandler) OnDelete(obj interface{}) {
	if r.FilterFunc(obj) {
		r.Handler.OnDelete(obj)
	}
}
