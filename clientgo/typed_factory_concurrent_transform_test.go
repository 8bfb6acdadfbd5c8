package clientgo

import (
	"net/http"
	"testing"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/informers/core"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clientgocache "k8s.io/client-go/tools/cache"

	"github.com/kcache-go/cache/fastlw"
	"github.com/kcache-go/cache/internal/privatefield"
)

// TestWithConcurrentTransformTheTypedFactoryHandsItsTransformToFastlw
// builds the typed factory with a transform, with and without
// WithConcurrentTransform: only with it does the factory mark itself so,
// and a fastlw ListerWatcher built for it carries the transform as its
// Config.Transform (none when given none).
func TestWithConcurrentTransformTheTypedFactoryHandsItsTransformToFastlw(t *testing.T) {
	tf := func(obj interface{}) (interface{}, error) { return obj, nil }
	cases := []struct {
		name    string
		options []informers.SharedInformerOption
		want    bool
	}{
		{"WithTransform alone: the queue only", []informers.SharedInformerOption{informers.WithTransform(tf)}, false},
		{"WithTransform and WithConcurrentTransform: fastlw too",
			[]informers.SharedInformerOption{informers.WithTransform(tf), WithConcurrentTransform()}, true},
		{"WithConcurrentTransform first", []informers.SharedInformerOption{WithConcurrentTransform(), informers.WithTransform(tf)}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cs, err := kubernetes.NewForConfigAndClient(&rest.Config{Host: "http://kcache.invalid"}, &http.Client{Transport: &failingTransport{}})
			if err != nil {
				t.Fatal(err)
			}
			f := NewSharedInformerFactoryWithOptions(cs, time.Minute, c.options...).(*kcacheTypedFactory)
			if f.concurrentTransform != c.want {
				t.Fatalf("concurrentTransform %v, want %v", f.concurrentTransform, c.want)
			}
			rec := &newFuncRecorder{}
			core.New(rec.args()).V1().Pods().Informer()
			built := rec.newFunc(cs, time.Minute)
			plain, ok := privatefield.Read[clientgocache.ListerWatcher](built, "listerWatcher")
			if !ok {
				t.Fatal("cannot read the ListerWatcher client-go built")
			}
			for _, early := range []clientgocache.TransformFunc{nil, tf} {
				lw, ok := f.fastListerWatcher(rec.newFunc, built, plain, early)
				cfg, readOK := privatefield.Read[fastlw.Config](lw, "cfg")
				if !ok || !readOK {
					t.Fatal("no fastlw ListerWatcher, or its Config cannot be read")
				}
				if (cfg.Transform != nil) != (early != nil) {
					t.Fatalf("Config.Transform set %v, want %v", cfg.Transform != nil, early != nil)
				}
			}
		})
	}
}
