package switcher

import (
	"bytes"
	"fmt"
	"strings"

	"golang.org/x/mod/modfile"
)

// modOutcome is what a run writes to go.mod and go.sum (nil: unchanged)
// and the report lines saying so.
type modOutcome struct {
	mod, sum []byte
	lines    []string
}

// outcome compares the temporary go.mod and go.sum, as the loads left
// them, with the module's. go.mod is written only when the run asked for
// an edit; a switch that needs go.mod changes it did not ask for fails
// with the changes it needs. go.sum gains the lines the new imports need.
func (m *modSetup) outcome() (modOutcome, error) {
	mod, sum, err := m.current()
	if err != nil {
		return modOutcome{}, err
	}
	var o modOutcome
	if changes := modChanges(m.origMod, mod); len(changes) > 0 {
		if len(m.asked) == 0 {
			return o, fmt.Errorf("the switched module needs these go.mod changes: %s; rerun with -require=VERSION (or -replace=DIR) to write them",
				strings.Join(changes, "; "))
		}
		o.mod = mod
		o.lines = append(o.lines, m.asked...)
		for _, c := range changes {
			if !contains(m.asked, c) {
				o.lines = append(o.lines, c+" (selected by the go command)")
			}
		}
	}
	if !bytes.Equal(sum, m.origSum) && len(sum) > 0 {
		o.sum = sum
		o.lines = append(o.lines, fmt.Sprintf("go.sum: %d lines added", sumLinesAdded(m.origSum, sum)))
	}
	return o, nil
}

// modChanges lists the require and replace lines of new that old lacks or
// has with another version, and those old has that new dropped.
func modChanges(old, new []byte) []string {
	of, err1 := modfile.Parse("go.mod", old, nil)
	nf, err2 := modfile.Parse("go.mod", new, nil)
	if err1 != nil || err2 != nil {
		if bytes.Equal(old, new) {
			return nil
		}
		return []string{"go.mod rewritten"}
	}
	was := map[string]string{}
	for _, r := range of.Require {
		was[r.Mod.Path] = r.Mod.Version
	}
	is := map[string]bool{}
	var out []string
	for _, r := range nf.Require {
		is[r.Mod.Path] = true
		switch v, ok := was[r.Mod.Path]; {
		case !ok:
			out = append(out, "require "+r.Mod.Path+" "+r.Mod.Version)
		case v != r.Mod.Version:
			out = append(out, "require "+r.Mod.Path+" "+v+" → "+r.Mod.Version)
		}
	}
	for _, r := range of.Require {
		if !is[r.Mod.Path] {
			out = append(out, "drop require "+r.Mod.Path+" "+r.Mod.Version)
		}
	}
	before, after := replaceLines(of), replaceLines(nf)
	for _, l := range after {
		if !contains(before, l) {
			out = append(out, l)
		}
	}
	for _, l := range before {
		if !contains(after, l) {
			out = append(out, "drop "+l)
		}
	}
	return out
}

func replaceLines(f *modfile.File) []string {
	var out []string
	for _, r := range f.Replace {
		old := r.Old.Path
		if r.Old.Version != "" {
			old += " " + r.Old.Version
		}
		newer := r.New.Path
		if r.New.Version != "" {
			newer += " " + r.New.Version
		}
		out = append(out, "replace "+old+" => "+newer)
	}
	return out
}

// dropKcache returns the temporary go.mod without kcache's require and
// replace lines (-revert -require=none).
func (m *modSetup) dropKcache() error {
	mod, sum, err := m.current()
	if err != nil {
		return err
	}
	f, err := modfile.Parse("go.mod", mod, nil)
	if err != nil {
		return err
	}
	if err := f.DropRequire(kcachePath); err != nil {
		return err
	}
	for _, r := range f.Replace {
		if r.Old.Path == kcachePath {
			if err := f.DropReplace(kcachePath, r.Old.Version); err != nil {
				return err
			}
		}
	}
	f.Cleanup()
	out, err := f.Format()
	if err != nil {
		return err
	}
	m.asked = append(m.asked, modChanges(mod, out)...)
	return m.writeTmp(out, sum)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
