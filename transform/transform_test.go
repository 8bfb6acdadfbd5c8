package transform_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	clientgocache "k8s.io/client-go/tools/cache"

	kcache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/transform"
)

// namedTransform is one of the package's transforms, with the documented
// effect on an object's JSON content.
type namedTransform struct {
	name   string
	fn     kcache.TransformFunc
	effect func(metadata map[string]interface{})
}

func stripManagedEffect(md map[string]interface{}) { delete(md, "managedFields") }

func stripLastAppliedEffect(md map[string]interface{}) {
	a, ok := md["annotations"].(map[string]interface{})
	if !ok {
		return
	}
	if _, ok := a[lastApplied]; ok {
		delete(a, lastApplied)
		if len(a) == 0 {
			delete(md, "annotations")
		}
	}
}

func noEffect(map[string]interface{}) {}

var namedTransforms = []namedTransform{
	{"StripManagedFields", transform.StripManagedFields, stripManagedEffect},
	{"StripLastAppliedConfiguration", transform.StripLastAppliedConfiguration, stripLastAppliedEffect},
	{"InternStrings", transform.InternStrings, noEffect},
	{"Recommended", transform.Recommended, func(md map[string]interface{}) {
		stripManagedEffect(md)
		stripLastAppliedEffect(md)
	}},
	{"ShareIdenticalPodParts", transform.ShareIdenticalPodParts, noEffect},
	{"InternPodStrings", transform.InternPodStrings, noEffect},
	{"CompactPodSlices", transform.CompactPodSlices, noEffect},
	{"an empty Chain", transform.Chain(), noEffect},
}

// innerObject is obj, or the object inside a tombstone.
func innerObject(obj interface{}) interface{} {
	switch t := obj.(type) {
	case kcache.DeletedFinalStateUnknown:
		return t.Obj
	case clientgocache.DeletedFinalStateUnknown:
		return t.Obj
	}
	return obj
}

// jsonContent is the JSON content of obj (the object inside a tombstone).
func jsonContent(t *testing.T, obj interface{}) map[string]interface{} {
	t.Helper()
	data, err := json.Marshal(innerObject(obj))
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var content map[string]interface{}
	if err := json.Unmarshal(data, &content); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	return content
}

func TestEachTransformChangesExactlyWhatItsDocumentationSaysOnEveryObjectKind(t *testing.T) {
	for _, tr := range namedTransforms {
		for _, kind := range transformKinds() {
			t.Run(tr.name+" on "+kind.name, func(t *testing.T) {
				in := kind.build()
				got, err := tr.fn(in)
				if err != nil {
					t.Fatalf("error %v, want none", err)
				}
				if !kind.hasMetadata {
					if want := kind.build(); !reflect.DeepEqual(got, want) {
						t.Fatalf("got %#v, want it unchanged: %#v", got, want)
					}
					return
				}
				want := jsonContent(t, kind.build())
				if md, ok := want["metadata"].(map[string]interface{}); ok {
					tr.effect(md)
				}
				if content := jsonContent(t, got); !reflect.DeepEqual(content, want) {
					t.Fatalf("content\n%v\nwant\n%v", content, want)
				}
			})
		}
	}
}

func TestEachTransformReturnsTheObjectItEditedInPlace(t *testing.T) {
	for _, tr := range namedTransforms {
		for _, kind := range transformKinds() {
			t.Run(tr.name+" on "+kind.name, func(t *testing.T) {
				in := kind.build()
				got, _ := tr.fn(in)
				if ts, ok := in.(kcache.DeletedFinalStateUnknown); ok {
					gotTS, isTS := got.(kcache.DeletedFinalStateUnknown)
					if !isTS || gotTS.Key != ts.Key || !samePointer(gotTS.Obj, ts.Obj) {
						t.Fatalf("got %#v, want the tombstone with the same key and object", got)
					}
					return
				}
				if reflect.ValueOf(in).Kind() == reflect.Pointer && !samePointer(got, in) {
					t.Fatalf("got %p, want the same object %p", got, in)
				}
			})
		}
	}
}

func samePointer(a, b interface{}) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer()
}

func TestApplyingAnyTransformTwiceGivesWhatApplyingItOnceGives(t *testing.T) {
	for _, tr := range namedTransforms {
		for _, kind := range transformKinds() {
			t.Run(tr.name+" on "+kind.name, func(t *testing.T) {
				once, _ := tr.fn(kind.build())
				twice, _ := tr.fn(kind.build())
				twice, err := tr.fn(twice)
				if err != nil {
					t.Fatalf("second application: %v", err)
				}
				if !reflect.DeepEqual(once, twice) {
					t.Fatalf("twice\n%#v\nonce\n%#v", twice, once)
				}
			})
		}
	}
}

