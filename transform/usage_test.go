package transform_test

import (
	"reflect"
	"testing"
	"unsafe"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	kcache "github.com/kcache-go/cache"
	fcache "github.com/kcache-go/cache/testing"
	"github.com/kcache-go/cache/transform"
)

// Every transform of the package is a TransformFunc.
var _ = []kcache.TransformFunc{
	transform.StripManagedFields, transform.StripLastAppliedConfiguration, transform.InternStrings,
	transform.Recommended, transform.InternPodStrings, transform.CompactPodSlices, transform.Chain(),
}

// strippedAndInterned checks that the pods have no managed fields and no
// last-applied annotation, and that they share their namespace bytes.
func strippedAndInterned(t *testing.T, objs []interface{}) {
	t.Helper()
	if len(objs) < 2 {
		t.Fatalf("%d objects, want at least 2", len(objs))
	}
	first := objs[0].(*corev1.Pod)
	for _, o := range objs {
		pod := o.(*corev1.Pod)
		if _, ok := pod.Annotations[lastApplied]; ok || pod.ManagedFields != nil {
			t.Errorf("%s kept managed fields or the last-applied annotation", pod.Name)
		}
		if unsafe.StringData(pod.Namespace) != unsafe.StringData(first.Namespace) {
			t.Errorf("%s does not share its namespace bytes with %s", pod.Name, first.Name)
		}
	}
}

func TestTheRecommendedTransformWorksAsAnInformersTransform(t *testing.T) {
	defer goleak.VerifyNone(t)
	source := fcache.NewFakeControllerSource()
	defer source.Shutdown()
	source.Add(decodedPod("a"))
	source.Add(decodedPod("b"))
	informer := kcache.NewSharedIndexInformer(source, &corev1.Pod{}, 0, kcache.Indexers{})
	if err := informer.SetTransform(transform.Recommended); err != nil {
		t.Fatal(err)
	}
	defer runUntilSynced(t, informer)()
	strippedAndInterned(t, informer.GetStore().List())
}

func TestEachTransformWorksAsTheTransformerOfBothQueues(t *testing.T) {
	for _, tr := range namedTransforms {
		queues := []struct {
			name  string
			queue kcache.Queue
		}{
			{"RealFIFO", kcache.NewRealFIFOWithOptions(kcache.RealFIFOOptions{
				KnownObjects: kcache.NewStore(kcache.MetaNamespaceKeyFunc), Transformer: tr.fn})},
			{"DeltaFIFO", kcache.NewDeltaFIFOWithOptions(kcache.DeltaFIFOOptions{
				KeyFunction: kcache.MetaNamespaceKeyFunc, Transformer: tr.fn})},
		}
		for _, q := range queues {
			t.Run(tr.name+" in a "+q.name, func(t *testing.T) {
				if err := q.queue.Add(decodedPod("a")); err != nil {
					t.Fatal(err)
				}
				var got interface{}
				_, err := q.queue.Pop(func(obj interface{}, _ bool) error {
					got = obj.(kcache.Deltas).Newest().Object
					return nil
				})
				want, _ := tr.fn(decodedPod("a"))
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Fatalf("popped %#v, %v; want %#v", got, err, want)
				}
			})
		}
	}
}

func TestReplacingWithObjectsAlreadyTransformedStoresTheSameContent(t *testing.T) {
	for _, tr := range namedTransforms {
		t.Run(tr.name, func(t *testing.T) {
			store := kcache.NewStore(kcache.MetaNamespaceKeyFunc)
			queue := kcache.NewDeltaFIFOWithOptions(kcache.DeltaFIFOOptions{
				KeyFunction: kcache.MetaNamespaceKeyFunc, KnownObjects: store, Transformer: tr.fn})
			drain := func() { // each Replace below queues the same two keys
				for i := 0; i < 2; i++ {
					_, _ = queue.Pop(func(obj interface{}, _ bool) error {
						return store.Update(obj.(kcache.Deltas).Newest().Object)
					})
				}
			}
			if err := queue.Replace([]interface{}{decodedPod("a"), decodedPod("b")}, "1"); err != nil {
				t.Fatal(err)
			}
			drain()
			once := store.List()
			if err := queue.Replace(store.List(), "2"); err != nil {
				t.Fatal(err)
			}
			drain()
			want, _ := tr.fn(decodedPod("a"))
			got, _, _ := store.GetByKey("shop/a")
			if len(once) != 2 || !reflect.DeepEqual(got, want) {
				t.Fatalf("after a second Replace: %#v; want %#v", got, want)
			}
		})
	}
}

func TestTheRecommendedTransformLeavesEveryPodItsOwnSpecSoAWriteInPlaceChangesNoOtherPod(t *testing.T) {
	recommended := func(name string) *corev1.Pod {
		got, err := transform.Recommended(decodedPod(name))
		if err != nil {
			t.Fatal(err)
		}
		return got.(*corev1.Pod)
	}
	a, b := recommended("own-a"), recommended("own-b")
	for _, part := range append(podSharedParts(), pinnedParts()...) {
		if id := part.of(a); id == part.of(b) {
			t.Errorf("%s: pods a and b share %#x", part.name, id)
		}
	}
	// a controller's mistaken write to a cached pod
	a.Spec.Containers[0].Resources.Limits[corev1.ResourceCPU] = resource.MustParse("3")
	a.Spec.Containers[0].Args[0] = "--port=9090"
	a.Spec.Tolerations[0].TolerationSeconds = nil
	if want := recommended("own-b"); !reflect.DeepEqual(b, want) {
		t.Fatal("a write in place to pod a changed pod b")
	}
}
