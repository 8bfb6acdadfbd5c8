package transform_test

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kcache-go/cache/transform"
)

// memoryRange is a block of mutable memory an object references: a
// slice's backing array, a map, or what a pointer points to.
type memoryRange struct {
	what       string
	start, end uintptr
}

// mutableMemory walks v (every field, exported or not, at any depth) and
// returns every block of mutable memory it references. Strings are left
// out: Go never writes their bytes.
func mutableMemory(v reflect.Value, path string, out []memoryRange) []memoryRange {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return out
		}
		if size := v.Type().Elem().Size(); size > 0 {
			out = append(out, memoryRange{path, v.Pointer(), v.Pointer() + size})
		}
		return mutableMemory(v.Elem(), path, out)
	case reflect.Slice:
		if size := v.Type().Elem().Size(); v.Cap() > 0 && size > 0 {
			out = append(out, memoryRange{path, v.Pointer(), v.Pointer() + uintptr(v.Cap())*size})
		}
		for i := 0; i < v.Len(); i++ {
			out = mutableMemory(v.Index(i), path+"[]", out)
		}
	case reflect.Map:
		if v.IsNil() {
			return out
		}
		out = append(out, memoryRange{path, v.Pointer(), v.Pointer() + 1})
		for it := v.MapRange(); it.Next(); {
			out = mutableMemory(it.Value(), path+"{}", out)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			out = mutableMemory(v.Field(i), path+"."+v.Type().Field(i).Name, out)
		}
	case reflect.Interface:
		if !v.IsNil() {
			out = mutableMemory(v.Elem(), path, out)
		}
	}
	return out
}

// mutateEverything writes in place to every exported field of v at any
// depth, as a controller's mistaken edit of a cached object would: every
// string, number and bool is changed, every map value replaced.
func mutateEverything(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			mutateEverything(v.Elem())
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			mutateEverything(v.Index(i))
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			value := reflect.New(v.Type().Elem()).Elem()
			value.Set(it.Value())
			mutateEverything(value)
			v.SetMapIndex(it.Key(), value)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				mutateEverything(v.Field(i))
			}
		}
	case reflect.String:
		v.SetString(v.String() + "-mutated")
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(v.Uint() + 1)
	}
}

// recommendedPod is the fixture pod after the recommended transform,
// applied twice when twice (as an informer may).
func recommendedPod(t *testing.T, name string, twice bool) *corev1.Pod {
	pod := transformedPod(t, transform.Recommended, name)
	if twice {
		_, _ = transform.Recommended(pod)
	}
	return pod
}

func TestAfterTheRecommendedTransformNoTwoPodsShareASliceMapOrPointerAnywhere(t *testing.T) {
	for _, twice := range []bool{false, true} {
		a, b := recommendedPod(t, "a", twice), recommendedPod(t, "b", twice)
		ofA := mutableMemory(reflect.ValueOf(a), "a", nil)
		ofB := mutableMemory(reflect.ValueOf(b), "b", nil)
		if len(ofA) < 100 {
			t.Fatalf("found %d blocks of mutable memory in pod a, want the walk to reach at least 100", len(ofA))
		}
		for _, x := range ofA {
			for _, y := range ofB {
				if x.start < y.end && y.start < x.end {
					t.Errorf("applied twice %v: %s and %s share memory", twice, x.what, y.what)
				}
			}
		}
	}
}

func TestAfterTheRecommendedTransformAWriteInPlaceToEveryFieldOfOnePodChangesNoOtherPod(t *testing.T) {
	for _, twice := range []bool{false, true} {
		a, b := recommendedPod(t, "a", twice), recommendedPod(t, "b", twice)
		mutateEverything(reflect.ValueOf(a))
		if reflect.DeepEqual(a, recommendedPod(t, "a", twice)) {
			t.Fatal("the writes changed nothing in pod a")
		}
		if want := recommendedPod(t, "b", twice); !reflect.DeepEqual(b, want) {
			t.Fatalf("applied twice %v: writes in place to pod a changed pod b", twice)
		}
	}
}
