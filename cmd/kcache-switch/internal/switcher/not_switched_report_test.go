package switcher

import (
	"strings"
	"testing"
)

// TestEveryConstructorUseTheSwitchLeavesToClientGoIsInTheReport switches
// a module whose uses of client-go's constructors no rule rewrites (dot
// imports, a typed constructor kept as a func value, another generator's
// output): each stays client-go's, so the report lists it under "not
// switched", at its line.
func TestEveryConstructorUseTheSwitchLeavesToClientGoIsInTheReport(t *testing.T) {
	module := newModuleFrom(t, "testdata/unreported")
	report := runTool(t, buildTool(t), module, "-dry-run")
	_, notSwitched, _ := strings.Cut(report, "not switched:\n")
	for _, want := range []string{
		"dot/dot.go:17: ",         // NewSharedInformerFactory through a dot import
		"dot/dot.go:18: ",         // NewSharedIndexInformer through a dot import
		"funcval/funcval.go:13: ", // corev1informers.NewPodInformer as a value
		"mock/mock.go:16: ",       // informers.NewSharedInformerFactory in mockgen output
	} {
		if !strings.Contains(notSwitched, "  "+want) {
			t.Errorf("the report has no not-switched line at %s:\n%s", strings.TrimSpace(want), report)
		}
	}
}

// TestRevertReportsEveryOnKcacheItLeaves reverts a module where
// clientgo.OnKcache takes a variable: revert unwraps only the calls the
// switch wraps, so the informer stays kcache's, and the report says so at
// its line.
func TestRevertReportsEveryOnKcacheItLeaves(t *testing.T) {
	module := newModuleFrom(t, "testdata/unreported-revert")
	report := runTool(t, buildTool(t), module, "-revert", "-dry-run")
	if _, notSwitched, _ := strings.Cut(report, "not switched:\n"); !strings.Contains(notSwitched, "  a/a.go:17: ") {
		t.Errorf("the report has no not-switched line at a/a.go:17:\n%s", report)
	}
}
