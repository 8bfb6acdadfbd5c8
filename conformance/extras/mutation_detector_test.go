package extras

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	kcache "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	cgcache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// detectorChildEnv makes the test binary run detectorChild instead of the
// tests: both packages read KUBE_CACHE_MUTATION_DETECTOR when the process
// starts, so each setting needs a process of its own.
const detectorChildEnv = "KCACHE_EXTRAS_DETECTOR_CHILD"

// implSeparator separates the outputs of the two implementations.
const implSeparator = "----- kcache -----"

func TestMain(m *testing.M) {
	if os.Getenv(detectorChildEnv) == "1" {
		detectorChild()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// detector is MutationDetector of either implementation.
type detector interface {
	AddObject(obj interface{})
	Run(stopCh <-chan struct{})
}

// detectorChild mutates a watched object under each implementation's
// detector and prints what Run did, client-go first.
func detectorChild() {
	logger, rec := newCaptureLogger()
	klog.SetLogger(logger)
	logged := func() {
		for _, line := range rec.take() {
			fmt.Println("log:", line)
		}
	}
	exerciseDetectors(func(name string) detector { return cgcache.NewCacheMutationDetector(name) }, func(obj interface{}) interface{} {
		return cgcache.DeletedFinalStateUnknown{Key: "ns/gone", Obj: obj}
	}, logged)
	fmt.Println(implSeparator)
	exerciseDetectors(func(name string) detector { return kcache.NewCacheMutationDetector(name) }, func(obj interface{}) interface{} {
		return kcache.DeletedFinalStateUnknown{Key: "ns/gone", Obj: obj}
	}, logged)
}

// exerciseDetectors runs every exercise on detectors of one library, built
// by newDetector, with its tombstone, printing what was logged after each.
func exerciseDetectors(newDetector func(name string) detector, tombstone func(obj interface{}) interface{}, logged func()) {
	exercise(newDetector("configmaps"))
	logged()
	exerciseTombstone(newDetector("tombstones"), tombstone)
	logged()
	for _, m := range detectorMutations {
		exerciseMutation(newDetector(m.name), m)
		logged()
	}
}

// detectorMutation builds an object and changes it in place in a way that
// may or may not count as a mutation.
type detectorMutation struct {
	name   string
	build  func() runtime.Object
	mutate func(runtime.Object)
	// equal says that the object stays deeply equal to its copy, so that
	// neither detector reports it (a NaN never equals itself, so an
	// untouched NaN is reported).
	equal bool
}

// zone is a fixed time zone other than UTC.
var zone = time.FixedZone("UTC+2", 2*60*60)

// detectorMutations are in-place changes that semantic equality would call
// equal but a deep comparison does not, and changes that leave the object
// deeply equal.
var detectorMutations = []detectorMutation{
	{
		name: "quantity-1-to-1000m",
		build: func() runtime.Object {
			return &v1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "q"},
				Spec: v1.ResourceQuotaSpec{Hard: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}}}
		},
		mutate: func(o runtime.Object) {
			o.(*v1.ResourceQuota).Spec.Hard[v1.ResourceCPU] = resource.MustParse("1000m")
		},
	},
	{
		name: "time-moved-to-another-zone",
		build: func() runtime.Object {
			return &v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "t",
				CreationTimestamp: metav1.NewTime(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))}}
		},
		mutate: func(o runtime.Object) {
			m := o.(*v1.ConfigMap)
			m.CreationTimestamp = metav1.NewTime(m.CreationTimestamp.In(zone))
		},
	},
	{
		name: "nil-map-made-empty",
		build: func() runtime.Object {
			return &v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "e"}}
		},
		mutate: func(o runtime.Object) { o.(*v1.ConfigMap).Data = map[string]string{} },
	},
	{
		name: "nan-left-alone",
		build: func() runtime.Object {
			return &unstructured.Unstructured{Object: map[string]interface{}{"ratio": math.NaN()}}
		},
		mutate: func(runtime.Object) {},
	},
	{
		name: "unexported-field-left-alone",
		build: func() runtime.Object {
			return &hiddenObject{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "h"}, secret: "s"}
		},
		mutate: func(runtime.Object) {},
		equal:  true,
	},
	{
		name: "unexported-field-changed",
		build: func() runtime.Object {
			return &hiddenObject{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "h"}, secret: "s"}
		},
		mutate: func(o runtime.Object) { o.(*hiddenObject).secret = "changed" },
	},
	{
		name: "pointer-cycle-left-alone",
		build: func() runtime.Object {
			c := &cyclicObject{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}}
			c.Self = c
			return c
		},
		mutate: func(runtime.Object) {},
		equal:  true,
	},
	{
		name: "value-rewritten-equal",
		build: func() runtime.Object {
			return &v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "s"}, Data: map[string]string{"k": "v"}}
		},
		mutate: func(o runtime.Object) { o.(*v1.ConfigMap).Data["k"] = "v" },
		equal:  true,
	},
}

// hiddenObject is an object with an unexported field, which its deep copy
// keeps.
type hiddenObject struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	secret string
}

func (h *hiddenObject) DeepCopyObject() runtime.Object {
	c := *h
	h.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

// cyclicObject points at itself; its deep copy points at the copy.
type cyclicObject struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	Self *cyclicObject
}

