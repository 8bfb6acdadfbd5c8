package cache

// UndeltaStore turns incremental changes into full snapshots: after every
// successful Add, Update, Delete or Replace on the embedded Store it calls
// PushFunc with the complete current content. Used as a Reflector's store,
// it lets a consumer that only understands whole states follow a watch.
//
// Every successful change is followed by exactly one push. The write and
// the List behind the push take the Store's lock separately, so two
// concurrent changes can both push the state that contains both: PushFunc
// may see the same state twice and must be safe for concurrent calls.
// A change the Store rejects (its error is returned) pushes nothing;
// Bookmark and Resync push nothing either.
type UndeltaStore struct {
	Store
	PushFunc func([]interface{})
}

var _ Store = &UndeltaStore{}

// Add stores obj, then pushes the complete state.
func (u *UndeltaStore) Add(obj interface{}) error {
	return u.pushAfter(u.Store.Add(obj))
}

// Update stores the new version of obj, then pushes the complete state.
func (u *UndeltaStore) Update(obj interface{}) error {
	return u.pushAfter(u.Store.Update(obj))
}

// Delete removes obj, then pushes the complete state.
func (u *UndeltaStore) Delete(obj interface{}) error {
	return u.pushAfter(u.Store.Delete(obj))
}

// Replace makes list (now owned by the store) the whole content, then
// pushes the complete state.
func (u *UndeltaStore) Replace(list []interface{}, resourceVersion string) error {
	return u.pushAfter(u.Store.Replace(list, resourceVersion))
}

// pushAfter pushes the complete state when the change that produced
// changeErr succeeded, and returns changeErr.
func (u *UndeltaStore) pushAfter(changeErr error) error {
	if changeErr != nil {
		return changeErr
	}
	u.PushFunc(u.Store.List())
	return nil
}

// NewUndeltaStore returns an UndeltaStore over a new NewStore(keyFunc) that
// pushes to pushFunc.
func NewUndeltaStore(pushFunc func([]interface{}), keyFunc KeyFunc) *UndeltaStore {
	return &UndeltaStore{Store: NewStore(keyFunc), PushFunc: pushFunc}
}
