package compat137

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	kc "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	cg "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// mutationScenario is one scenario of testdata/mutation.txt.
type mutationScenario struct {
	name    string
	options map[string]string
	steps   [][]string
}

// loadMutationScenarios parses testdata/mutation.txt.
func loadMutationScenarios(t *testing.T) []*mutationScenario {
	t.Helper()
	f, err := os.Open("testdata/mutation.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var all []*mutationScenario
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "scenario "):
			all = append(all, &mutationScenario{name: strings.TrimPrefix(line, "scenario "), options: map[string]string{}})
		case strings.HasPrefix(line, "options "):
			for _, kv := range strings.Fields(strings.TrimPrefix(line, "options ")) {
				k, v, _ := strings.Cut(kv, "=")
				all[len(all)-1].options[k] = v
			}
		default:
			all[len(all)-1].steps = append(all[len(all)-1].steps, strings.Fields(line))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return all
}

// mutationSide is one library's MutationCache with its backing indexer.
type mutationSide struct {
	backing   mutationBacking
	cache     mutationCacheOps
	tombstone func(key string, obj any) any
}

// mutationBacking is the part of either library's backing indexer a
// scenario drives.
type mutationBacking interface {
	Add(any) error
	Delete(any) error
}

// mutationCacheOps is the part of either library's MutationCache a
// scenario drives.
type mutationCacheOps interface {
	Mutation(any)
	GetByKey(string) (any, bool, error)
	ByIndex(string, string) ([]any, error)
	OnAddOrUpdate(runtime.Object)
	OnDelete(runtime.Object)
}

// scenarioTTL and scenarioSize read the options.
func scenarioTTL(o map[string]string) time.Duration {
	switch o["ttl"] {
	case "hour":
		return time.Hour
	case "negative":
		return -time.Second
	}
	return 0
}

func scenarioSize(o map[string]string) int {
	n, _ := strconv.Atoi(o["size"])
	return n
}

// mutationOptions are a scenario's cache options: whether the cache gets
// the backing indexer, whether it includes adds, which constructor builds
// it (legacy: NewIntegerResourceVersionMutationCache), its TTL and size.
type mutationOptions struct {
	indexer, includeAdds, legacy bool
	ttl                          time.Duration
	size                         int
}

func parseMutationOptions(o map[string]string) mutationOptions {
	return mutationOptions{indexer: o["indexer"] == "true", includeAdds: o["includeAdds"] == "true", legacy: o["constructor"] == "legacy",
		ttl: scenarioTTL(o), size: scenarioSize(o)}
}

// newMutationSideWith builds one library's side for the options: the
// cache over ix (with ix as its indexer when the options say so) built by
// the library's legacy constructor or by withOptions from the options
// newOptions builds. ST, IX, MC and MO are the library's Store, Indexer,
// MutationCache and MutationCacheOptions.
func newMutationSideWith[ST, IX, MC, MO any](o map[string]string, ix IX,
	legacy func(klog.Logger, ST, IX, time.Duration, bool) MC, withOptions func(klog.Logger, ST, MO) MC,
	newOptions func(IX, mutationOptions) MO, tombstone func(string, any) any) *mutationSide {
	opt := parseMutationOptions(o)
	backing := any(ix).(ST)
	indexer := orNil(opt.indexer, ix)
	var mc MC
	if opt.legacy {
		mc = legacy(klog.Background(), backing, indexer, opt.ttl, opt.includeAdds)
	} else {
		mc = withOptions(klog.Background(), backing, newOptions(indexer, opt))
	}
	return &mutationSide{backing: any(ix).(mutationBacking), cache: any(mc).(mutationCacheOps), tombstone: tombstone}
}

// newMutationSideCG builds client-go's cache for the options.
func newMutationSideCG(o map[string]string) *mutationSide {
	return newMutationSideWith[cg.Store](o, cg.NewIndexer(cg.MetaNamespaceKeyFunc, cg.Indexers{"ns": cg.MetaNamespaceIndexFunc}),
		cg.NewIntegerResourceVersionMutationCache, cg.NewIntegerResourceVersionMutationCacheWithOptions,
		func(ix cg.Indexer, o mutationOptions) cg.MutationCacheOptions {
			return cg.MutationCacheOptions{Indexer: ix, TTL: o.ttl, IncludeAdds: o.includeAdds, MaxCacheSize: o.size}
		}, func(k string, obj any) any { return cg.DeletedFinalStateUnknown{Key: k, Obj: obj} })
}

