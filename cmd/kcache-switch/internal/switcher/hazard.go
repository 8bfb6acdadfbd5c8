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
	// typeFile is the file declaring the alias a tombstone assertion
	// names ("" when it names the type itself).
	typeFile string
	rel      string // file:line, relative to the module root
	pkg      string
	lib      string
	arg      string
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
			reason := fmt.Sprintf("asserts %s's DeletedFinalStateUnknown (%s) while handlers are registered on %s-typed informers (%s), which deliver %s's tombstone",
				t.lib, t.rel, r.lib, r.rel, r.lib)
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
		case *ast.CompositeLit:
			if s, ok := optionRegistration(info, n); ok {
				s.file, s.pkg, s.rel = at(n).file, at(n).pkg, at(n).rel
				regs = append(regs, s)
			}
		case *ast.TypeAssertExpr:
			if lib := tombstoneLib(info.TypeOf(n.Type)); n.Type != nil && lib != "" {
				s := at(n)
				s.lib, s.typeFile = lib, aliasFile(p, n.Type)
				tombs = append(tombs, s)
			}
		case *ast.CaseClause:
			for _, e := range n.List {
				if lib := tombstoneLib(info.TypeOf(e)); lib != "" {
					s := at(e)
					s.lib, s.typeFile = lib, aliasFile(p, e)
					tombs = append(tombs, s)
				}
			}
		}
		return true
	})
	return regs, tombs
}

// registration reads a call that hands a handler to an informer: an
// AddEventHandler* method, or a function of a tools/cache library taking a
// ResourceEventHandler (cache.NewIndexerInformer, …). lib is the library
// of the method or function, arg that of the handler value's type.
func registration(info *types.Info, call *ast.CallExpr) (site, bool) {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || len(call.Args) == 0 {
		return site{}, false
	}
	if handlerMethods[sel.Sel.Name] {
		selection := info.Selections[sel]
		if selection == nil || selection.Obj().Pkg() == nil {
			return site{}, false
		}
		return site{lib: libraryOf(selection.Obj().Pkg().Path()), arg: libraryOfType(info.TypeOf(call.Args[0]))}, true
	}
	fn, ok := info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil || libraryOf(fn.Pkg().Path()) == "" {
		return site{}, false
	}
	params := fn.Type().(*types.Signature).Params()
	for i, arg := range call.Args {
		if i < params.Len() && isHandlerType(params.At(i).Type()) {
			return site{lib: libraryOf(fn.Pkg().Path()), arg: libraryOfType(info.TypeOf(arg))}, true
		}
	}
	return site{}, false
}

// optionRegistration reads a literal of a tools/cache library's struct
// that sets a ResourceEventHandler field (cache.InformerOptions{Handler:
// …}), the handler of the informer built from it.
func optionRegistration(info *types.Info, lit *ast.CompositeLit) (site, bool) {
	named := namedOf(info.TypeOf(lit))
	if named == nil || named.Obj().Pkg() == nil || libraryOf(named.Obj().Pkg().Path()) == "" {
		return site{}, false
	}
	if _, ok := named.Underlying().(*types.Struct); !ok {
		return site{}, false
	}
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		key, ok := kv.Key.(*ast.Ident)
		if !ok {
			continue
		}
		if f, ok := info.Uses[key].(*types.Var); ok && f.IsField() && isHandlerType(f.Type()) {
			return site{lib: libraryOf(named.Obj().Pkg().Path()), arg: libraryOfType(info.TypeOf(kv.Value))}, true
		}
	}
	return site{}, false
}

// isHandlerType tells whether t is a tools/cache library's
// ResourceEventHandler.
func isHandlerType(t types.Type) bool {
	n := namedOf(t)
	return n != nil && n.Obj().Name() == "ResourceEventHandler" && n.Obj().Pkg() != nil && libraryOf(n.Obj().Pkg().Path()) != ""
}

// aliasFile returns the file declaring the alias the type expression e
// names, "" when e names no alias.
func aliasFile(p *packages.Package, e ast.Expr) string {
	var id *ast.Ident
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		id = e
	case *ast.SelectorExpr:
		id = e.Sel
	case *ast.StarExpr:
		return aliasFile(p, e.X)
	}
	if id == nil {
		return ""
	}
	tn, ok := p.TypesInfo.Uses[id].(*types.TypeName)
	if !ok || !tn.IsAlias() || !tn.Pos().IsValid() {
		return ""
	}
	return p.Fset.Position(tn.Pos()).Filename
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
