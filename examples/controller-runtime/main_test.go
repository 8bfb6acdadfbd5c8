package main

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kcache-go/cache/clientgo"
)

func TestTheManagerOptionsBuildKcacheInformers(t *testing.T) {
	newInformer := managerOptions().Cache.NewInformer
	if newInformer == nil {
		t.Fatal("no NewInformer option")
	}
	if reflect.ValueOf(newInformer).Pointer() != reflect.ValueOf(clientgo.NewSharedIndexInformer).Pointer() {
		t.Error("NewInformer is not clientgo.NewSharedIndexInformer")
	}
	inf := newInformer(&cache.ListWatch{}, &corev1.ConfigMap{}, 0, cache.Indexers{})
	if _, ok := clientgo.KcacheInformer(inf); !ok {
		t.Errorf("NewInformer built %T, not a kcache informer", inf)
	}
}