// newMutationSideKC builds kcache's cache for the options.
func newMutationSideKC(o map[string]string) *mutationSide {
	return newMutationSideWith[kc.Store](o, kc.NewIndexer(kc.MetaNamespaceKeyFunc, kc.Indexers{"ns": kc.MetaNamespaceIndexFunc}),
		kc.NewIntegerResourceVersionMutationCache, kc.NewIntegerResourceVersionMutationCacheWithOptions,
		func(ix kc.Indexer, o mutationOptions) kc.MutationCacheOptions {
			return kc.MutationCacheOptions{Indexer: ix, TTL: o.ttl, IncludeAdds: o.includeAdds, MaxCacheSize: o.size}
		}, func(k string, obj any) any { return kc.DeletedFinalStateUnknown{Key: k, Obj: obj} })
}

// orNil returns v when use is set and T's zero value (nil for an
// interface) otherwise.
func orNil[T any](use bool, v T) T {
	if use {
		return v
	}
	var zero T
	return zero
}

// stepRV reads a resource version argument ("" spelled as "").
func stepRV(s string) string {
	if s == `""` {
		return ""
	}
	return s
}

// describeRecorded renders what GetByKey/ByIndex returned, tombstones of
// either library alike.
func describeRecorded(obj any) string {
	switch o := obj.(type) {
	case cg.DeletedFinalStateUnknown:
		return fmt.Sprintf("tombstone %s of %s", o.Key, describe(o.Obj))
	case kc.DeletedFinalStateUnknown:
		return fmt.Sprintf("tombstone %s of %s", o.Key, describe(o.Obj))
	}
	return describe(obj)
}

// playMutationStep applies one step and returns what it printed.
func playMutationStep(side *mutationSide, step []string) string {
	mc := side.cache
	switch step[0] {
	case "backing":
		if step[1] == "add" {
			return fmt.Sprint(side.backing.Add(pod("ns", step[2], stepRV(step[3]))))
		}
		return fmt.Sprint(side.backing.Delete(pod("ns", step[2], "")))
	case "mutation":
		mc.Mutation(pod("ns", step[1], stepRV(step[2])))
	case "mutations":
		n, _ := strconv.Atoi(step[1])
		for i := 0; i < n; i++ {
			mc.Mutation(pod("ns", fmt.Sprint("p", i), "5"))
		}
	case "mutation-tombstone":
		mc.Mutation(side.tombstone("ns/"+step[1], pod("ns", step[1], stepRV(step[2]))))
	case "on-add":
		mc.OnAddOrUpdate(pod("ns", step[1], stepRV(step[2])))
	case "on-delete":
		mc.OnDelete(pod("ns", step[1], stepRV(step[2])))
	case "on-delete-uid":
		p := pod("ns", step[1], stepRV(step[2]))
		p.UID = types.UID(step[3])
		mc.OnDelete(p)
	case "on-add-nil":
		mc.OnAddOrUpdate(nil)
	case "on-delete-nil":
		mc.OnDelete(nil)
	case "get":
		obj, exists, err := mc.GetByKey("ns/" + step[1])
		return fmt.Sprintf("%s exists=%v err=%v", describeRecorded(obj), exists, err)
	case "index":
		items, err := mc.ByIndex("ns", "ns")
		var out []string
		for _, it := range items {
			out = append(out, describeRecorded(it))
		}
		// NB: in the order returned: client-go's is fixed (indexed keys
		// sorted, then recorded adds least recently used first).
		return fmt.Sprintf("%d err=%v %v", len(items), err, out)
	default:
		return "unknown step " + strings.Join(step, " ")
	}
	return ""
}

// playMutation runs one scenario on the side built by build.
func playMutation(sc *mutationScenario, build func(map[string]string) *mutationSide) []string {
	var r recorder
	var side *mutationSide
	if p := capture(func() { side = build(sc.options) }); p != "" {
		r.logf("construction: %s", p)
		return r.lines
	}
	for _, step := range sc.steps {
		out := ""
		if p := capture(func() { out = playMutationStep(side, step) }); p != "" {
			out = p
		}
		r.logf("%s: %s", strings.Join(step, " "), out)
	}
	return r.lines
}

func TestMutationCacheOptionsAndInformerFeedbackBehaveAsClientGo(t *testing.T) {
	for _, sc := range loadMutationScenarios(t) {
		t.Run(sc.name, func(t *testing.T) {
			compareTraces(t, playMutation(sc, newMutationSideCG), playMutation(sc, newMutationSideKC))
		})
	}
}

// ensure the pod helper's metadata type is the one meta.Accessor reads.
var _ metav1.Object = &v1.Pod{}
