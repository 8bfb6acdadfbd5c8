package clientgo

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes/fake"
	clientgocache "k8s.io/client-go/tools/cache"

	"github.com/kcache-go/cache/internal/privatefield"
)

func TestOnKcacheReturnsInformersItCannotTakeOverUnchanged(t *testing.T) {
	view := NewSharedIndexInformer(&clientgocache.ListWatch{}, &corev1.Pod{}, 0, nil)
	other := &recordingInformer{SharedIndexInformer: clientgocache.NewSharedIndexInformer(&clientgocache.ListWatch{}, &corev1.Pod{}, 0, nil)}
	cases := []struct {
		name  string
		built clientgocache.SharedIndexInformer
	}{
		{"nil", nil},
		{"a view of a kcache informer", view},
		{"an informer of another type", other},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := OnKcache(tc.built); got != tc.built {
				t.Errorf("OnKcache(%T) = %T %p, want the same informer", tc.built, got, got)
			}
		})
	}
}

func TestOnKcacheGivesAKcacheInformerOfTheBuiltInformersObjects(t *testing.T) {
	cases := []struct {
		name    string
		built   func() clientgocache.SharedIndexInformer
		example runtime.Object
	}{
		{"a typed constructor's informer", func() clientgocache.SharedIndexInformer {
			return coreinformers.NewConfigMapInformer(fake.NewClientset(), "ns", 0, nil)
		}, &corev1.ConfigMap{}},
		{"cache.NewSharedIndexInformer's informer", func() clientgocache.SharedIndexInformer {
			return clientgocache.NewSharedIndexInformer(&clientgocache.ListWatch{}, &corev1.Node{}, 0, nil)
		}, &corev1.Node{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k, ok := KcacheInformer(OnKcache(tc.built()))
			if !ok {
				t.Fatal("OnKcache did not give a kcache informer")
			}
			example, ok := privatefield.Read[runtime.Object](k, "objectType")
			if !ok {
				t.Fatalf("kcache informer %T has no objectType", k)
			}
			if reflect.TypeOf(example) != reflect.TypeOf(tc.example) {
				t.Errorf("kcache informer of %T, want %T", example, tc.example)
			}
		})
	}
}
