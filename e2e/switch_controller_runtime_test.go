package e2e

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestAControllerRuntimeProjectSwitchedByKcacheSwitchReconcilesOnKcacheInformers
// switches testdata/crproject (a kubebuilder-style project: a manager in
// cmd/main.go, a reconciler and its test in internal/controller) with
// kcache-switch and runs the project's own test on the API server before
// and after.
func TestAControllerRuntimeProjectSwitchedByKcacheSwitchReconcilesOnKcacheInformers(t *testing.T) {
	tool := buildSwitchTool(t)
	dir := copyDir(t, "testdata/crproject")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	kubeconfig := writeKubeconfig(t)

	run := func(label string) []string {
		env := []string{"KUBECONFIG=" + kubeconfig, "CRPROJECT_NAMESPACE=" + newNamespace(t, ctx, "crproject")}
		results, out, ok := testResults(t, dir, env...)
		if !ok || !strings.Contains(out, "--- PASS: TestConfigMapReconcilerCountsTheKeysOfEveryConfigMap") {
			t.Fatalf("the project's tests %s:\n%s", label, out)
		}
		logLines(t, "the project's tests on the API server "+label, proofLines(out)+"\n"+strings.Join(results, "\n"))
		return results
	}
	before := run("before the switch")

	report := runSwitchTool(t, tool, dir, "-replace="+repoRoot(t), "./...")
	logLines(t, "kcache-switch -replace=<kcache> ./...", report)
	for _, want := range []string{
		"cmd/main.go:38: controller-runtime manager.Options: Cache: cache.Options{NewInformer: clientgo.NewSharedIndexInformer} added",
		"internal/controller/configmap_controller_test.go:41: controller-runtime cache.Options: NewInformer: clientgo.NewSharedIndexInformer added",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	logLines(t, "git diff --stat (original → switched)", diffStat(t, "testdata/crproject", dir))

	addProofFile(t, "crproject_test.go.txt", dir+"/internal/controller", "zz_kcache_proof_test.go")
	if after := run("after the switch"); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Errorf("the project's test results changed: before %q, after %q", before, after)
	}
}
