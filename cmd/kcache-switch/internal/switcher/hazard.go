package switcher

import (
	"fmt"
	"go/ast"
	"go/types"
	"path/filepath"

	"golang.org/x/tools/go/packages"
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
	rel  string // file:line, relative to the module root
	pkg  string
	lib  string
	arg  string
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
// transitively.
func findHazards(res *loadResult, root string, switched map[string]bool, crossLibrary bool) []hazard {
	regs, tombs := scanSites(res, root)
	graph := newImportGraph(res)
	var out []hazard
	for _, t := range tombs {
		if !switched[t.file] {
			continue
		}
		related := graph.related(t.pkg)
		for _, r := range regs {
			if r.lib != "" && r.lib != t.lib && related[r.pkg] {
				out = append(out, hazard{t.file, fmt.Sprintf("asserts %s's DeletedFinalStateUnknown (%s) while handlers are registered on %s-typed informers (%s), which deliver %s's tombstone",
					t.lib, t.rel, r.lib, r.rel, r.lib)})
				break
			}
		}
	}
	for _, r := range regs {
		if !crossLibrary || r.lib == "" || r.arg == "" || r.lib == r.arg {
			continue
		}
		reason := fmt.Sprintf("registers a %s handler on a %s informer (%s): its tombstones would not be the ones it tests for", r.arg, r.lib, r.rel)
		for _, f := range culprits(r, switched, res) {
			out = append(out, hazard{f, reason})
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

// scanSites collects the handler registrations and tombstone assertions of
// the module's files.
func scanSites(res *loadResult, root string) (regs, tombs []site) {
	seen := map[string]bool{}
	for _, p := range res.Pkgs {
		if p.Module == nil || !p.Module.Main {
			continue
		}
		for _, f := range p.Syntax {
			name := p.Fset.File(f.Pos()).Name()
			if seen[name] {
				continue
			}
			seen[name] = true
			r, t := scanFile(p, f, name, root)
			regs, tombs = append(regs, r...), append(tombs, t...)
		}
	}
	return regs, tombs
}

func scanFile(p *packages.Package, f *ast.File, name, root string) (regs, tombs []site) {
	at := func(n ast.Node) site {
		rel, _ := filepath.Rel(root, name)
		return site{file: name, pkg: p.PkgPath, rel: fmt.Sprintf("%s:%d", filepath.ToSlash(rel), p.Fset.Position(n.Pos()).Line)}
	}
	info := p.TypesInfo
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if s, ok := registration(info, n); ok {
				s.file, s.pkg, s.rel = at(n).file, at(n).pkg, at(n).rel
				regs = append(regs, s)
			}
		case *ast.TypeAssertExpr:
			if lib := tombstoneLib(info.TypeOf(n.Type)); n.Type != nil && lib != "" {
				s := at(n)
				s.lib = lib
				tombs = append(tombs, s)
			}
		case *ast.CaseClause:
			for _, e := range n.List {
				if lib := tombstoneLib(info.TypeOf(e)); lib != "" {
					s := at(e)
					s.lib = lib
					tombs = append(tombs, s)
				}
			}
		}
		return true
	})
	return regs, tombs
}

// registration reads an AddEventHandler* call: the library of the
// informer's method and of the handler value's type.
func registration(info *types.Info, call *ast.CallExpr) (site, bool) {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || !handlerMethods[sel.Sel.Name] || len(call.Args) == 0 {
		return site{}, false
	}
	selection := info.Selections[sel]
	if selection == nil || selection.Obj().Pkg() == nil {
		return site{}, false
	}
	return site{lib: libraryOf(selection.Obj().Pkg().Path()), arg: libraryOfType(info.TypeOf(call.Args[0]))}, true
}

func namedOf(t types.Type) *types.Named {
	if t == nil {
		return nil
	}
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	n, _ := types.Unalias(t).(*types.Named)
	return n
}

func libraryOfType(t types.Type) string {
	n := namedOf(t)
	if n == nil || n.Obj().Pkg() == nil {
		return ""
	}
	return libraryOf(n.Obj().Pkg().Path())
}

func tombstoneLib(t types.Type) string {
	n := namedOf(t)
	if n == nil || n.Obj().Name() != "DeletedFinalStateUnknown" || n.Obj().Pkg() == nil {
		return ""
	}
	return libraryOf(n.Obj().Pkg().Path())
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
