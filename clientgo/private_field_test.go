package clientgo

import (
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
)

func TestEveryClientGoFieldTheFactoriesReadIsThereWithItsType(t *testing.T) {
	factory := informers.NewSharedInformerFactoryWithOptions(fake.NewClientset(), 0, informers.WithNamespace("ns"))
	informer := informers.NewSharedInformerFactory(fake.NewClientset(), 0).Core().V1().Pods().Informer()
	metadataFactory := metadatainformer.NewSharedInformerFactoryWithOptions(metadatafake.NewSimpleMetadataClient(runtime.NewScheme()), 0)
	var (
		namespace   string
		tweak       internalinterfaces.TweakListOptionsFunc
		lw          clientgocache.ListerWatcher
		description string
		transform   clientgocache.TransformFunc
		wrongType   int
		resync      time.Duration
		example     runtime.Object
		onError     clientgocache.WatchErrorHandlerWithContext
	)
	cases := []struct {
		name  string
		from  any
		field string
		into  any
		want  bool
	}{
		{"the typed factory's namespace", factory, "namespace", &namespace, true},
		{"the typed factory's tweak", factory, "tweakListOptions", &tweak, true},
		{"a typed informer's ListerWatcher", informer, "listerWatcher", &lw, true},
		{"a typed informer's object description", informer, "objectDescription", &description, true},
		{"a typed informer's default resync", informer, "defaultEventHandlerResyncPeriod", &resync, true},
		{"a typed informer's transform", informer, "transform", &transform, true},
		{"a typed informer's example object", informer, "objectType", &example, true},
		{"a typed informer's watch-error handler", informer, "watchErrorHandler", &onError, true},
		{"the metadata factory's transform", metadataFactory, "transform", &transform, true},
		{"a field of another type", factory, "namespace", &wrongType, false},
		{"a missing field", factory, "noSuchField", &namespace, false},
		{"not a struct pointer", corev1.Pod{}, "Spec", &namespace, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := readPrivateField(tc.from, tc.field, tc.into); got != tc.want {
				t.Errorf("readPrivateField = %v, want %v", got, tc.want)
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
