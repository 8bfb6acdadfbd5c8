package clientgo

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	clientgocache "k8s.io/client-go/tools/cache"

	"github.com/kcache-go/cache/internal/privatefield"
)

type typedFactoryConstructor func(kubernetes.Interface, time.Duration, ...informers.SharedInformerOption) informers.SharedInformerFactory

func TestForResourceRefusesEveryResourceClientGosForResourceRefuses(t *testing.T) {
	cases := []struct {
		name string
		gvr  schema.GroupVersionResource
	}{
		{"a look-alike group with a known first label", schema.GroupVersionResource{Group: "apps.example.com", Version: "v1", Resource: "deployments"}},
		{"the core group spelt core", schema.GroupVersionResource{Group: "core", Version: "v1", Resource: "pods"}},
		{"a version in capitals", schema.GroupVersionResource{Version: "V1", Resource: "pods"}},
		{"a resource in capitals", schema.GroupVersionResource{Version: "v1", Resource: "Pods"}},
		{"a group shortened to its first label", schema.GroupVersionResource{Group: "rbac", Version: "v1", Resource: "roles"}},
		{"the apiserverinternal group by its accessor's name", schema.GroupVersionResource{Group: "internal", Version: "v1alpha1", Resource: "storageversions"}},
		{"an empty resource", schema.GroupVersionResource{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, wantErr := informers.NewSharedInformerFactory(fake.NewClientset(), 0).ForResource(tc.gvr)
			ours := NewSharedInformerFactory(fake.NewClientset(), 0)
			g, gotErr := ours.ForResource(tc.gvr)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Errorf("ForResource(%v) error = %v, client-go gives %v", tc.gvr, gotErr, wantErr)
			}
			if wantErr != nil && g != nil {
				t.Errorf("ForResource(%v) = %v with an error, client-go gives nil", tc.gvr, g)
			}
			// A refused resource builds nothing: the factory has no informer to sync.
			ctx, cancel := context.WithCancel(context.Background())
			ours.Start(ctx.Done())
			if synced := ours.WaitForCacheSync(ctx.Done()); wantErr != nil && len(synced) != 0 {
				t.Errorf("a refused ForResource left informers %v", synced)
			}
			cancel()
			ours.Shutdown()
		})
	}
}

// recordingInformer is an informer a caller's newFunc returns that is
// neither client-go's nor a kcache view; it records SetTransform calls.
type recordingInformer struct {
	clientgocache.SharedIndexInformer
	transforms int
}

func (r *recordingInformer) SetTransform(clientgocache.TransformFunc) error {
	r.transforms++
	return nil
}

func TestInformerForInstallsTheFactoryTransformOnAnyInformerAsClientGo(t *testing.T) {
	transform := informers.WithTransform(func(obj interface{}) (interface{}, error) { return obj, nil })
	for _, withTransform := range []bool{true, false} {
		t.Run(fmt.Sprintf("transform %v", withTransform), func(t *testing.T) {
			count := func(newFactory typedFactoryConstructor) int {
				var opts []informers.SharedInformerOption
				if withTransform {
					opts = append(opts, transform)
				}
				f := newFactory(fake.NewClientset(), 0, opts...)
				rec := &recordingInformer{SharedIndexInformer: clientgocache.NewSharedIndexInformer(&clientgocache.ListWatch{}, &corev1.Pod{}, 0, nil)}
				if got := f.InformerFor(&corev1.Pod{}, func(kubernetes.Interface, time.Duration) clientgocache.SharedIndexInformer { return rec }); got != clientgocache.SharedIndexInformer(rec) {
					t.Errorf("InformerFor = %T, want the newFunc's informer", got)
				}
				return rec.transforms
			}
			if got, want := count(NewSharedInformerFactoryWithOptions), count(informers.NewSharedInformerFactoryWithOptions); got != want {
				t.Errorf("SetTransform called %d times, client-go calls it %d times", got, want)
			}
		})
	}
}

// defaultResyncOf reads the default handler resync of the informer (client-go's
// or, behind a view, kcache's; both name the field alike).
func defaultResyncOf(t *testing.T, inf clientgocache.SharedIndexInformer) time.Duration {
	t.Helper()
	var target any = inf
	if k, ok := KcacheInformer(inf); ok {
		target = k
	}
	d, ok := privatefield.Read[time.Duration](target, "defaultEventHandlerResyncPeriod")
	if !ok {
		t.Fatalf("no resync field in %T", target)
	}
	return d
}

