package transform

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// quantityOf decodes s as a client decodes a Quantity.
func quantityOf(t *testing.T, s string) resource.Quantity {
	t.Helper()
	var q resource.Quantity
	if err := q.UnmarshalJSON([]byte(fmt.Sprintf("%q", s))); err != nil {
		t.Fatal(err)
	}
	return q
}

// equalPairs are pairs of values of one type on which partsEqual and the
// content hash must agree with reflect.DeepEqual.
func equalPairs(t *testing.T) []struct {
	name string
	a, b interface{}
} {
	rl := func(kv ...string) corev1.ResourceList {
		l := corev1.ResourceList{}
		for i := 0; i < len(kv); i += 2 {
			l[corev1.ResourceName(kv[i])] = quantityOf(t, kv[i+1])
		}
		return l
	}
	shared := []string{"a"}
	nan := struct{ F float64 }{math.NaN()}
	return []struct {
		name string
		a, b interface{}
	}{
		{"nil and empty slices", &[]string{}, new([]string)},
		{"equal string slices", &[]string{"a", "b"}, &[]string{"a", "b"}},
		{"one slice twice", &shared, &shared},
		{"nil and empty maps", &map[string]string{}, new(map[string]string)},
		{"equal string maps", &map[string]string{"a": "1", "b": "2"}, &map[string]string{"b": "2", "a": "1"}},
		{"string maps differing in a value", &map[string]string{"a": "1"}, &map[string]string{"a": "2"}},
		{"string maps differing in a key", &map[string]string{"a": "1"}, &map[string]string{"b": "1"}},
		{"equal resource lists", ptr(rl("cpu", "100m", "memory", "1Gi")), ptr(rl("memory", "1Gi", "cpu", "100m"))},
		{"1Gi and 1024Mi", ptr(rl("memory", "1Gi")), ptr(rl("memory", "1024Mi"))},
		{"1 and 1000m", ptr(rl("cpu", "1")), ptr(rl("cpu", "1000m"))},
		{"a decoded and a parsed 1024Mi", ptr(rl("memory", "1024Mi")),
			&corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1024Mi")}},
		{"equal huge quantities", ptr(rl("cpu", "100000000000000000000000")), ptr(rl("cpu", "100000000000000000000000"))},
		{"different huge quantities", ptr(rl("cpu", "100000000000000000000000")), ptr(rl("cpu", "100000000000000000000001"))},
		{"resource lists of different keys", ptr(rl("cpu", "1")), ptr(rl("memory", "1"))},
		{"nil and zero pointers", &corev1.Probe{}, &corev1.Probe{TerminationGracePeriodSeconds: new(int64)}},
		{"equal probes", &corev1.Probe{PeriodSeconds: 3, ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"x"}}}},
			&corev1.Probe{PeriodSeconds: 3, ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"x"}}}}},
		{"probes differing deep down", &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"x"}}}},
			&corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"y"}}}}},
		{"affinities with equal selectors", ptr(affinityOf(map[string]string{"app": "a"})), ptr(affinityOf(map[string]string{"app": "a"}))},
		{"affinities with nil and empty selectors", ptr(affinityOf(nil)), ptr(affinityOf(map[string]string{}))},
		{"a NaN field", &nan, &nan},
	}
}

func ptr[T any](v T) *T { return &v }

func affinityOf(labels map[string]string) corev1.Affinity {
	return corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
		TopologyKey: "kubernetes.io/hostname", LabelSelector: &metav1.LabelSelector{MatchLabels: labels}}}}}
}

func TestPartsEqualAnswersWhatReflectDeepEqualAnswers(t *testing.T) {
	for _, p := range equalPairs(t) {
		t.Run(p.name, func(t *testing.T) {
			a, b := reflect.ValueOf(p.a).Elem(), reflect.ValueOf(p.b).Elem()
			want := reflect.DeepEqual(a.Interface(), b.Interface())
			if got := partsEqual(a, b); got != want {
				t.Fatalf("partsEqual is %v, reflect.DeepEqual %v", got, want)
			}
			if ha, _ := contentHash(a); want && ha != mustHash(b) {
				t.Fatal("values reflect.DeepEqual reports equal hash differently")
			}
			// NB: Quantities in their inf.Dec form (never shared) are left
			// to reflect.DeepEqual, which allocates.
			if allocs := testing.AllocsPerRun(10, func() { partsEqual(a, b) }); allocs != 0 && !strings.Contains(p.name, "huge") {
				t.Fatalf("partsEqual allocates %.0f times", allocs)
			}
		})
	}
}

func mustHash(v reflect.Value) uint64 { h, _ := contentHash(v); return h }
