package switcher

import (
	"fmt"
	"go/ast"
	"go/types"
	"path/filepath"

	"golang.org/x/tools/go/packages"
)

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
		case *ast.SelectorExpr:
			if fn, ok := info.Uses[n.Sel].(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() == clientgoCachePath && clientGoUnwrappers[fn.Name()] {
				s := at(n)
				s.lib, s.unwrapper = "client-go", "cache."+fn.Name()
				tombs = append(tombs, s)
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

// clientGoUnwrappers are client-go's functions that unwrap a tombstone,
// client-go's only: given kcache's, they fail ("object has no meta"), so a
// reference to one is a tombstone site of client-go's type. kcache's own
// unwrap both libraries' tombstones and are no such site.
var clientGoUnwrappers = map[string]bool{"DeletionHandlingMetaNamespaceKeyFunc": true, "DeletionHandlingObjectToName": true}

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
