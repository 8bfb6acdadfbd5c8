package transform_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kcache-go/cache/transform"
)

// nestedSlices are slices ShareIdenticalPodParts shares, as a whole (a
// container's args) or inside a part it shares (a probe, a lifecycle, DNS
// config); each pod decoded them with spare capacity.
func nestedSlices() []struct {
	name string
	of   func(*corev1.Pod) *[]string
} {
	return []struct {
		name string
		of   func(*corev1.Pod) *[]string
	}{
		{"lifecycle preStop exec command", func(p *corev1.Pod) *[]string {
			return &p.Spec.Containers[0].Lifecycle.PreStop.Exec.Command
		}},
		{"liveness exec command", func(p *corev1.Pod) *[]string {
			return &p.Spec.Containers[0].LivenessProbe.Exec.Command
		}},
		{"dnsConfig searches", func(p *corev1.Pod) *[]string { return &p.Spec.DNSConfig.Searches }},
		{"container args", func(p *corev1.Pod) *[]string { return &p.Spec.Containers[0].Args }},
	}
}

// decodedStrings is a JSON array of three strings decoded as an API
// client decodes it (encoding/json grows the slice, leaving it capacity 4).
func decodedStrings(a, b, c string) []string {
	var s []string
	mustUnmarshal([]byte(fmt.Sprintf("[%q, %q, %q]", a, b, c)), &s)
	return s
}

// podWithNestedSlices is a decoded pod whose nested slices have three
// decoded elements each (decoding leaves them spare capacity).
func podWithNestedSlices(name string) *corev1.Pod {
	pod := decodedPod(name)
	c := &pod.Spec.Containers[0]
	c.LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{
		Command: decodedStrings("cat", "/tmp/healthy", "-v")}}, PeriodSeconds: 10}
	c.Lifecycle.PreStop.Exec.Command = decodedStrings("sleep", "5", "-x")
	pod.Spec.DNSConfig.Searches = decodedStrings("a.svc", "b.svc", "c.svc")
	c.Args = decodedStrings("--port=8080", "--v=2", "--log=json")
	if s := pod.Spec.DNSConfig.Searches; cap(s) == len(s) {
		panic("decoding left no spare capacity; the scenario needs it")
	}
	return pod
}

func TestAppendingToASliceReadFromOneCachedPodNeverChangesWhatAnAppendToAnotherCachedPodsSliceGave(t *testing.T) {
	for _, s := range nestedSlices() {
		t.Run(s.name, func(t *testing.T) {
			a, b := podWithNestedSlices("append-a"), podWithNestedSlices("append-b")
			for _, p := range []*corev1.Pod{a, b} {
				if _, err := transform.ShareIdenticalPodParts(p); err != nil {
					t.Fatal(err)
				}
			}
			// A reader of pod a builds a command line from it, as Go code
			// commonly does with a slice it only reads.
			fromA := append(*s.of(a), "--from-a")
			// Another reader does the same with pod b.
			fromB := append(*s.of(b), "--from-b")
			if got := fromA[len(fromA)-1]; got != "--from-a" {
				t.Fatalf("the slice built from pod a ends with %q after a reader appended to pod b's (%q): the pods share the backing array's spare capacity", got, fromB)
			}
		})
	}
}
