package e2e

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
)

// sampleControllerModule is the release of k8s.io/sample-controller the
// switch is proven on; the test fetches it (module proxy, then module
// cache) and never keeps its code in this repository.
const sampleControllerModule = "k8s.io/sample-controller@v0.36.2"

func TestSampleControllerSwitchedByKcacheSwitchReconcilesAFooOnKcacheInformers(t *testing.T) {
	tool := buildSwitchTool(t)
	orig := downloadModule(t, sampleControllerModule)
	dir := copyDir(t, orig)

	before, out, ok := testResults(t, dir)
	if !ok || len(before) == 0 {
		t.Fatalf("sample-controller's tests before the switch:\n%s", out)
	}
	logLines(t, "sample-controller's tests before the switch", strings.Join(before, "\n"))

	report := runSwitchTool(t, tool, dir, "-replace="+repoRoot(t), "./...")
	logLines(t, "kcache-switch -replace=<kcache> ./...", report)
	for _, want := range []string{
		"main.go:66: typed factory: kubeinformers.NewSharedInformerFactory → clientgo.NewSharedInformerFactory",
		"main.go:23: import \"k8s.io/client-go/informers\" removed (no use left)",
		"samplecontroller/v1alpha1/foo.go:70: informer constructor (informer-gen): cache.NewSharedIndexInformerWithOptions → clientgo.NewSharedIndexInformerWithOptions",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	logLines(t, "git diff --stat (original → switched)", diffStat(t, orig, dir))

	after, out, ok := testResults(t, dir)
	if !ok || !slices.Equal(before, after) {
		t.Fatalf("sample-controller's tests after the switch differ from before (%q):\n%s", before, out)
	}
	logLines(t, "sample-controller's tests after the switch", strings.Join(after, "\n"))
	if again := runSwitchTool(t, tool, dir, "./..."); !strings.HasPrefix(again, "kcache-switch: nothing to change\n") {
		t.Errorf("a second switch changed something:\n%s", again)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	installCRD(t, ctx, filepath.Join(dir, "artifacts", "examples", "crd-status-subresource.yaml"))
	ns := newNamespace(t, ctx, "sample-controller")
	addProofFile(t, "samplecontroller_test.go.txt", dir, "zz_kcache_proof_test.go")
	out, err := goCmdErr(dir, []string{"KCACHE_E2E_KUBECONFIG=" + writeKubeconfig(t), "KCACHE_E2E_NAMESPACE=" + ns},
		"test", "-count=1", "-v", "-run", "^TestSwitchedSampleControllerReconcilesAFooOnKcacheInformers$", ".")
	if err != nil {
		t.Fatalf("the switched sample-controller on the API server: %v\n%s", err, out)
	}
	logLines(t, "the switched sample-controller's main() on the API server", proofLines(out))
}

// proofLines keeps a test run's own log and result lines (not the
// program's klog output).
func proofLines(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(trimmed, "zz_kcache_proof_test.go:") || strings.HasPrefix(trimmed, "configmap_controller_test.go:") ||
			strings.HasPrefix(trimmed, "--- ") || strings.HasPrefix(trimmed, "ok ") || trimmed == "PASS" || strings.HasPrefix(trimmed, "FAIL") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// installCRD creates the CustomResourceDefinition of a YAML file and
// waits until it is established.
func installCRD(t *testing.T, ctx context.Context, file string) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var crd unstructured.Unstructured
	if err := yaml.NewYAMLOrJSONDecoder(f, 4096).Decode(&crd.Object); err != nil {
		t.Fatal(err)
	}
	client, err := dynamic.NewForConfig(cluster.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	crds := client.Resource(crdResource)
	if _, err := crds.Create(ctx, &crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		got, err := crds.Get(ctx, crd.GetName(), metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		conditions, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		for _, c := range conditions {
			if m, ok := c.(map[string]any); ok && m["type"] == "Established" && m["status"] == "True" {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("CRD %s not established: %v", crd.GetName(), err)
	}
}
