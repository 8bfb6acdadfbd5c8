package extras

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	kcache "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cgcache "k8s.io/client-go/tools/cache"
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
	exercise(cgcache.NewCacheMutationDetector("configmaps"))
	fmt.Println(implSeparator)
	exercise(kcache.NewCacheMutationDetector("configmaps"))
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
		{env: "true", wantPanic: true, wantWarnings: 2},
		{env: "1", wantPanic: true, wantWarnings: 2},
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
			if n := strings.Count(stderr, "Mutation detector is enabled, this will result in memory leakage."); n != tc.wantWarnings {
				t.Fatalf("%d warnings, want %d:\n%s", n, tc.wantWarnings, stderr)
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