func TestInformerForKeepsTheResyncTheNewFuncChoseAsClientGo(t *testing.T) {
	newFunc := func(c kubernetes.Interface, _ time.Duration) clientgocache.SharedIndexInformer {
		return informers.NewSharedInformerFactory(c, 0).Core().V1().ConfigMaps().Informer() // built with its own resync
	}
	ownResync := func(c kubernetes.Interface, _ time.Duration) clientgocache.SharedIndexInformer {
		return clientgocache.NewSharedIndexInformer(&clientgocache.ListWatch{}, &corev1.ConfigMap{}, 7*time.Minute, nil)
	}
	for name, fn := range map[string]func(kubernetes.Interface, time.Duration) clientgocache.SharedIndexInformer{"factory-built": newFunc, "own resync": ownResync} {
		t.Run(name, func(t *testing.T) {
			get := func(newFactory typedFactoryConstructor) time.Duration {
				return defaultResyncOf(t, newFactory(fake.NewClientset(), time.Minute).InformerFor(&corev1.ConfigMap{}, fn))
			}
			if got, want := get(NewSharedInformerFactoryWithOptions), get(informers.NewSharedInformerFactoryWithOptions); got != want {
				t.Errorf("resync %v, client-go's informer has %v", got, want)
			}
		})
	}
}

func TestInformerForCachesByTypeAsClientGo(t *testing.T) {
	for name, newFactory := range map[string]typedFactoryConstructor{"client-go": informers.NewSharedInformerFactoryWithOptions, "kcache": NewSharedInformerFactoryWithOptions} {
		t.Run(name, func(t *testing.T) {
			f := newFactory(fake.NewClientset(), 0)
			calls := 0
			fn := func(c kubernetes.Interface, r time.Duration) clientgocache.SharedIndexInformer {
				calls++
				return informers.NewSharedInformerFactory(c, r).Core().V1().Pods().Informer()
			}
			a := f.InformerFor(&corev1.Pod{}, fn)
			b := f.InformerFor(&corev1.Pod{}, fn)
			if a != b || calls != 1 || f.Core().V1().Pods().Informer() != a {
				t.Errorf("same type: %p %p, newFunc called %d times", a, b, calls)
			}
		})
	}
}

func TestShutdownWaitsForEveryInformerGoroutine(t *testing.T) {
	for name, newFactory := range map[string]typedFactoryConstructor{"client-go": informers.NewSharedInformerFactoryWithOptions, "kcache": NewSharedInformerFactoryWithOptions} {
		t.Run(name, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			f := newFactory(fake.NewClientset(&corev1.Pod{}), 0)
			f.Core().V1().Pods().Informer()
			ctx, cancel := context.WithCancel(context.Background())
			f.Start(ctx.Done())
			f.Start(ctx.Done())
			f.WaitForCacheSync(ctx.Done())
			f.Core().V1().ConfigMaps().Informer() // requested after Start
			f.StartWithContext(ctx)
			if res := f.WaitForCacheSyncWithContext(ctx); res.AsError() != nil || len(res.Synced) != 2 {
				t.Errorf("WaitForCacheSyncWithContext = %+v", res)
			}
			cancel()
			f.Shutdown()
			f.Start(ctx.Done()) // after Shutdown: nothing
		})
	}
}

func TestObjectDescriptionOfFactoryInformersIsClientGos(t *testing.T) {
	get := func(newFactory typedFactoryConstructor) string {
		inf := newFactory(fake.NewClientset(), 0).Core().V1().Pods().Informer()
		var target any = inf
		if k, ok := KcacheInformer(inf); ok {
			target = k
		}
		d, _ := privatefield.Read[string](target, "objectDescription")
		return d
	}
	if got, want := get(NewSharedInformerFactoryWithOptions), get(informers.NewSharedInformerFactoryWithOptions); got != want {
		t.Errorf("object description %q, client-go %q", got, want)
	}
}

func TestInformerForKeepsTheTransformTheNewFuncSetAsClientGo(t *testing.T) {
	newFunc := func(c kubernetes.Interface, r time.Duration) clientgocache.SharedIndexInformer {
		inf := informers.NewSharedInformerFactory(c, r).Core().V1().Pods().Informer()
		_ = inf.SetTransform(func(obj interface{}) (interface{}, error) {
			p := obj.(*corev1.Pod).DeepCopy()
			p.Annotations = map[string]string{"by": "newFunc"}
			return p, nil
		})
		return inf
	}
	get := func(newFactory typedFactoryConstructor) string {
		f := newFactory(fake.NewClientset(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}), 0)
		inf := f.InformerFor(&corev1.Pod{}, newFunc)
		ctx, cancel := context.WithCancel(context.Background())
		defer f.Shutdown()
		defer cancel()
		f.Start(ctx.Done())
		f.WaitForCacheSync(ctx.Done())
		return fmt.Sprint(inf.GetStore().List()[0].(*corev1.Pod).Annotations)
	}
	if got, want := get(NewSharedInformerFactoryWithOptions), get(informers.NewSharedInformerFactoryWithOptions); got != want {
		t.Errorf("cached pod annotations %s, client-go %s", got, want)
	}
}
