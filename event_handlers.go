package cache

// ResourceEventHandler receives the notifications of an informer. They
// only inform: a handler cannot fail them. A handler must never modify an
// object it receives, nor anything reachable from it.
//
//   - OnAdd: an object appeared; isInInitialList says it belongs to the
//     initial list (or, for a handler added late, to the cache as found).
//   - OnUpdate: an object changed. oldObj is the previous cached state, so
//     intermediate states may be skipped. Relists and resyncs also call it,
//     possibly with an unchanged object.
//   - OnDelete: an object went away. It receives the last known state, or
//     a DeletedFinalStateUnknown when the deletion was only noticed by a
//     relist after the watch missed it.
type ResourceEventHandler interface {
	OnDelete(obj any)
	OnUpdate(oldObj, newObj any)
	OnAdd(obj any, isInInitialList bool)
}

// ResourceEventHandlerFuncs is a ResourceEventHandler made of optional
// functions; a nil function ignores its notifications. The objects must
// still not be modified. Its AddFunc does not learn isInInitialList; use
// ResourceEventHandlerDetailedFuncs for that.
type ResourceEventHandlerFuncs struct {
	AddFunc    func(any)      // receives every addition; nil ignores them
	UpdateFunc func(any, any) // receives every update (old, new); nil ignores them
	DeleteFunc func(any)      // receives every deletion; nil ignores them
}

// OnAdd passes the notification to AddFunc, if set.
func (r ResourceEventHandlerFuncs) OnAdd(obj interface{}, isInInitialList bool) {
	callIfSet(r.AddFunc, obj)
}

// OnUpdate passes the notification to UpdateFunc, if set.
func (r ResourceEventHandlerFuncs) OnUpdate(oldObj, newObj interface{}) {
	callIfSet2(r.UpdateFunc, oldObj, newObj)
}

// OnDelete passes the notification to DeleteFunc, if set.
func (r ResourceEventHandlerFuncs) OnDelete(obj interface{}) {
	callIfSet(r.DeleteFunc, obj)
}

// ResourceEventHandlerDetailedFuncs is ResourceEventHandlerFuncs whose
// AddFunc also receives isInInitialList.
type ResourceEventHandlerDetailedFuncs struct {
	AddFunc    func(any, bool) // receives every addition and isInInitialList; nil ignores them
	UpdateFunc func(any, any)  // receives every update (old, new); nil ignores them
	DeleteFunc func(any)       // receives every deletion; nil ignores them
}

// OnAdd passes the notification to AddFunc, if set.
func (r ResourceEventHandlerDetailedFuncs) OnAdd(obj interface{}, isInInitialList bool) {
	callIfSet2(r.AddFunc, obj, isInInitialList)
}

// OnUpdate passes the notification to UpdateFunc, if set.
func (r ResourceEventHandlerDetailedFuncs) OnUpdate(oldObj, newObj interface{}) {
	callIfSet2(r.UpdateFunc, oldObj, newObj)
}

// OnDelete passes the notification to DeleteFunc, if set.
func (r ResourceEventHandlerDetailedFuncs) OnDelete(obj interface{}) {
	callIfSet(r.DeleteFunc, obj)
}

// callIfSet calls f with a unless f is nil: how the *Funcs handlers of this
// package ignore the notifications they have no function for.
func callIfSet[A any](f func(A), a A) {
	if f != nil {
		f(a)
	}
}

// callIfSet2 is callIfSet for a function of two arguments.
func callIfSet2[A, B any](f func(A, B), a A, b B) {
	if f != nil {
		f(a, b)
	}
}

// FilteringResourceEventHandler passes to Handler only the notifications
// about objects FilterFunc accepts. An update whose object starts to pass
// the filter reaches Handler as an add, one whose object stops passing as a
// delete of the old object. FilterFunc must not modify the objects either.
type FilteringResourceEventHandler struct {
	FilterFunc func(any) bool       // decides whether an object is of interest to Handler
	Handler    ResourceEventHandler // receives the notifications that pass FilterFunc
}

// OnAdd passes obj to Handler.OnAdd when FilterFunc accepts it.
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

// OnDelete passes obj to Handler.OnDelete when FilterFunc accepts it.
func (r FilteringResourceEventHandler) OnDelete(obj interface{}) {
	if r.FilterFunc(obj) {
		r.Handler.OnDelete(obj)
	}
}
