package transform_test

import (
	"fmt"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"testing"
	"unsafe"
	"weak"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kcache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/transform"
)

// labelled is one string of an object that InternStrings interns, with
// where it came from.
type labelled struct {
	where string
	s     string
}

// mapStrings lists the keys (as stored in m) and values of m, by key.
func mapStrings(where string, m map[string]string) []labelled {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []labelled
	for _, k := range keys {
		out = append(out, labelled{where + " key " + k, k}, labelled{where + " value of " + k, m[k]})
	}
	return out
}

// internedStringsOfMeta lists every string of m that InternStrings interns.
func internedStringsOfMeta(m *metav1.ObjectMeta) []labelled {
	out := []labelled{{"namespace", m.Namespace}, {"generateName", m.GenerateName}}
	out = append(out, mapStrings("label", m.Labels)...)
	out = append(out, mapStrings("annotation", m.Annotations)...)
	for i, r := range m.OwnerReferences {
		w := fmt.Sprintf("ownerReferences[%d].", i)
		out = append(out, labelled{w + "apiVersion", r.APIVersion}, labelled{w + "kind", r.Kind},
			labelled{w + "name", r.Name}, labelled{w + "uid", string(r.UID)})
	}
	for i, f := range m.Finalizers {
		out = append(out, labelled{fmt.Sprintf("finalizers[%d]", i), f})
	}
	return out
}

// boxedMapStrings is mapStrings for a nested map of an Unstructured.
func boxedMapStrings(where string, m map[string]interface{}) []labelled {
	plain := make(map[string]string, len(m))
	for k, v := range m {
		plain[k], _ = v.(string)
	}
	return mapStrings(where, plain)
}

// internedStringsOfUnstructured lists every string of u that InternStrings
// interns: the same fields as for a typed object, and the keys of the
// metadata map and of the owner reference maps.
func internedStringsOfUnstructured(u *unstructured.Unstructured) []labelled {
	md := u.Object["metadata"].(map[string]interface{})
	var out []labelled
	for _, l := range boxedMapStrings("metadata", md) {
		if strings.HasPrefix(l.where, "metadata key") {
			out = append(out, l)
		}
	}
	out = append(out, labelled{"namespace", md["namespace"].(string)}, labelled{"generateName", md["generateName"].(string)})
	out = append(out, boxedMapStrings("label", md["labels"].(map[string]interface{}))...)
	out = append(out, boxedMapStrings("annotation", md["annotations"].(map[string]interface{}))...)
	for i, r := range md["ownerReferences"].([]interface{}) {
		ref := r.(map[string]interface{})
		w := fmt.Sprintf("ownerReferences[%d]", i)
		for _, l := range boxedMapStrings(w, ref) {
			if strings.HasPrefix(l.where, w+" key ") {
				out = append(out, l)
			}
		}
		for _, f := range []string{"apiVersion", "kind", "name", "uid"} {
			out = append(out, labelled{w + "." + f, ref[f].(string)})
		}
	}
	for i, f := range md["finalizers"].([]interface{}) {
		out = append(out, labelled{fmt.Sprintf("finalizers[%d]", i), f.(string)})
	}
	return out
}

func TestInternStringsMakesSeparatelyDecodedObjectsShareTheBytesOfEveryInternedString(t *testing.T) {
	cases := []struct {
		name    string
		decode  func(name string) interface{}
		strings func(obj interface{}) []labelled
	}{
		{"typed pods", func(n string) interface{} { return decodedPod(n) },
			func(o interface{}) []labelled { return internedStringsOfMeta(&o.(*corev1.Pod).ObjectMeta) }},
		{"PartialObjectMetadata", func(n string) interface{} { return decodedPartial(n) },
			func(o interface{}) []labelled {
				return internedStringsOfMeta(&o.(*metav1.PartialObjectMetadata).ObjectMeta)
			}},
		{"Unstructured", func(n string) interface{} { return decodedUnstructured(n) },
			func(o interface{}) []labelled { return internedStringsOfUnstructured(o.(*unstructured.Unstructured)) }},
		{"tombstones of typed pods", func(n string) interface{} {
			return kcache.DeletedFinalStateUnknown{Key: "shop/" + n, Obj: decodedPod(n)}
		}, func(o interface{}) []labelled {
			return internedStringsOfMeta(&o.(kcache.DeletedFinalStateUnknown).Obj.(*corev1.Pod).ObjectMeta)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, b := tc.decode("a"), tc.decode("b")
			before := tc.strings(b)
			for i, l := range tc.strings(a) {
				if unsafe.StringData(l.s) == unsafe.StringData(before[i].s) {
					t.Fatalf("%s: shared before interning; the test needs separate copies", l.where)
				}
			}
			a, _ = transform.InternStrings(a)
			b, _ = transform.InternStrings(b)
			sa, sb := tc.strings(a), tc.strings(b)
			if len(sa) < 15 || len(sa) != len(sb) {
				t.Fatalf("%d and %d interned strings, want the same number, at least 15", len(sa), len(sb))
			}
			for i := range sa {
				if sa[i].where != sb[i].where || sa[i].s != sb[i].s || unsafe.StringData(sa[i].s) != unsafe.StringData(sb[i].s) {
					t.Errorf("%s = %q and %s = %q do not share their bytes", sa[i].where, sa[i].s, sb[i].where, sb[i].s)
				}
			}
		})
	}
}

