package cache

// FakeCustomStore is a test double whose store methods call the functions
// set in its fields.
//
// Each method calls the matching func field; when that field is nil it does
// nothing and returns zero values (nil error, nil list, exists=false, "").
// With Bookmark and LastStoreSyncResourceVersion (client-go v0.36.6) it is
// a Store.
type FakeCustomStore struct {
	AddFunc                          func(any) error                 // backs Add
	UpdateFunc                       func(any) error                 // backs Update
	DeleteFunc                       func(any) error                 // backs Delete
	ListFunc                         func() []any                    // backs List
	ListKeysFunc                     func() []string                 // backs ListKeys
	GetFunc                          func(any) (any, bool, error)    // backs Get
	GetByKeyFunc                     func(string) (any, bool, error) // backs GetByKey
	ReplaceFunc                      func([]any, string) error       // backs Replace
	ResyncFunc                       func() error                    // backs Resync
	BookmarkFunc                     func(rv string)                 // backs Bookmark
	LastStoreSyncResourceVersionFunc func() string                   // backs LastStoreSyncResourceVersion
}

var _ Store = &FakeCustomStore{}

// Add returns AddFunc's result, or zero values when AddFunc is nil.
func (f *FakeCustomStore) Add(obj interface{}) error {
	if f.AddFunc == nil {
		return nil
	}
	return f.AddFunc(obj)
}

// Update returns UpdateFunc's result, or zero values when UpdateFunc is nil.
func (f *FakeCustomStore) Update(obj interface{}) error {
	if f.UpdateFunc == nil {
		return nil
	}
	return f.UpdateFunc(obj)
}

// Delete returns DeleteFunc's result, or zero values when DeleteFunc is nil.
func (f *FakeCustomStore) Delete(obj interface{}) error {
	if f.DeleteFunc == nil {
		return nil
	}
	return f.DeleteFunc(obj)
}

// List returns ListFunc's result, or zero values when ListFunc is nil.
func (f *FakeCustomStore) List() []interface{} {
	if f.ListFunc == nil {
		return nil
	}
	return f.ListFunc()
}

// ListKeys returns ListKeysFunc's result, or zero values when ListKeysFunc is nil.
func (f *FakeCustomStore) ListKeys() []string {
	if f.ListKeysFunc == nil {
		return nil
	}
	return f.ListKeysFunc()
}

// Get returns GetFunc's result, or zero values when GetFunc is nil.
func (f *FakeCustomStore) Get(obj interface{}) (item interface{}, exists bool, err error) {
	if f.GetFunc == nil {
		return nil, false, nil
	}
	return f.GetFunc(obj)
}

// GetByKey returns GetByKeyFunc's result, or zero values when GetByKeyFunc is nil.
func (f *FakeCustomStore) GetByKey(key string) (item interface{}, exists bool, err error) {
	if f.GetByKeyFunc == nil {
		return nil, false, nil
	}
	return f.GetByKeyFunc(key)
}

// Replace returns ReplaceFunc's result, or zero values when ReplaceFunc is nil.
func (f *FakeCustomStore) Replace(list []interface{}, resourceVersion string) error {
	if f.ReplaceFunc == nil {
		return nil
	}
	return f.ReplaceFunc(list, resourceVersion)
}

// Resync returns ResyncFunc's result, or zero values when ResyncFunc is nil.
func (f *FakeCustomStore) Resync() error {
	if f.ResyncFunc == nil {
		return nil
	}
	return f.ResyncFunc()
}

// Bookmark calls BookmarkFunc, or does nothing when it is nil.
func (f *FakeCustomStore) Bookmark(rv string) {
	if f.BookmarkFunc != nil {
		f.BookmarkFunc(rv)
	}
}

// LastStoreSyncResourceVersion returns LastStoreSyncResourceVersionFunc's
// result, or "" when it is nil.
func (f *FakeCustomStore) LastStoreSyncResourceVersion() string {
	if f.LastStoreSyncResourceVersionFunc == nil {
		return ""
	}
	return f.LastStoreSyncResourceVersionFunc()
}