// memoryTransformOrders are the chains of every order of the four memory
// transforms (ShareIdenticalPodParts, which the recommended one leaves out,
// changes no content), and the recommended one applied twice.
func memoryTransformOrders() []namedTransform {
	parts := []namedTransform{
		{name: "managed", fn: transform.StripManagedFields},
		{name: "last-applied", fn: transform.StripLastAppliedConfiguration},
		{name: "intern", fn: transform.InternStrings},
		{name: "share", fn: transform.ShareIdenticalPodParts},
	}
	var orders []namedTransform
	var permute func(done []namedTransform, rest []namedTransform)
	permute = func(done, rest []namedTransform) {
		if len(rest) == 0 {
			names, fns := make([]string, len(done)), make([]kcache.TransformFunc, len(done))
			for i, d := range done {
				names[i], fns[i] = d.name, d.fn
			}
			orders = append(orders, namedTransform{name: strings.Join(names, ", "), fn: transform.Chain(fns...)})
			return
		}
		for i := range rest {
			others := append(append([]namedTransform{}, rest[:i]...), rest[i+1:]...)
			permute(append(append([]namedTransform{}, done...), rest[i]), others)
		}
	}
	permute(nil, parts)
	return append(orders, namedTransform{name: "the recommended one twice",
		fn: transform.Chain(transform.Recommended, transform.Recommended)})
}

func TestEveryOrderOfTheMemoryTransformsStoresWhatTheRecommendedTransformStores(t *testing.T) {
	for _, order := range memoryTransformOrders() {
		for _, kind := range transformKinds() {
			t.Run(order.name+" on "+kind.name, func(t *testing.T) {
				want, _ := transform.Recommended(kind.build())
				got, err := order.fn(kind.build())
				if err != nil {
					t.Fatalf("error %v", err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("got\n%#v\nwant\n%#v", got, want)
				}
			})
		}
	}
}

func TestStrippingTheOnlyAnnotationLeavesNoAnnotationsAndEmptyMapsStayEmpty(t *testing.T) {
	only := decodedPod("p")
	delete(only.Annotations, "team")
	empty := decodedPod("p")
	empty.Labels, empty.Annotations, empty.Finalizers = map[string]string{}, map[string]string{}, []string{}
	cases := []struct {
		name            string
		pod             *corev1.Pod
		wantAnnotations map[string]string
		wantLabels      map[string]string
	}{
		{"the last-applied annotation alone", only, nil, only.Labels},
		{"empty labels and annotations", empty, map[string]string{}, map[string]string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := transform.Recommended(tc.pod)
			meta := got.(*corev1.Pod).ObjectMeta
			if !reflect.DeepEqual(meta.Annotations, tc.wantAnnotations) || !reflect.DeepEqual(meta.Labels, tc.wantLabels) {
				t.Fatalf("annotations %#v labels %#v, want %#v and %#v", meta.Annotations, meta.Labels, tc.wantAnnotations, tc.wantLabels)
			}
		})
	}
}

func TestChainAppliesInOrderSkipsNilAndStopsAtTheFirstError(t *testing.T) {
	errBoom := errors.New("boom")
	appendName := func(n string) kcache.TransformFunc {
		return func(obj interface{}) (interface{}, error) { return obj.(string) + n, nil }
	}
	fail := func(obj interface{}) (interface{}, error) { return obj.(string) + "!", errBoom }
	cases := []struct {
		name    string
		chain   []kcache.TransformFunc
		want    string
		wantErr error
	}{
		{"no transform returns the input", nil, "x", nil},
		{"only nil transforms return the input", []kcache.TransformFunc{nil, nil}, "x", nil},
		{"transforms run in order", []kcache.TransformFunc{appendName("a"), appendName("b")}, "xab", nil},
		{"nil entries are skipped", []kcache.TransformFunc{nil, appendName("a"), nil, appendName("b"), nil}, "xab", nil},
		{"an error stops the chain with that transform's result", []kcache.TransformFunc{appendName("a"), fail, appendName("b")}, "xa!", errBoom},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := transform.Chain(tc.chain...)("x")
			if got != tc.want || !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Fatalf("got %v, %v; want %v, %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestChainIsNotAffectedByLaterChangesToItsArgumentSlice(t *testing.T) {
	chain := []kcache.TransformFunc{transform.StripManagedFields}
	transform := transform.Chain(chain...)
	chain[0] = func(interface{}) (interface{}, error) { return nil, errors.New("replaced") }
	got, err := transform(decodedPod("p"))
	if err != nil || got.(*corev1.Pod).ManagedFields != nil {
		t.Fatalf("got %v, %v; want the pod stripped", got, err)
	}
}
