package cache

// TypedResourceEventHandler is ResourceEventHandler for objects of type T:
// the informer's notifications arrive as T, and deletions as a
// DeletedObject[T] that also covers objects whose final state is unknown.
type TypedResourceEventHandler[T Object] interface {
	OnAdd(obj T, isInInitialList bool)
	OnUpdate(oldObj, newObj T)
	OnDelete(obj DeletedObject[T])
}

// TypedResourceEventHandlerFuncs is ResourceEventHandlerFuncs for objects of
// type T: each notification calls the matching function; a nil function
// ignores its notifications.
type TypedResourceEventHandlerFuncs[T Object] struct {
	AddFunc    func(obj T)                // receives every addition; nil ignores them
	UpdateFunc func(oldObj, newObj T)     // receives every update (old, new); nil ignores them
	DeleteFunc func(obj DeletedObject[T]) // receives every deletion; nil ignores them
}

// OnAdd passes the notification to AddFunc, if set.
func (r TypedResourceEventHandlerFuncs[T]) OnAdd(obj T, isInInitialList bool) {
	callIfSet(r.AddFunc, obj)
}

// OnUpdate passes the notification to UpdateFunc, if set.
func (r TypedResourceEventHandlerFuncs[T]) OnUpdate(oldObj, newObj T) {
	callIfSet2(r.UpdateFunc, oldObj, newObj)
}

// OnDelete passes the notification to DeleteFunc, if set.
func (r TypedResourceEventHandlerFuncs[T]) OnDelete(obj DeletedObject[T]) {
	callIfSet(r.DeleteFunc, obj)
}

// TypedResourceEventHandlerDetailedFuncs is TypedResourceEventHandlerFuncs
// whose AddFunc also receives isInInitialList.
type TypedResourceEventHandlerDetailedFuncs[T Object] struct {
	AddFunc    func(obj T, isInInitialList bool) // receives every addition; nil ignores them
	UpdateFunc func(oldObj, newObj T)            // receives every update (old, new); nil ignores them
	DeleteFunc func(obj DeletedObject[T])        // receives every deletion; nil ignores them
}

// OnAdd passes the notification to AddFunc, if set.
func (r TypedResourceEventHandlerDetailedFuncs[T]) OnAdd(obj T, isInInitialList bool) {
	callIfSet2(r.AddFunc, obj, isInInitialList)
}

// OnUpdate passes the notification to UpdateFunc, if set.
func (r TypedResourceEventHandlerDetailedFuncs[T]) OnUpdate(oldObj, newObj T) {
	callIfSet2(r.UpdateFunc, oldObj, newObj)
}

// OnDelete passes the notification to DeleteFunc, if set.
func (r TypedResourceEventHandlerDetailedFuncs[T]) OnDelete(obj DeletedObject[T]) {
	callIfSet(r.DeleteFunc, obj)
}

// TypedFilteringResourceEventHandler is FilteringResourceEventHandler for
// objects of type T: Handler only hears about objects FilterFunc accepts.
// Both must be set (a nil one panics at the first notification).
type TypedFilteringResourceEventHandler[T Object] struct {
	FilterFunc func(obj T) bool             // decides whether an object is of interest to Handler
	Handler    TypedResourceEventHandler[T] // receives the notifications of accepted objects
}

// OnAdd passes the addition on when FilterFunc accepts obj.
func (r TypedFilteringResourceEventHandler[T]) OnAdd(obj T, isInInitialList bool) {
	if r.FilterFunc(obj) {
		r.Handler.OnAdd(obj, isInInitialList)
	}
}

// OnUpdate passes on an update when FilterFunc accepts both objects, an
// addition (isInInitialList false) when it accepts only newObj, and a
// deletion of oldObj (final state known) when it accepts only oldObj.
func (r TypedFilteringResourceEventHandler[T]) OnUpdate(oldObj, newObj T) {
	oldWanted, newWanted := r.FilterFunc(oldObj), r.FilterFunc(newObj)
	switch {
	case newWanted && oldWanted:
		r.Handler.OnUpdate(oldObj, newObj)
	case newWanted:
		r.Handler.OnAdd(newObj, false)
	case oldWanted:
		r.Handler.OnDelete(DeletedObject[T]{OptionalObj: oldObj})
	}
}

// OnDelete passes the deletion on when FilterFunc accepts
// obj.OptionalObj, which is the zero T when the deleted object was not
// recovered: a FilterFunc must then cope with that zero value.
func (r TypedFilteringResourceEventHandler[T]) OnDelete(obj DeletedObject[T]) {
	if r.FilterFunc(obj.OptionalObj) {
		r.Handler.OnDelete(obj)
	}
}

// typedResourceEventHandler is the ResourceEventHandler through which a
// TypedResourceEventHandler is registered with an untyped informer. Each
// notification costs one type assertion and no allocation, except for a
// tombstone, whose copy FinalStateUnknown points to.
//
// An object that is not a T (nor, for deletions, a DeletedFinalStateUnknown
// holding a T or nil) panics with the runtime's type assertion error, as in
// client-go.
type typedResourceEventHandler[T Object] struct {
	// handler receives the converted notifications.
	handler TypedResourceEventHandler[T]
}

// OnAdd hands obj on as a T.
func (h *typedResourceEventHandler[T]) OnAdd(obj interface{}, isInInitialList bool) {
	h.handler.OnAdd(obj.(T), isInInitialList)
}

// OnUpdate hands both objects on as T.
func (h *typedResourceEventHandler[T]) OnUpdate(oldObj, newObj interface{}) {
	h.handler.OnUpdate(oldObj.(T), newObj.(T))
}

// OnDelete hands obj on as a DeletedObject: a T as its final state, a
// DeletedFinalStateUnknown as FinalStateUnknown plus the T it holds (the
// zero T when it holds nil).
func (h *typedResourceEventHandler[T]) OnDelete(obj interface{}) {
	if tombstone, isTombstone := obj.(DeletedFinalStateUnknown); isTombstone {
		h.onDeleteTombstone(tombstone)
		return
	}
	h.handler.OnDelete(DeletedObject[T]{OptionalObj: obj.(T)})
}

// onDeleteTombstone delivers a tombstone. NB: a separate function, so that
// only tombstones pay for the copy FinalStateUnknown points to; taking the
// address in OnDelete itself would move every deletion's variable to the
// heap.
func (h *typedResourceEventHandler[T]) onDeleteTombstone(tombstone DeletedFinalStateUnknown) {
	deleted := DeletedObject[T]{FinalStateUnknown: &tombstone}
	if tombstone.Obj != nil {
		deleted.OptionalObj = tombstone.Obj.(T)
	}
	h.handler.OnDelete(deleted)
}
