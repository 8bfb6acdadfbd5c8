package cache

// notificationKind says which handler method a notification is for.
type notificationKind uint8

const (
	// notifyAdd is delivered through OnAdd(newObj, initial).
	notifyAdd notificationKind = iota
	// notifyUpdate is delivered through OnUpdate(oldObj, newObj).
	notifyUpdate
	// notifyDelete is delivered through OnDelete(oldObj).
	notifyDelete
)

// notification is one event waiting for a handler. It is stored by value so
// that queueing it allocates nothing.
type notification struct {
	// oldObj is the previous object of an update or the deleted object.
	oldObj interface{}
	// newObj is the added object or the new object of an update.
	newObj interface{}
	// kind selects the handler method.
	kind notificationKind
	// initial is the isInInitialList flag of an add; false otherwise.
	initial bool
}

// deliverTo calls the handler method that matches the notification's kind.
// Updates come first: after the initial list they are the common case.
func (n *notification) deliverTo(handler ResourceEventHandler) {
	if n.kind == notifyUpdate {
		handler.OnUpdate(n.oldObj, n.newObj)
	} else if n.kind == notifyAdd {
		handler.OnAdd(n.newObj, n.initial)
	} else if n.kind == notifyDelete {
		handler.OnDelete(n.oldObj)
	}
}
