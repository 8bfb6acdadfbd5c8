package switcher

import (
	"os/exec"
	"testing"
)

// TestASwitchWithoutTagsLeavesTheModuleBuildingWithItsTags switches a
// module whose files behind a build tag (a/extra.go, all of package b)
// hand the indexer of a's informer to a client-go lister: the run without
// the tag does not see them, and may not switch a/a.go under them.
func TestASwitchWithoutTagsLeavesTheModuleBuildingWithItsTags(t *testing.T) {

	module := newModuleFrom(t, "testdata/tagged")
	report := runTool(t, buildTool(t), module)
	build := exec.Command("go", "build", "-tags", "extra", "./...")
	build.Dir = module
	if out, err := build.CombinedOutput(); err != nil {
		t.Errorf("after the switch the module does not build with -tags extra: %v\n%s\nreport:\n%s", err, out, report)
	}
}
