package switcher

import (
	"sort"
	"strings"
)

// baselineErrors returns the errors of the module before the switch, as
// the verifier compares them, and the packages holding them (package path
// → first error).
func baselineErrors(res *loadResult, files []*srcFile) (map[string]bool, map[string]string) {
	set := map[string]bool{}
	for file, errs := range res.Errors {
		for _, e := range errs {
			set[file+"\x00"+e] = true
		}
	}
	broken := map[string]string{}
	for _, p := range res.Pkgs {
		if len(p.Errors) > 0 && p.Module != nil && p.Module.Main {
			if _, ok := broken[p.PkgPath]; !ok {
				broken[p.PkgPath] = p.Errors[0].Error()
			}
		}
	}
	return set, broken
}

// newErrors returns the errors of res the module did not have before the
// switch, by file.
func (v *verifier) newErrors(res *loadResult) map[string][]string {
	return newErrorsOf(res, v.baseline)
}

// newErrorsOf returns the errors of res that baseline lacks, by file.
func newErrorsOf(res *loadResult, baseline map[string]bool) map[string][]string {
	out := map[string][]string{}
	for file, errs := range res.Errors {
		for _, e := range errs {
			if !baseline[file+"\x00"+e] {
				out[file] = append(out[file], e)
			}
		}
	}
	return out
}

// fallForErrors falls the plans the new errors are blamed on: the plan of
// each file with an error; else the plans of the packages with errors;
// else the plans of the module packages those import; else every plan.
// It reports false when no plan is left to fall.
func (v *verifier) fallForErrors(res *loadResult, bad map[string][]string) bool {
	fell := false
	for _, file := range sortedKeys(bad) {
		if p := v.plans[file]; p != nil && !p.empty() {
			v.fall(file, "with the rewrite it does not type-check (position in the rewritten file): "+v.relative(bad[file][0]))
			fell = true
		}
	}
	if fell {
		return true
	}
	reason := "the rewrite breaks other files: " + v.relative(firstError(bad))
	for _, suspects := range []map[string]bool{v.errorPackages(res, bad), v.importedBy(res, v.errorPackages(res, bad)), nil} {
		for _, path := range v.order {
			p := v.plans[path]
			if p != nil && !p.empty() && (suspects == nil || suspects[p.file.Pkg.PkgPath]) {
				v.fall(path, reason)
				fell = true
			}
		}
		if fell {
			return true
		}
	}
	return false
}

// errorPackages returns the import paths of the packages holding bad's
// errors.
func (v *verifier) errorPackages(res *loadResult, bad map[string][]string) map[string]bool {
	out := map[string]bool{}
	for file := range bad {
		if strings.HasPrefix(file, "pkg:") {
			out[strings.TrimPrefix(file, "pkg:")] = true
		}
	}
	for _, p := range res.Pkgs {
		for _, f := range p.CompiledGoFiles {
			if _, ok := bad[f]; ok {
				out[p.PkgPath] = true
			}
		}
	}
	return out
}

// importedBy returns the packages the packages pkgs import directly.
func (v *verifier) importedBy(res *loadResult, pkgs map[string]bool) map[string]bool {
	out := map[string]bool{}
	for _, p := range res.Pkgs {
		if !pkgs[p.PkgPath] {
			continue
		}
		for path := range p.Imports {
			out[path] = true
		}
	}
	return out
}

func firstError(bad map[string][]string) string {
	keys := sortedKeys(bad)
	if len(keys) == 0 {
		return ""
	}
	errs := append([]string(nil), bad[keys[0]]...)
	sort.Strings(errs)
	return errs[0]
}

// relative shortens the module root out of an error message.
func (v *verifier) relative(msg string) string {
	return strings.ReplaceAll(msg, v.root+"/", "")
}
