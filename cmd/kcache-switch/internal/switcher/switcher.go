// Package switcher rewrites a Go module from client-go's informer
// machinery to kcache's (and back, with Revert): whole imports of
// k8s.io/client-go/tools/cache where the file type-checks with kcache's,
// factory and informer constructors to github.com/kcache-go/cache/clientgo,
// and controller-runtime options to kcache's informers. The rules are the
// tables of rules.go and rules_pending.go. A run writes nothing unless the
// rewritten module type-checks.
package switcher

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Options configure one run.
type Options struct {
	// Dir is a directory of the module to switch.
	Dir string
	// Patterns are the packages to switch (default "./...").
	Patterns []string
	// Revert switches back to client-go.
	Revert bool
	// DryRun reports without writing.
	DryRun bool
	// Require adds "require github.com/kcache-go/cache Require" to go.mod;
	// with Revert, "none" drops kcache's require and replace once nothing
	// imports it.
	Require string
	// Replace adds "replace github.com/kcache-go/cache => Replace".
	Replace string
	// Tags are the build tags of the loads.
	Tags string
	// Env is the environment of the go command (nil: this process's).
	Env []string
}

// Run switches the module and returns the report. On an error nothing is
// written.
func Run(opts Options) (*Report, error) {
	if len(opts.Patterns) == 0 {
		opts.Patterns = []string{"./..."}
	}
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	env = append(append([]string(nil), env...), "GOWORK=off")
	m, err := setupModule(opts.Dir, env, opts)
	if err != nil {
		return nil, err
	}
	defer m.cleanup()
	g := goRun{Dir: opts.Dir, Env: env, BuildFlags: m.buildFlags(opts.Tags)}
	v, err := prepare(g, m, opts)
	if err != nil {
		return nil, err
	}
	res, err := v.run()
	if err != nil {
		return nil, err
	}
	if opts.Revert && opts.Require == "none" {
		if err := v.dropRequire(m, res); err != nil {
			return nil, err
		}
	}
	return finish(v, m, opts)
}

// prepare loads the module as it is, reads the rule targets its build
// resolves, and plans every file.
func prepare(g goRun, m *modSetup, opts Options) (*verifier, error) {
	first, err := g.load(opts.Patterns, nil)
	if err != nil {
		return nil, err
	}
	files, err := moduleFiles(first, m.Root)
	if err != nil {
		return nil, err
	}
	rs := newRuleset(!opts.Revert)
	rs.vendored = m.vendored
	imported := map[string]bool{}
	for _, sf := range files {
		for _, spec := range sf.AST.Imports {
			imported[strings.Trim(spec.Path.Value, `"`)] = true
		}
	}
	targets, err := g.loadTypes(rs.targetPaths(imported))
	if err != nil {
		return nil, err
	}
	rs.setTargets(targets)
	baseline, broken := baselineErrors(first, files)
	v := newVerifier(g, m.Root, opts.Patterns, files, rs, baseline)
	v.planAll(broken)
	ignored := ignoredFiles(first, m.Root)
	if v.tagged, err = newTaggedConfig(g, opts.Patterns, m.Root, opts.Tags, ignored); err != nil {
		return nil, err
	}
	for _, e := range v.ignoredNotes(ignored) {
		v.reasons[filepath.Join(m.Root, e.File)] = append(v.reasons[filepath.Join(m.Root, e.File)], e)
		v.order = appendSorted(v.order, filepath.Join(m.Root, e.File))
	}
	return v, nil
}

// finish settles go.mod and go.sum, writes everything unless it is a dry
// run, and returns the report.
func finish(v *verifier, m *modSetup, opts Options) (*Report, error) {
	out, err := m.outcome()
	if err != nil {
		return nil, err
	}
	r := v.report()
	r.GoMod, r.DryRun = out.lines, opts.DryRun
	if opts.DryRun || (len(r.Files) == 0 && out.mod == nil && out.sum == nil) {
		return r, nil
	}
	for path, src := range v.written() {
		if err := writeKeepingMode(path, src); err != nil {
			return r, fmt.Errorf("writing %s: %w (the module is now partly switched; rerun to finish)", path, err)
		}
	}
	if out.mod != nil {
		if err := writeKeepingMode(m.goMod, out.mod); err != nil {
			return r, err
		}
	}
	if out.sum != nil {
		if err := writeKeepingMode(m.goSum, out.sum); err != nil {
			return r, err
		}
	}
	r.Written = true
	return r, nil
}

func writeKeepingMode(path string, data []byte) error {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	return os.WriteFile(path, data, mode)
}

func appendSorted(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	list = append(list, s)
	for i := len(list) - 1; i > 0 && list[i] < list[i-1]; i-- {
		list[i], list[i-1] = list[i-1], list[i]
	}
	return list
}
