package switcher

import (
	"fmt"
	"sort"
	"strings"
)

// verifier owns the plans of a run and falls them level by level until
// the rewritten module type-checks (no error the module did not have
// before) and has no tombstone hazard. It is used by one goroutine.
type verifier struct {
	g        goRun
	root     string
	patterns []string
	rs       *ruleset
	files    map[string]*srcFile // by absolute path
	order    []string            // the paths, sorted
	plans    map[string]*filePlan
	rendered map[*filePlan][]byte
	baseline map[string]bool // file + "\x00" + message of the errors before the switch
	reasons  map[string][]Entry
	loads    int
	tagged   *taggedConfig // nil when no file is left out by a custom tag
}

func newVerifier(g goRun, root string, patterns []string, files []*srcFile, rs *ruleset, baseline map[string]bool) *verifier {
	v := &verifier{g: g, root: root, patterns: patterns, rs: rs, files: map[string]*srcFile{}, plans: map[string]*filePlan{},
		rendered: map[*filePlan][]byte{}, baseline: baseline, reasons: map[string][]Entry{}}
	for _, sf := range files {
		v.files[sf.Path] = sf
		v.order = append(v.order, sf.Path)
	}
	sort.Strings(v.order)
	return v
}

// planAll plans every file at its first level, except the files of
// packages that did not type-check before the switch (broken: package
// path → first error).
func (v *verifier) planAll(broken map[string]string) {
	for _, path := range v.order {
		sf := v.files[path]
		if err, ok := broken[sf.Pkg.PkgPath]; ok {
			if v.mentionsRules(sf) {
				v.reasons[path] = append(v.reasons[path], Entry{File: sf.Rel, Text: "left as it is: its package does not type-check before the switch: " + v.relative(err)})
			}
			continue
		}
		level := levelImport
		if sf.Generator != "" {
			level = levelCalls
		}
		if p := planFile(sf, v.rs, level); p != nil {
			v.plans[path] = p
		} else {
			v.reasons[path] = append(v.reasons[path], otherGeneratorNotes(sf, v.rs)...)
		}
	}
}

// mentionsRules tells whether sf imports a package some rule reads from.
func (v *verifier) mentionsRules(sf *srcFile) bool {
	for _, spec := range sf.AST.Imports {
		path := strings.Trim(spec.Path.Value, `"`)
		if _, ok := v.rs.imports[path]; ok || v.rs.fromPackage(path) {
			return true
		}
	}
	return false
}

// run renders the plans, type-checks the rewritten module, and falls the
// plans that break it or carry a hazard, until it holds. It returns the
// last load (nil when nothing is left to rewrite).
func (v *verifier) run() (*loadResult, error) {
	for {
		overlay, err := v.overlay()
		if err != nil || len(overlay) == 0 {
			return nil, err
		}
		v.loads++
		res, err := v.g.load(v.patterns, overlay)
		if err != nil {
			return nil, err
		}
		bad := v.newErrors(res)
		if len(bad) == 0 && v.tagged != nil {
			tres, tbad, err := v.tagged.check(v.patterns, overlay)
			if err != nil {
				return nil, err
			}
			if len(tbad) > 0 {
				res, bad = tres, tbad
			}
		}
		// NB: a tombstone hazard only grows as other plans fall (they leave
		// more client-go-typed informers), so it is acted on together with
		// the errors, saving a load; a cross-library registration may go
		// away with them, so it waits for a program without errors.
		hz := findHazards(res, v.root, v.switchedFiles(), len(bad) == 0)
		if len(bad) == 0 && len(hz) == 0 {
			return res, nil
		}
		if len(bad) > 0 && !v.fallForErrors(res, bad) {
			return nil, fmt.Errorf("the rewritten module does not type-check and no rewrite is left to undo: %s", v.relative(firstError(bad)))
		}
		for _, h := range hz {
			if p := v.plans[h.file]; p != nil && p.level == levelImport {
				v.fall(h.file, h.reason)
			}
		}
	}
}

// overlay renders every plan that changes its file.
func (v *verifier) overlay() (map[string][]byte, error) {
	out := map[string][]byte{}
	for path, p := range v.plans {
		if p.empty() {
			continue
		}
		src, ok := v.rendered[p]
		if !ok {
			var err error
			if src, err = render(p); err != nil {
				return nil, err
			}
			v.rendered[p] = src
		}
		if string(src) != string(p.file.Src) {
			out[path] = src
		}
	}
	return out, nil
}

func (v *verifier) switchedFiles() map[string]bool {
	out := map[string]bool{}
	for path, p := range v.plans {
		if p.switched {
			out[path] = true
		}
	}
	return out
}

// fall moves the plan of path one level down, recording why.
func (v *verifier) fall(path, reason string) {
	p := v.plans[path]
	sf := p.file
	text := "not switched: " + reason
	if p.level == levelImport {
		var kept []string
		for _, spec := range sf.AST.Imports {
			if path := strings.Trim(spec.Path.Value, `"`); v.rs.imports[path] != "" {
				kept = append(kept, fmt.Sprintf("%q", path))
			}
		}
		text = fmt.Sprintf("keeps import %s: %s", strings.Join(kept, ", "), reason)
	}
	v.reasons[path] = append(v.reasons[path], Entry{File: sf.Rel, Text: text})
	v.plans[path] = planFile(sf, v.rs, p.level+1)
}
