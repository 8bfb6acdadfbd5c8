package switcher

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAVendoredModuleStillBuildsAfterTheSwitch switches a module with a
// vendor directory, which the go command builds from (-mod=vendor) and
// which holds only the kcache packages the module imported before the
// switch. The switch may rewrite only what builds from vendor/: the
// module must build as it is built, and what stays says why.
func TestAVendoredModuleStillBuildsAfterTheSwitch(t *testing.T) {
	// NB: the go command's cache keys a package built from vendor/ by its
	// directory; a module at the same place each run compiles its vendored
	// client-go once, not on every run.
	stable := filepath.Join(os.TempDir(), "kcache-switch-vendored-module")
	if err := os.RemoveAll(stable); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(newModuleFrom(t, "testdata/vendored"), stable); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(stable) })
	module := stable
	for _, args := range [][]string{{"mod", "tidy"}, {"mod", "vendor"}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = module
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	report := runTool(t, buildTool(t), module)
	build := exec.Command("go", "build", "./...")
	build.Dir = module
	if out, err := build.CombinedOutput(); err != nil {
		t.Errorf("the switched module does not build from its vendor directory: %v\n%s\nreport:\n%s", err, out, report)
	}
	if !strings.Contains(report, "a/a.go:18: typed factory informers.NewSharedInformerFactory not switched: ") || !strings.Contains(report, "go mod vendor") {
		t.Errorf("the report does not say why the factory stays client-go's:\n%s", report)
	}
}
