package switcher

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestATombstoneAssertionKeepsClientGosTypeWhereverItsHandlerRunsOnAnInformerOfTheOtherLibrary
// switches modules where a handler that asserts DeletedFinalStateUnknown
// and the informer it runs on are in different files, one of which the
// switch would move to kcache: the assertion would then test the other
// library's type than the one delivered, and silently stop matching. The
// file named keeps client-go's tools/cache, a file no such handler
// involves still switches, and the module still builds.
func TestATombstoneAssertionKeepsClientGosTypeWhereverItsHandlerRunsOnAnInformerOfTheOtherLibrary(t *testing.T) {
	cases := []struct {
		name, scenario, keeps, switches string
	}{
		{"a handler given to client-go's informer constructors, not to AddEventHandler", "testdata/hazard-constructor", "handlers/handlers.go", "other/other.go"},
		{"a client-go tombstone asserted in a kept file, registered on a switched hand-built informer", "testdata/hazard-kcache-registration", "ctl/ctl.go", ""},
		{"client-go's DeletionHandlingMetaNamespaceKeyFunc in a kept file, registered on a switched hand-built informer", "testdata/hazard-keyfunc", "ctl/ctl.go", ""},
	}
	bin := buildTool(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			module := newModuleFrom(t, tc.scenario)
			report := runTool(t, bin, module)
			src, err := os.ReadFile(filepath.Join(module, tc.keeps))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(src), `"`+clientgoCachePath+`"`) {
				t.Errorf("%s no longer imports %s:\n%s\nreport:\n%s", tc.keeps, clientgoCachePath, src, report)
			}
			if !strings.Contains(report, tc.keeps+": keeps import") || !strings.Contains(report, "DeletedFinalStateUnknown") {
				t.Errorf("the report does not say why %s keeps client-go's tools/cache:\n%s", tc.keeps, report)
			}
			if tc.switches != "" && !strings.Contains(report, tc.switches+":9: import \"k8s.io/client-go/tools/cache\" → ") {
				t.Errorf("%s, which no handler of the others involves, is not switched:\n%s", tc.switches, report)
			}
			build := exec.Command("go", "build", "./...")
			build.Dir = module
			if out, err := build.CombinedOutput(); err != nil {
				t.Errorf("the switched module does not build: %v\n%s", err, out)
			}
		})
	}
}
