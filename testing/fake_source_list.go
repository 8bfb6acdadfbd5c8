package framework

import (
	"strconv"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// List returns a *v1.List at the current resource version whose items are
// deep copies of the stored objects, in no particular order. It returns
// (nil, ListError) when ListError is set.
func (f *FakeControllerSource) List(options metav1.ListOptions) (runtime.Object, error) {
	if f.ListError != nil {
		return nil, f.ListError
	}
	return f.listInto(&v1.List{})
}

// listInto fills list (a pointer to a list type) with deep copies of the
// stored objects and stamps it with the current resource version. It fails
// when an object cannot be an item of that list type.
func (f *FakeControllerSource) listInto(list runtime.Object) (runtime.Object, error) {
	copies, rv := f.snapshot()
	err := meta.SetList(list, copies)
	if err == nil {
		err = stampListVersion(list, rv)
	}
	if err != nil {
		return nil, err
	}
	return list, nil
}

// snapshot returns deep copies of the stored objects, in map order, and the
// current resource version, read together under the lock.
func (f *FakeControllerSource) snapshot() ([]runtime.Object, string) {
	f.lock.RLock()
	defer f.lock.RUnlock()
	copies := make([]runtime.Object, 0, len(f.Items))
	for _, obj := range f.Items {
		copies = append(copies, obj.DeepCopyObject())
	}
	return copies, strconv.Itoa(f.lastRV)
}

// stampListVersion sets the resource version of a list object.
func stampListVersion(list runtime.Object, rv string) error {
	accessor, err := meta.ListAccessor(list)
	if err == nil {
		accessor.SetResourceVersion(rv)
	}
	return err
}
