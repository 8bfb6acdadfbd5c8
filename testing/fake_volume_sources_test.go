package framework

import (
	"errors"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestVolumeSourcesListTypedListsAndIgnoreListError(t *testing.T) {
	cases := []struct {
		name   string
		source func(t *testing.T) (*FakeControllerSource, func() (runtime.Object, error))
		obj    runtime.Object
		count  func(runtime.Object) (string, int, bool)
	}{
		{
			name: "persistent volumes",
			source: func(t *testing.T) (*FakeControllerSource, func() (runtime.Object, error)) {
				s := NewFakePVControllerSource()
				t.Cleanup(s.Shutdown)
				return &s.FakeControllerSource, func() (runtime.Object, error) { return s.List(metav1.ListOptions{}) }
			},
			obj: &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv"}},
			count: func(o runtime.Object) (string, int, bool) {
				l, ok := o.(*v1.PersistentVolumeList)
				if !ok {
					return "", 0, false
				}
				return l.ResourceVersion, len(l.Items), l.Items != nil
			},
		},
		{
			name: "persistent volume claims",
			source: func(t *testing.T) (*FakeControllerSource, func() (runtime.Object, error)) {
				s := NewFakePVCControllerSource()
				t.Cleanup(s.Shutdown)
				return &s.FakeControllerSource, func() (runtime.Object, error) { return s.List(metav1.ListOptions{}) }
			},
			obj: &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pvc"}},
			count: func(o runtime.Object) (string, int, bool) {
				l, ok := o.(*v1.PersistentVolumeClaimList)
				if !ok {
					return "", 0, false
				}
				return l.ResourceVersion, len(l.Items), l.Items != nil
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base, list := tc.source(t)
			got, err := list()
			if rv, n, nonNil := tc.count(got); err != nil || rv != "0" || n != 0 || !nonNil {
				t.Fatalf("empty list = (%T rv=%q n=%d nonNil=%v, %v)", got, rv, n, nonNil, err)
			}
			base.Add(tc.obj)
			base.ListError = errors.New("ignored by typed lists")
			got, err = list()
			if rv, n, _ := tc.count(got); err != nil || rv != "1" || n != 1 {
				t.Fatalf("list = (%T rv=%q n=%d, %v), want rv 1 with 1 item", got, rv, n, err)
			}
			base.Add(pod("intruder"))
			got, err = list()
			if got != nil || err == nil || !strings.Contains(err.Error(), "can't assign or convert v1.Pod into") {
				t.Fatalf("list with a pod stored = (%v, %v), want (nil, conversion error)", got, err)
			}
		})
	}
}
