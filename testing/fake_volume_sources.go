package framework

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// FakePVControllerSource is a FakeControllerSource whose List returns a
// *v1.PersistentVolumeList.
type FakePVControllerSource struct {
	FakeControllerSource
}

// FakePVCControllerSource is a FakeControllerSource whose List returns a
// *v1.PersistentVolumeClaimList.
type FakePVCControllerSource struct {
	FakeControllerSource
}

// NewFakePVControllerSource returns an empty PersistentVolume source.
func NewFakePVControllerSource() *FakePVControllerSource {
	return &FakePVControllerSource{FakeControllerSource: *NewFakeControllerSource()}
}

// NewFakePVCControllerSource returns an empty PersistentVolumeClaim source.
func NewFakePVCControllerSource() *FakePVCControllerSource {
	return &FakePVCControllerSource{FakeControllerSource: *NewFakeControllerSource()}
}

// List returns a *v1.PersistentVolumeList of deep copies at the current
// resource version. ListError is not consulted. A stored object that is not
// a PersistentVolume makes it fail with (nil, error).
func (f *FakePVControllerSource) List(options metav1.ListOptions) (runtime.Object, error) {
	return f.listInto(&v1.PersistentVolumeList{})
}

// List returns a *v1.PersistentVolumeClaimList at the current resource
// version, of deep copies. ListError is not consulted.
// A stored object that is not a PersistentVolumeClaim makes it fail with
// (nil, error).
func (f *FakePVCControllerSource) List(options metav1.ListOptions) (runtime.Object, error) {
	return f.listInto(&v1.PersistentVolumeClaimList{})
}
