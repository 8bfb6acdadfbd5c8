package clientgo

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/informers/internalinterfaces"
	"k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/metadata/metadatainformer"
	clientgocache "k8s.io/client-go/tools/cache"

	"github.com/kcache-go/cache/internal/privatefield"
)

func TestEveryClientGoFieldTheFactoriesReadIsThereWithItsType(t *testing.T) {
	factory := informers.NewSharedInformerFactoryWithOptions(fake.NewClientset(), 0, informers.WithNamespace("ns"))
	informer := informers.NewSharedInformerFactory(fake.NewClientset(), 0).Core().V1().Pods().Informer()
	metadataFactory := metadatainformer.NewSharedInformerFactoryWithOptions(metadatafake.NewSimpleMetadataClient(runtime.NewScheme()), 0)
	var (
		namespace string
		lw        clientgocache.ListerWatcher
		example   runtime.Object
	)
	cases := []struct {
		name string
		read func() bool
		want bool
	}{
		{"the typed factory's namespace", func() (ok bool) { namespace, ok = privatefield.Read[string](factory, "namespace"); return }, true},
		{"the typed factory's tweak", readOf[internalinterfaces.TweakListOptionsFunc](factory, "tweakListOptions"), true},
		{"the typed factory's resync table", readOf[map[reflect.Type]time.Duration](factory, "customResync"), true},
		{"a typed informer's ListerWatcher", func() (ok bool) {
			lw, ok = privatefield.Read[clientgocache.ListerWatcher](informer, "listerWatcher")
			return
		}, true},
		{"a typed informer's object description", readOf[string](informer, "objectDescription"), true},
		{"a typed informer's default resync", readOf[time.Duration](informer, "defaultEventHandlerResyncPeriod"), true},
		{"a typed informer's transform", readOf[clientgocache.TransformFunc](informer, "transform"), true},
		{"a typed informer's example object", func() (ok bool) { example, ok = privatefield.Read[runtime.Object](informer, "objectType"); return }, true},
		{"a typed informer's watch-error handler", readOf[clientgocache.WatchErrorHandlerWithContext](informer, "watchErrorHandler"), true},
		{"a typed informer's identifier", readOf[clientgocache.InformerNameAndResource](informer, "identifier"), true},
		{"the metadata factory's transform", readOf[clientgocache.TransformFunc](metadataFactory, "transform"), true},
		{"a field of another type", readOf[int](factory, "namespace"), false},
		{"a missing field", readOf[string](factory, "noSuchField"), false},
		{"not a struct pointer", readOf[string](corev1.Pod{}, "Spec"), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.read(); got != tc.want {
				t.Errorf("read = %v, want %v", got, tc.want)
			}
		})
	}
	if _, isPod := example.(*corev1.Pod); namespace != "ns" || lw == nil || !isPod {
		t.Errorf("read namespace %q, ListerWatcher %v, example object %T", namespace, lw, example)
	}
	_, _ = informer.AddEventHandler(clientgocache.ResourceEventHandlerFuncs{})
	if n, ok := clientGoHandlerCount(informer); !ok || n != 1 {
		t.Errorf("a typed informer's event handlers (processor.listeners under processor.listenersLock): read %d, %v; want 1, true", n, ok)
	}
}

// readOf returns whether privatefield.Read[T](from, path...) finds the
// field.
func readOf[T any](from any, path ...string) func() bool {
	return func() bool {
		_, ok := privatefield.Read[T](from, path...)
		return ok
	}
}

func TestTheHandlersAddedToAClientGoInformerAreReadAsAdded(t *testing.T) {
	informer := informers.NewSharedInformerFactory(fake.NewClientset(), 0).Core().V1().Pods().Informer()
	handler := clientgocache.ResourceEventHandlerFuncs{AddFunc: func(interface{}) {}}
	reg, err := informer.AddEventHandlerWithResyncPeriod(handler, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if err := informer.SetWatchErrorHandler(func(*clientgocache.Reflector, error) {}); err != nil {
		t.Fatal(err)
	}
	handlers, onError, ok := installedHandlers(informer)
	if !ok || len(handlers) != 1 || onError == nil {
		t.Fatalf("installedHandlers = %v, watch-error handler set %v, ok %v", handlers, onError != nil, ok)
	}
	h := handlers[0]
	if h.registration != reg || h.resync != time.Hour || h.logger.GetSink() == nil {
		t.Errorf("read registration %v (want %v), resync %v, logger %v", h.registration, reg, h.resync, h.logger)
	}
	if _, isFuncs := h.handler.(clientgocache.ResourceEventHandlerFuncs); !isFuncs {
		t.Errorf("read handler %T, want the ResourceEventHandlerFuncs added", h.handler)
	}
}
