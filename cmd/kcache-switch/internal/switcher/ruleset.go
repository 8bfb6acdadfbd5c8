package switcher

import (
	"fmt"
	"go/types"
	"sort"

	"golang.org/x/tools/go/packages"
)

// mapping is one call rule read in the direction of the run: a reference
// to from becomes a reference to to.
type mapping struct {
	from, to  ref
	what      string
	toAliases []string
	pending   string
}

// ruleset is the rule tables read in one direction (forward: client-go →
// kcache; revert: kcache → client-go), with the packages of the targets as
// the module's build resolves them. It is built once per run and only read
// afterwards.
type ruleset struct {
	forward bool
	imports map[string]string // whole imports: from path → to path
	calls   map[ref]mapping
	// targets holds the types of every to-package the module's build
	// resolves (nil entries are absent); set by setTargets.
	targets map[string]*types.Package
	// vendored is set when the module builds from its vendor directory,
	// which holds only the packages the module imported when it was made.
	vendored bool
}

func newRuleset(forward bool) *ruleset {
	rs := &ruleset{forward: forward, imports: map[string]string{}, calls: map[ref]mapping{}}
	for _, r := range importRules {
		if forward {
			rs.imports[r.From] = r.To
		} else {
			rs.imports[r.To] = r.From
		}
	}
	for _, r := range callRules {
		m := rs.read(r)
		rs.calls[m.from] = m
	}
	return rs
}

// read turns a table row into the mapping of the run's direction.
func (rs *ruleset) read(r callRule) mapping {
	toAliases := r.ToAliases
	if len(toAliases) == 0 {
		toAliases = clientgoAliases
	}
	if rs.forward {
		return mapping{from: r.From, to: r.To, what: r.What, toAliases: toAliases, pending: r.Pending}
	}
	return mapping{from: r.To, to: r.From, what: r.What, toAliases: r.Aliases, pending: r.Pending}
}

// call returns the mapping of a reference to path.name from the call
// table.
func (rs *ruleset) call(path, name string) (mapping, bool) {
	m, ok := rs.calls[ref{path, name}]
	return m, ok
}

// targetPaths returns every package a rule of this direction may need,
// given the packages the module imports: the whole-import targets, both
// sides of the call rows and wrap rules whose from-package is imported (so
// that their types come from one load and compare), and
// controller-runtime's cache package and clientgo for the option rules.
func (rs *ruleset) targetPaths(imported map[string]bool) []string {
	set := map[string]bool{kcacheClientgoPath: true}
	for from, to := range rs.imports {
		if imported[from] {
			set[to] = true
		}
	}
	for _, m := range rs.calls {
		if imported[m.from.Path] {
			set[m.from.Path], set[m.to.Path] = true, true
		}
	}
	for path := range imported {
		for _, w := range wrapRules {
			if rs.forward && w.FromPath.MatchString(path) {
				set[path], set[w.Wrap.Path] = true, true
			}
		}
		if path == crManagerPath || path == crClusterPath || path == crRootPath {
			set[crCachePath] = true
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// status tells whether m can be applied: to must exist in the module's
// build with from's very type. reason says why not.
func (rs *ruleset) status(m mapping) (ok bool, reason string) {
	lookup := func(r ref) types.Object {
		if p := rs.targets[r.Path]; p != nil {
			return p.Scope().Lookup(r.Name)
		}
		return nil
	}
	fromObj, toObj, toPkg := lookup(m.from), lookup(m.to), rs.targets[m.to.Path]
	switch {
	case toPkg == nil && rs.vendored:
		return false, rs.noPackage(m.to.Path)
	case toObj != nil && fromObj != nil && types.Identical(fromObj.Type(), toObj.Type()):
		return true, ""
	case toObj == nil && m.pending != "":
		return false, m.pending
	case toPkg == nil:
		return false, rs.noPackage(m.to.Path)
	case toObj == nil:
		return false, fmt.Sprintf("%s has no %s", m.to.Path, m.to.Name)
	default:
		return false, fmt.Sprintf("%s.%s has another signature than %s.%s", m.to.Path, m.to.Name, m.from.Path, m.from.Name)
	}
}

// noPackage is the reason a rule whose target package the module's build
// lacks is not applied.
func (rs *ruleset) noPackage(path string) string {
	if rs.vendored {
		return fmt.Sprintf("the module's vendor directory has no package %s (import it once, run go mod vendor, rerun)", path)
	}
	return fmt.Sprintf("the module's build has no package %s", path)
}

// fromPackage tells whether a call row or wrap rule of this direction reads
// from the package at path.
func (rs *ruleset) fromPackage(path string) bool {
	for _, m := range rs.calls {
		if m.from.Path == path {
			return true
		}
	}
	for _, w := range wrapRules {
		if (rs.forward && w.FromPath.MatchString(path)) || (!rs.forward && path == w.Wrap.Path) {
			return true
		}
	}
	return false
}

// setTargets records the target packages the module's build resolves.
func (rs *ruleset) setTargets(pkgs map[string]*packages.Package) {
	rs.targets = map[string]*types.Package{}
	for path, p := range pkgs {
		rs.targets[path] = p.Types
	}
}
