package conformance

// AddIndexers whose IndexFuncs panic on a stored object: client-go registers
// every given name before it fills any of them, so after the recovered
// panic all the names are registered (and index later writes). Every
// IndexFunc here panics on the stored object, so whatever the map order the
// fill panics on the first name it tries.

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	kc "github.com/kcache-go/cache"
	cg "k8s.io/client-go/tools/cache"
)

func TestAnAddIndexersThatPanicsLeavesEveryGivenNameRegisteredAsInClientGo(t *testing.T) {
	fn := func(obj any) ([]string, error) {
		if obj == "x" {
			panic("panics on x on purpose")
		}
		return []string{obj.(string)}, nil
	}
	for _, names := range [][]string{{"a", "b"}, {"a", "b", "c", "d"}} {
		t.Run(strings.Join(names, ","), func(t *testing.T) {
			render := func(add func(), write func(), registered func() []string, keys func(n, v string) ([]string, error)) string {
				var b strings.Builder
				fmt.Fprintf(&b, "panic=%q ", storeCatchPanic(add))
				write()
				r := registered()
				sort.Strings(r)
				fmt.Fprintf(&b, "indexers=%q", r)
				for _, n := range names {
					k, err := keys(n, "y")
					fmt.Fprintf(&b, " %s: %q %v", n, k, err)
				}
				return b.String()
			}
			cgIx, kcIx := cg.Indexers{}, kc.Indexers{}
			for _, n := range names {
				cgIx[n], kcIx[n] = fn, fn
			}
			c := cg.NewThreadSafeStore(cg.Indexers{}, cg.Indices{})
			k := kc.NewThreadSafeStore(kc.Indexers{}, kc.Indices{})
			c.Add("x", "x")
			k.Add("x", "x")
			want := render(func() { _ = c.AddIndexers(cgIx) }, func() { c.Add("y", "y") },
				func() []string { return mapNames(c.GetIndexers()) }, c.IndexKeys)
			got := render(func() { _ = k.AddIndexers(kcIx) }, func() { k.Add("y", "y") },
				func() []string { return mapNames(kc.Indexers(k.GetIndexers())) }, k.IndexKeys)
			if got != want {
				t.Errorf("after a panicking AddIndexers and an Add:\nclient-go: %s\nkcache:    %s", want, got)
			}
		})
	}
}

func mapNames[V any](m map[string]V) []string {
	var out []string
	for n := range m {
		out = append(out, n)
	}
	return out
}