func TestInternStringsLeavesTheObjectsOwnNameAndUIDAlone(t *testing.T) {
	a, b := decodedPod("same"), decodedPod("same")
	_, _ = transform.InternStrings(a)
	_, _ = transform.InternStrings(b)
	cases := []struct{ field, a, b string }{
		{"name", a.Name, b.Name},
		{"uid", string(a.UID), string(b.UID)},
		{"resourceVersion", a.ResourceVersion, b.ResourceVersion},
	}
	for _, tc := range cases {
		t.Run(tc.field, func(t *testing.T) {
			if tc.a != tc.b || unsafe.StringData(tc.a) == unsafe.StringData(tc.b) {
				t.Fatalf("%s %q and %q share their bytes; only the documented fields are interned", tc.field, tc.a, tc.b)
			}
		})
	}
}

func TestInternStringsRewritesLabelAndAnnotationMapsInPlace(t *testing.T) {
	canonical, _ := transform.InternStrings(decodedPod("canonical"))
	want := canonical.(*corev1.Pod)
	pod := decodedPod("p")
	labels, annotations := pod.Labels, pod.Annotations
	_, _ = transform.InternStrings(pod)
	cases := []struct {
		name        string
		before, got map[string]string
		canonical   map[string]string
	}{
		{"labels", labels, pod.Labels, want.Labels},
		{"annotations", annotations, pod.Annotations, want.Annotations},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if reflect.ValueOf(tc.got).UnsafePointer() != reflect.ValueOf(tc.before).UnsafePointer() {
				t.Fatalf("the map was replaced; want it rewritten in place")
			}
			for k := range tc.got {
				for ck := range tc.canonical {
					if ck == k && unsafe.StringData(ck) != unsafe.StringData(k) {
						t.Errorf("key %q is not the canonical copy", k)
					}
				}
			}
		})
	}
}

func TestInternStringsKeepsTheTypesOfMalformedUnstructuredValues(t *testing.T) {
	got, _ := transform.InternStrings(malformedUnstructured())
	want := malformedUnstructured()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v, want %#v", got, want)
	}
}

// internedOnce interns a fresh string and returns a weak pointer to the
// canonical copy's bytes; the string itself goes out of scope.
func internedOnce(t *testing.T) weak.Pointer[byte] {
	t.Helper()
	value := strings.Repeat("transient-label-value-", 8) + t.Name()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"only-here": value}}}
	_, _ = transform.InternStrings(pod)
	got := pod.Labels["only-here"]
	// NB: without these checks the test would pass if InternStrings did
	// nothing at all (the pod's own copy is collected too).
	again := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"only-here": strings.Clone(value)}}}
	_, _ = transform.InternStrings(again)
	if unsafe.StringData(got) == unsafe.StringData(value) || unsafe.StringData(got) != unsafe.StringData(again.Labels["only-here"]) {
		t.Fatal("the label value was not replaced by its canonical copy")
	}
	return weak.Make(unsafe.StringData(got))
}

func TestInternedStringsThatNothingReferencesAnyMoreAreCollected(t *testing.T) {
	if !collectedByGC(internedOnce(t)) {
		t.Fatal("the interned copy survived garbage collection with no reference left")
	}
}

func TestInternStringsOnObjectsOfSeveralGoroutinesGivesEveryOneTheSameCanonicalStrings(t *testing.T) {
	defer goleak.VerifyNone(t)
	pods := transformedConcurrently(4, "p", transform.InternStrings)
	want := internedStringsOfMeta(&pods[0].ObjectMeta)
	for _, pod := range pods[1:] {
		for i, l := range internedStringsOfMeta(&pod.ObjectMeta) {
			if unsafe.StringData(l.s) != unsafe.StringData(want[i].s) {
				t.Errorf("%s: %s does not share %q with %s", l.where, pod.Name, l.s, pods[0].Name)
			}
		}
	}
}

func TestInternedStringsStayCanonicalAcrossGarbageCollections(t *testing.T) {
	first := decodedPod("before-gc")
	_, _ = transform.InternStrings(first)
	runtime.GC()
	runtime.GC()
	second := decodedPod("after-gc")
	_, _ = transform.InternStrings(second)
	want := internedStringsOfMeta(&first.ObjectMeta)
	for i, l := range internedStringsOfMeta(&second.ObjectMeta) {
		if unsafe.StringData(l.s) != unsafe.StringData(want[i].s) {
			t.Errorf("%s: %q interned after a garbage collection is a new copy, not the one the first pod still holds", l.where, l.s)
		}
	}
	runtime.KeepAlive(first)
}