func (o *cyclicObject) DeepCopyObject() runtime.Object {
	c := &cyclicObject{TypeMeta: o.TypeMeta}
	o.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	if o.Self == o {
		c.Self = c
	}
	return c
}

// exerciseTombstone hands d tombstones (of an object then mutated, and of
// nil), nil and a nil pointer, and runs it with a closed stop channel.
func exerciseTombstone(d detector, tombstone func(obj interface{}) interface{}) {
	inner := &v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "gone"}, Data: map[string]string{"k": "v"}}
	fmt.Println("add tombstone:", capturePanic(func() string { d.AddObject(tombstone(inner)); return "ok" }))
	fmt.Println("add tombstone of nil:", capturePanic(func() string { d.AddObject(tombstone(nil)); return "ok" }))
	fmt.Println("add nil:", capturePanic(func() string { d.AddObject(nil); return "ok" }))
	fmt.Println("add nil pointer:", capturePanic(func() string { d.AddObject((*v1.ConfigMap)(nil)); return "ok" }))
	inner.Data["k"] = "mutated in place"
	stop := make(chan struct{})
	close(stop)
	fmt.Println("tombstones: run with a closed stop channel:", runOnce(d, stop))
}

// exerciseMutation hands one object of m to d, applies m and runs d with a
// closed stop channel: both detectors then compare once and return unless
// they found a mutation.
func exerciseMutation(d detector, m detectorMutation) {
	obj := m.build()
	d.AddObject(obj)
	m.mutate(obj)
	stop := make(chan struct{})
	close(stop)
	fmt.Printf("%s: run with a closed stop channel: %s\n", m.name, runOnce(d, stop))
}

// exercise hands two objects and a tombstone to d, mutates the second
// object and runs d once.
func exercise(d detector) {
	untouched := &v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "same"}}
	mutated := &v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "changed"}, Data: map[string]string{"k": "v"}}
	d.AddObject(untouched)
	d.AddObject("not an object")
	d.AddObject(mutated)
	mutated.Data["k"] = "mutated in place"
	stop := make(chan struct{})
	close(stop)
	fmt.Println("run with a closed stop channel:", runOnce(d, stop))
	fmt.Println("run:", runOnce(d, make(chan struct{})))
}

// runOnce runs d and reports how Run ended. A detector that neither returns
// nor panics would hang the child, which the parent then reports.
func runOnce(d detector, stop chan struct{}) (result string) {
	defer func() {
		if r := recover(); r != nil {
			result = fmt.Sprintf("panic %T %v", r, r)
		}
	}()
	d.Run(stop)
	return "returned"
}

// runDetectorChild runs the child with the detector switch set to value and
// returns the client-go and kcache halves of its output and its stderr.
func runDetectorChild(t *testing.T, value string) (clientGo, ours, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), detectorChildEnv+"=1", "KUBE_CACHE_MUTATION_DETECTOR="+value)
	var errBuf strings.Builder
	cmd.Stderr = &errBuf
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child failed: %v\n%s", err, errBuf.String())
	}
	cg, kc, ok := strings.Cut(string(out), implSeparator+"\n")
	if !ok {
		t.Fatalf("child output without separator:\n%s", out)
	}
	return cg, kc, errBuf.String()
}

func TestMutationDetectorMatchesClientGo(t *testing.T) {
	cases := []struct {
		env          string
		wantPanic    bool
		wantWarnings int
	}{
		{env: "", wantPanic: false, wantWarnings: 0},
		{env: "false", wantPanic: false, wantWarnings: 0},
		{env: "true", wantPanic: true, wantWarnings: 1},
		{env: "1", wantPanic: true, wantWarnings: 1},
	}
	for _, tc := range cases {
		t.Run("KUBE_CACHE_MUTATION_DETECTOR="+tc.env, func(t *testing.T) {
			cg, kc, stderr := runDetectorChild(t, tc.env)
			if cg != kc {
				t.Fatalf("outputs differ\nclient-go:\n%s\nkcache:\n%s", cg, kc)
			}
			if got := strings.Contains(kc, "panic string cache configmaps modified"); got != tc.wantPanic {
				t.Fatalf("panicked=%v, want %v; output:\n%s", got, tc.wantPanic, kc)
			}
			if tc.wantPanic && !strings.Contains(kc, "CACHE configmaps[1] ALTERED!") {
				t.Fatalf("the altered object was not reported at index 1:\n%s", kc)
			}
			warning := `log: <library> V(0) "Mutation detector is enabled, this will result in memory leakage."`
			if n := strings.Count(kc, warning); n != tc.wantWarnings*(2+len(detectorMutations)) {
				t.Fatalf("%d warnings, want %d per detector:\n%s\n%s", n, tc.wantWarnings, kc, stderr)
			}
			for _, m := range detectorMutations {
				result := "returned"
				if tc.wantPanic && !m.equal {
					result = "panic string cache " + m.name + " modified"
				}
				if line := m.name + ": run with a closed stop channel: " + result; !strings.Contains(kc, line) {
					t.Fatalf("no line %q:\n%s", line, kc)
				}
			}
			t.Logf("identical output:\n%s", firstLines(kc, 4))
		})
	}
}

// firstLines returns up to n lines of s.
func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
