package compat137

import (
	"fmt"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// pod returns a pod; rv may be empty.
func pod(namespace, name, rv string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, ResourceVersion: rv}}
}

// describe renders an object for a trace: pods as ns/name@rv, other
// objects with metadata by kind of implementation ("record" when it is not
// a pod), anything else with %T and %v.
func describe(obj any) string {
	switch o := obj.(type) {
	case nil:
		return "nil"
	case *v1.Pod:
		if o == nil {
			return "(*v1.Pod)(nil)"
		}
		return fmt.Sprintf("pod %s/%s@%s", o.Namespace, o.Name, o.ResourceVersion)
	case string:
		return fmt.Sprintf("string %q", o)
	}
	if a, err := meta.Accessor(obj); err == nil {
		return fmt.Sprintf("record %s/%s@%s uid=%s", a.GetNamespace(), a.GetName(), a.GetResourceVersion(), a.GetUID())
	}
	return fmt.Sprintf("%T %v", obj, obj)
}

// capture runs f and returns "panic: ..." when it panics, else "".
func capture(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprintf("panic: %v", r)
		}
	}()
	f()
	return ""
}

// recorder collects a trace.
type recorder struct{ lines []string }

// logf appends one line.
func (r *recorder) logf(format string, args ...any) {
	r.lines = append(r.lines, fmt.Sprintf(format, args...))
}

// compareTraces fails with both traces side by side when they differ.
func compareTraces(t *testing.T, clientGo, kcache []string) {
	t.Helper()
	if len(clientGo) == 0 {
		t.Fatal("client-go produced an empty trace: the scenario asserts nothing")
	}
	if strings.Join(clientGo, "\n") == strings.Join(kcache, "\n") {
		if testing.Verbose() {
			t.Logf("identical traces:\n%s", strings.Join(clientGo, "\n"))
		}
		return
	}
	n := max(len(clientGo), len(kcache))
	var b strings.Builder
	for i := 0; i < n; i++ {
		var c, k string
		if i < len(clientGo) {
			c = clientGo[i]
		}
		if i < len(kcache) {
			k = kcache[i]
		}
		mark := "  "
		if c != k {
			mark = "!!"
		}
		fmt.Fprintf(&b, "%s client-go: %s\n   kcache:    %s\n", mark, c, k)
	}
	t.Fatalf("traces differ:\n%s", b.String())
}
