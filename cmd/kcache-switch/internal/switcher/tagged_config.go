package switcher

import (
	"fmt"
	"go/build/constraint"
	"os"
	"os/exec"
	"sort"
	"strings"
)

// taggedConfig is the build configuration a run verifies besides its own:
// the module with the custom build tags of the files the run's build
// constraints leave out (a //go:build e2e test handing a switched
// informer's indexer to a client-go lister), so that a rewrite does not
// break a build the run cannot see. Its files are type-checked, never
// rewritten. It is only read after prepare builds it.
type taggedConfig struct {
	g        goRun
	tags     string
	baseline map[string]bool // errors before the switch, as newErrorsOf compares them
	files    map[string]bool // the module files it builds
}

// newTaggedConfig returns the configuration of the custom tags of ignored
// files (nil when they name none) with its errors before the switch.
func newTaggedConfig(g goRun, patterns []string, root, tags string, ignored []string) (*taggedConfig, error) {
	custom := customTags(ignored, tags, knownTags(g))
	if len(custom) == 0 {
		return nil, nil
	}
	all := strings.Join(append(strings.FieldsFunc(tags, func(r rune) bool { return r == ',' || r == ' ' }), custom...), ",")
	c := &taggedConfig{g: g, tags: all, files: map[string]bool{}}
	c.g.BuildFlags = nil
	for _, f := range g.BuildFlags {
		if !strings.HasPrefix(f, "-tags=") {
			c.g.BuildFlags = append(c.g.BuildFlags, f)
		}
	}
	c.g.BuildFlags = append(c.g.BuildFlags, "-tags="+all)
	res, err := c.g.load(patterns, nil)
	if err != nil {
		return nil, err
	}
	files, err := moduleFiles(res, root)
	if err != nil {
		return nil, err
	}
	for _, sf := range files {
		c.files[sf.Path] = true
	}
	c.baseline, _ = baselineErrors(res, files)
	return c, nil
}

// customTags returns, sorted, the tags the //go:build lines of files name
// that are neither known (GOOS, GOARCH, toolchain and release tags) nor
// already in tags.
func customTags(files []string, tags string, known map[string]bool) []string {
	seen := map[string]bool{}
	for _, t := range strings.FieldsFunc(tags, func(r rune) bool { return r == ',' || r == ' ' }) {
		seen[t] = true
	}
	var out []string
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(src), "\n") {
			if strings.HasPrefix(line, "package ") {
				break
			}
			expr, err := constraint.Parse(line)
			if err != nil {
				continue
			}
			expr.Eval(func(tag string) bool {
				if !seen[tag] && !known[tag] && !strings.HasPrefix(tag, "go1.") && !strings.HasPrefix(tag, "goexperiment.") {
					seen[tag] = true
					out = append(out, tag)
				}
				return true
			})
		}
	}
	sort.Strings(out)
	return out
}

// knownTags are the tags a build sets by itself or that select another
// platform or toolchain, which -tags cannot bring in: the GOOS and GOARCH
// of `go tool dist list`, and the toolchain's own.
func knownTags(g goRun) map[string]bool {
	known := map[string]bool{"cgo": true, "gc": true, "gccgo": true, "unix": true, "ignore": true,
		"race": true, "msan": true, "asan": true, "boringcrypto": true}
	cmd := exec.Command("go", "tool", "dist", "list")
	cmd.Dir, cmd.Env = g.Dir, g.Env
	out, _ := cmd.Output()
	for _, l := range strings.Fields(string(out)) {
		if os, arch, ok := strings.Cut(l, "/"); ok {
			known[os], known[arch] = true, true
		}
	}
	return known
}

// check type-checks the rewritten module (overlay) in this configuration
// and returns the errors it did not have before, each saying the tags.
func (c *taggedConfig) check(patterns []string, overlay map[string][]byte) (*loadResult, map[string][]string, error) {
	res, err := c.g.load(patterns, overlay)
	if err != nil {
		return nil, nil, err
	}
	bad := newErrorsOf(res, c.baseline)
	for f, errs := range bad {
		for i, e := range errs {
			bad[f][i] = fmt.Sprintf("with -tags=%s: %s", c.tags, e)
		}
	}
	return res, bad, nil
}
