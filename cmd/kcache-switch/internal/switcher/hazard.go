package switcher

import (
	"fmt"
)

// The two libraries' DeletedFinalStateUnknown are different Go types, while
// their event handler and informer interfaces have the same method sets.
// So a file can switch its import, type-check, and silently stop
// unwrapping tombstones: `obj.(cache.DeletedFinalStateUnknown)` then tests
// kcache's type while the handler runs on a client-go-typed informer (a
// factory's, a generated one, a clientgo view), which delivers client-go's.
// The checks below run on the rewritten program and name the files whose
// whole-import switch has to be undone.

var handlerMethods = map[string]bool{
	"AddEventHandler": true, "AddEventHandlerWithResyncPeriod": true, "AddEventHandlerWithOptions": true,
}

// libraryOf names the library of a tools/cache package path, "" for others.
func libraryOf(path string) string {
	switch path {
	case clientgoCachePath:
		return "client-go"
	case kcachePath:
		return "kcache"
	}
	return ""
}

// site is a place in the rewritten program: a handler registration (lib:
// the informer's library, arg: the handler value's library) or a tombstone
// assertion (lib: the asserted type's library).
type site struct {
	file string // absolute
	// typeFile is the file declaring the alias a tombstone assertion
	// names ("" when it names the type itself).
	typeFile string
	// unwrapper names the tombstone-unwrapping function of a tombstone
	// site that is a reference to one ("" for an assertion).
	unwrapper string
	rel       string // file:line, relative to the module root
	pkg       string
	lib       string
	arg       string
}

// hazard is a file whose whole-import switch must go, and why.
type hazard struct {
	file, reason string
}

// findHazards returns the hazards of the rewritten program; switched
// tells which files switch a whole import; crossLibrary asks for the
// cross-library registrations too. A tombstone assertion is checked
// against the registrations of the packages a handler defined next to it
// can reach: its own, those it imports and those importing it,
// transitively. A mismatch is blamed on the switched files that made it:
// the assertion's file (or the file declaring the alias it asserts), else
// the registration's (tombstoneCulprits); a mismatch no switched file
// made is the module's own and left alone.
func findHazards(res *loadResult, root string, switched map[string]bool, crossLibrary bool) []hazard {
	regs, tombs := scanSites(res, root)
	graph := newImportGraph(res)
	var out []hazard
	for _, t := range tombs {
		related := graph.related(t.pkg)
		for _, r := range regs {
			if r.lib == "" || r.lib == t.lib || !related[r.pkg] {
				continue
			}
			files := tombstoneCulprits(t, r, switched, res)
			if len(files) == 0 {
				continue
			}
			what := fmt.Sprintf("asserts %s's DeletedFinalStateUnknown", t.lib)
			if t.unwrapper != "" {
				what = fmt.Sprintf("keys deletes with %s's %s, which unwraps %s's DeletedFinalStateUnknown only,", t.lib, t.unwrapper, t.lib)
			}
			reason := fmt.Sprintf("%s (%s) while handlers are registered on %s-typed informers (%s), which deliver %s's tombstone",
				what, t.rel, r.lib, r.rel, r.lib)
			for _, f := range files {
				out = append(out, hazard{f, reason})
			}
			break
		}
	}
	// NB: a tombstone hazard's fall often ends the cross-library
	// registrations too (the handler's file keeps client-go's types), and
	// these blame every switched file when they cannot tell the one at
	// fault; so they wait for a program without tombstone hazards.
	for _, r := range regs {
		if !crossLibrary || len(out) > 0 || r.lib == "" || r.arg == "" || r.lib == r.arg {
			continue
		}
		reason := fmt.Sprintf("registers a %s handler on a %s informer (%s): its tombstones would not be the ones it tests for", r.arg, r.lib, r.rel)
		for _, f := range culprits(r, switched, res) {
			out = append(out, hazard{f, reason})
		}
	}
	return out
}

// tombstoneCulprits are the switched files a tombstone assertion t that
// does not match registration r is blamed on: t's file or the file
// declaring the alias t asserts, else r's file or the switched files of
// r's package; none when no switched file is involved.
func tombstoneCulprits(t, r site, switched map[string]bool, res *loadResult) []string {
	var out []string
	for _, f := range []string{t.file, t.typeFile} {
		if f != "" && switched[f] {
			out = append(out, f)
		}
	}
	if len(out) > 0 {
		return out
	}
	if switched[r.file] {
		return []string{r.file}
	}
	for _, p := range res.Pkgs {
		if p.PkgPath != r.pkg {
			continue
		}
		for _, f := range p.CompiledGoFiles {
			if switched[f] && !contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// culprits are the switched files a cross-library registration is blamed
// on: its own file, else the switched files of its package, else every
// switched file.
func culprits(r site, switched map[string]bool, res *loadResult) []string {
	if switched[r.file] {
		return []string{r.file}
	}
	var same, all []string
	for _, p := range res.Pkgs {
		for _, f := range p.CompiledGoFiles {
			if switched[f] {
				all = append(all, f)
				if p.PkgPath == r.pkg {
					same = append(same, f)
				}
			}
		}
	}
	if len(same) > 0 {
		return same
	}
	return all
}

// importGraph is the import graph of the module's packages (test variants
// merged into their package).
type importGraph struct {
	imports, importedBy map[string][]string
}

func newImportGraph(res *loadResult) importGraph {
	g := importGraph{imports: map[string][]string{}, importedBy: map[string][]string{}}
	main := map[string]bool{}
	for _, p := range res.Pkgs {
		if p.Module != nil && p.Module.Main {
			main[p.PkgPath] = true
		}
	}
	for _, p := range res.Pkgs {
		if !main[p.PkgPath] {
			continue
		}
		for path := range p.Imports {
			if main[path] && path != p.PkgPath {
				g.imports[p.PkgPath] = append(g.imports[p.PkgPath], path)
				g.importedBy[path] = append(g.importedBy[path], p.PkgPath)
			}
		}
	}
	return g
}

// related returns pkg, the packages it imports and the packages importing
// it, transitively.
func (g importGraph) related(pkg string) map[string]bool {
	out := map[string]bool{pkg: true}
	for _, edges := range []map[string][]string{g.imports, g.importedBy} {
		seen := map[string]bool{pkg: true}
		for queue := []string{pkg}; len(queue) > 0; queue = queue[1:] {
			for _, q := range edges[queue[0]] {
				if !seen[q] {
					seen[q], out[q] = true, true
					queue = append(queue, q)
				}
			}
		}
	}
	return out
}
